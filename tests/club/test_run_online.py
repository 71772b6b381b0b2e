"""``tarotmate run`` with ``[web]`` and ``[club]``: the page follows the camera, finished deals reach the club,
the online menu (long BACK) shows the page's QR code."""

from __future__ import annotations

import json
import urllib.request

from device.app.loop import run_device
from device.app.session import GameSession
from device.club.table_link import ClubLink
from device.config import config_from_dict
from device.app.registry import game_for
from device.hardware.display import open_display
from device.hardware.outputs import Outputs
from device.screens.online import OnlineView
from device.storage.deal_log import DealLog
from engine.tarot import random_deal

from ..app.test_run import ScriptedButtons, bidding_presses, table
from .helpers import free_port, wait_for

NAMES = ["Ana", "Luis", "Marta", "Pau"]


def second_deal_truth():
    """A deal with a chien whose dealer is the one after seat 0 (deal 2 of a game dealt first by seat 0)."""
    for seed in range(1, 300):
        truth = random_deal(4, seed, poignee_rate=0.0)
        if truth.contract in ("prise", "garde") and truth.dealer == 1:
            return truth
    raise AssertionError("no such deal")


def test_run_serves_the_page_and_publishes_finished_deals(tmp_path, live_club, store, paired_table):
    db = tmp_path / "device.db"
    # the game's first deal was played and finished before this start
    with DealLog.open(db) as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, {}, label="device",
                                              first_setup={"dealer": 0})
        for op in random_deal(4, 77, dealer=0).operations:
            assert session.apply(op).ok
        record, scores = session.finish_deal()
        session.next_deal()
    # the table was paired earlier (paired_table): its outbox holds the server and the token
    port = free_port()
    config = config_from_dict({
        "game": {"dealer": 0, "names": NAMES}, "display": {"kind": "dummy"}, "ui": {"buzzer": False},
        "store": {"path": str(db)},
        "web": {"enabled": True, "host": "127.0.0.1", "port": port},
        "club": {"enabled": True, "url": live_club.url, "table_name": "Window"},
    })
    truth = second_deal_truth()
    frames, tracker = table(truth, tricks=2)
    seen: list[dict] = []
    display = open_display("dummy")
    outputs = Outputs([display])

    import sqlite3

    def chien_ops() -> int:
        con = sqlite3.connect(db)
        try:
            return con.execute("SELECT COUNT(*) FROM operations WHERE op LIKE '%\"chien\"%'").fetchone()[0]
        finally:
            con.close()

    before = chien_ops()

    class Buttons(ScriptedButtons):
        pressed = False

        def drain(self):
            events = super().drain()
            if not self.pressed and self.calls > 1 and chien_ops() > before:  # "écart done" once the chien is seen
                self.pressed = True
                events = events + [("ok", "press")]
            if self.calls % 10 == 0:
                seen.append(json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5).read()))
            return events

    rc = run_device(config, source=frames, tracker=tracker, buttons=Buttons({1: bidding_presses(truth)}),
                    outputs=outputs, report=lambda t: None)
    assert rc == 0
    assert seen, "the page answered during the run"
    last = seen[-1]
    assert last["title"] == "Window" and last["names"] == NAMES
    assert last["sheet"]["totals"] == [int(s) for s in scores]
    plays = [c["card"]["code"] for t in last["deal"]["tricks"] for c in t["cards"]] + \
            [c["card"]["code"] for c in last["deal"]["trick"]]
    assert plays and plays == (list(truth.tricks[0].cards) + list(truth.tricks[1].cards))[:len(plays)]
    assert last["club"]["text"].startswith("club: table 1")
    # the finished deal reached the club once (on this run, or on the next start from the outbox)
    again = ClubLink(paired_table.outbox, live_club.url)
    again.start()
    try:
        assert wait_for(lambda: len(store.deals(store.current_session()["id"])) == 1
                        if store.current_session() else False)
    finally:
        again.close()
    deal = store.deals(store.current_session()["id"])[0]
    assert deal["record"]["tricks"] == record["tricks"]
    assert [s["name"] for s in deal["seats"]] == NAMES


def test_the_online_menu_shows_the_qr_code(tmp_path):
    import cv2
    import numpy as np

    from device.app.online import Online
    from device.screens import render
    from device.screens.online import qr_matrix

    port = free_port()
    config = config_from_dict({"web": {"enabled": True, "host": "127.0.0.1", "port": port},
                               "store": {"path": str(tmp_path / "d.db")}})
    online = Online.from_config(config, None, lambda t: None)
    try:
        menu = online.menu("fr", "french")
        assert [label for label, _ in menu.step.options] == ["Page de la table"]
        view = online.view_for("page", lambda v: None)
        assert isinstance(view, OnlineView) and view.qr == f"http://127.0.0.1:{port}/"
        image = render(view, "fr")
        n = len(qr_matrix(view.qr))
        scale, top = 64 // n, (64 - 64 // n * n) // 2
        code = np.array(image.convert("L"))[top:top + n * scale, :n * scale]  # the code, 2 pixels a module
        assert scale == 2
        big = cv2.resize(code, (n * scale * 8, n * scale * 8), interpolation=cv2.INTER_NEAREST)
        big = cv2.copyMakeBorder(big, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
        assert cv2.QRCodeDetector().detectAndDecode(big)[0] == f"HTTP://127.0.0.1:{port}"
    finally:
        online.close()


def test_a_long_back_opens_the_online_menu_and_ok_shows_the_qr_code(tmp_path):
    from types import SimpleNamespace

    from device.app.menu_driver import MenuDriver
    from device.app.online import Online

    port = free_port()
    config = config_from_dict({"web": {"enabled": True, "host": "127.0.0.1", "port": port},
                               "store": {"path": str(tmp_path / "d.db")}})
    online = Online.from_config(config, None, lambda t: None)
    decided = []
    app = SimpleNamespace(controller=SimpleNamespace(pending=[]), lang="en", style="french", alert=None,
                          menu_view=None, refresh=lambda: None, on_decision=decided.append,
                          session=SimpleNamespace(names=NAMES, rules=SimpleNamespace(menus=SimpleNamespace(
                              wanted_key=lambda app: None))))
    try:
        menus = MenuDriver(app, online)
        menus.on_button(("back", "long"))
        assert app.menu_view is not None and app.menu_view.title == "Online"
        menus.on_button(("ok", "press"))
        assert isinstance(app.alert, OnlineView) and app.alert.qr == f"http://127.0.0.1:{port}/"
        assert app.menu_view is None and decided == []  # nothing reached the game
        menus.on_button(("back", "press"))
        assert app.alert is None
    finally:
        online.close()


def test_a_refused_deal_is_shown_on_the_table(tmp_path, live_club, paired_table):
    from device.app.online import Online

    config = config_from_dict({"club": {"enabled": True, "url": live_club.url},
                               "store": {"path": str(tmp_path / "d.db")}})
    shown = []
    online = Online.from_config(config, None, lambda t: None)
    online.show = shown.append
    try:
        deal = random_deal(4, 5)
        record = deal.to_record()
        record["names"] = NAMES
        online.link.publish("x", record, [s + 1 for s in deal.result().scores])
        assert wait_for(lambda: shown)
        assert isinstance(shown[0], OnlineView) and "do not replay" in shown[0].lines[0]
        assert "club refused a deal" in online.link.status_text()
    finally:
        online.close()


def test_the_players_are_chosen_on_the_oled_from_the_club_list(tmp_path, live_club, store):
    from types import SimpleNamespace

    from device.app.menu_driver import MenuDriver
    from device.app.online import Online

    for name in ["Zoé", "Hugo", "Inès", "Malo", "Léa"]:
        store.add_player(name)
    db = tmp_path / "d.db"
    config = config_from_dict({"club": {"enabled": True, "url": live_club.url}, "store": {"path": str(db)},
                               "game": {"names": NAMES}})
    log = DealLog.open(db)
    online = Online.from_config(config, log, lambda t: None)
    try:
        assert wait_for(lambda: online.link.players())  # the club's list, fetched once
        session = GameSession.resume_or_start(log, game_for("french-tarot"), online.seating(NAMES), {},
                                              label="device", first_setup={"dealer": 0})
        assert session.names == NAMES
        old_game = session.game.id
        app = SimpleNamespace(controller=SimpleNamespace(pending=[], reset_collections=lambda: None), lang="fr",
                              style="french", alert=None, menu_view=None, refresh=lambda: None,
                              on_decision=lambda d: None, session=session)
        menus = MenuDriver(app, online)
        assert app.menu_view.title != "En ligne"  # the bidding is open
        menus.on_button(("back", "long"))
        assert app.menu_view.items[0] == "Joueurs du club"
        menus.on_button(("ok", "press"))  # "Players from the club"
        assert app.menu_view.title.endswith("1")  # seat 1
        for _ in range(3):
            menus.on_button(("ok", "press"))  # the first name left, seat after seat
        menus.on_button(("down", "press"))
        menus.on_button(("ok", "press"))  # the fourth seat: the second name left
        club = sorted(["Zoé", "Hugo", "Inès", "Malo", "Léa"], key=str.lower)
        chosen = club[:3] + [club[4]]
        assert session.names == chosen and session.game.id != old_game
        assert log.game(old_game).finished is not None
        assert isinstance(app.alert, OnlineView)
        assert online.seating(NAMES) == chosen  # kept for the next start
    finally:
        online.close()
        log.close()

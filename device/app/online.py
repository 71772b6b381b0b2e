"""The table's optional network parts in ``tarotmate run``: its live page (``[web]``) and its club (``[club]``).

:class:`Online` is fed by the table app's hooks (after every change): the
page gets the new state, and every deal the deal log has finished is queued
in the club outbox (a deal finished just before a power cut is queued on the
next start: the outbox's id is the deal log's). Its menu (a long press of
BACK with no menu open) shows the page's QR code, pairs the table with the
club, and says how the club link stands. Nothing here can stop the table.
"""

from __future__ import annotations

import socket
from typing import Any, Callable

import json
import threading

from device.app.flows import ChoiceFlow, Decision, Flow, Step
from device.i18n import N_, translator
from device.screens.online import CLUB, CLUB_PAIRING, TABLE_PAGE, OnlineView

ONLINE = "online"


class ClubPlayersFlow(Flow):
    """One club player for each seat, in playing order: ``("online", "players", names)``."""

    def __init__(self, club_names: list[str], seats: int, lang: str = "en", style: str = "french") -> None:
        super().__init__(lang, style)
        self.names = list(club_names)
        self.seats = seats
        self.chosen: list[str] = []
        self._ask()

    def _ask(self) -> list[Decision]:
        if len(self.chosen) == self.seats:
            self.finish()
            return [(ONLINE, "players", tuple(self.chosen))]
        left = [(n, n) for n in self.names if n not in self.chosen]
        title = self.tr(N_("Seat {n}")).format(n=len(self.chosen) + 1)
        self.push(Step(title, left, self._pick, on_back=self._unpick))
        return []

    def _pick(self, name: str) -> list[Decision]:
        self.chosen.append(name)
        return self._ask()

    def _unpick(self) -> list[Decision]:
        self.steps.pop()
        if self.chosen:
            self.chosen.pop()
        return []


def lan_address() -> str:
    """This machine's address on the LAN (the interface of the default route), else 127.0.0.1."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # TEST-NET: nothing is sent
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


class Online:
    def __init__(self, config: Any, log: Any, report: Callable[[str], None], camera: Any = None) -> None:
        self.config = config
        self.camera = camera  # the live view's camera check (device.app.camera_check)
        self.log = log
        self.report = report
        self.page = None
        self.link = None
        self.show: Callable[[Any], None] | None = None  # shows a screen over the game (set by the main loop)
        self._published: set[int] = set()

    @classmethod
    def from_config(cls, config: Any, log: Any, report: Callable[[str], None], camera: Any = None) -> "Online":
        online = cls(config, log, report, camera)
        online.start()
        return online

    @property
    def enabled(self) -> bool:
        return self.page is not None or self.link is not None

    def start(self) -> None:
        web, club = self.config.web, self.config.club
        if web.enabled:
            from device.web.server import TablePage

            try:
                self.page = TablePage(web.host, web.port, camera=self.camera).start()
                self.report(f"table page on {self.page_url()}")
            except Exception as exc:  # the table plays on without its page
                self.report(f"the table's page did not start: {exc}")
                self.page = None
        if club.enabled:
            from device.club.table_link import ClubLink

            self.link = ClubLink(club.resolved_outbox(self.config.store.resolved()), club.url or None,
                                 table_name=club.table_name, report=self.report, on_refused=self._refused)
            self.link.start()

    def _refused(self, reason: str) -> None:
        if self.show is not None:
            self.show(OnlineView(CLUB, (reason,)))

    def page_url(self) -> str | None:
        if self.page is None:
            return None
        host = self.page.host
        if host in ("0.0.0.0", "::"):
            host = lan_address()
        return f"http://{host}:{self.page.port}/"

    # ------------------------------------------------------------ after every change

    def update(self, session: Any) -> None:
        """The table app's hook: refresh the page, queue the finished deals."""
        try:
            if self.link is not None:
                self._publish_finished(session)
            if self.page is not None:
                from device.web.table_state import table_page_state

                club = {"text": self.link.status_text()} if self.link is not None else None
                self.page.update(table_page_state(self.log, session.game, session.state,
                                                  self.config.club.table_name, club,
                                                  lang=self.config.ui.language))  # the OLED's language
        except Exception as exc:  # a page or a club problem never stops the game
            self.report(f"online: {exc}")

    def _publish_finished(self, session: Any) -> None:
        for deal in self.log.deals(session.game.id):
            if deal.id in self._published or deal.record is None or deal.scores is None:
                continue
            self.link.publish(deal.id, deal.record, deal.scores)
            self._published.add(deal.id)

    # ------------------------------------------------------------ the OLED menu

    def menu(self, lang: str, style: str, seats: int = 0) -> Flow | None:
        if not self.enabled:
            return None
        tr = translator(lang)
        items = []
        if self.page is not None:
            items.append((tr(N_("Table page")), (ONLINE, "page")))
        if self.link is not None:
            club_names = self.link.players(refresh=False)
            threading.Thread(target=self.link.players, daemon=True).start()  # fresh for the next time
            if seats and len(club_names) >= seats:
                items.append((tr(N_("Players from the club")), (ONLINE, "choose", tuple(club_names), seats)))
            items.append((tr(N_("Pair with the club")), (ONLINE, "pair")))
            items.append((tr(N_("Club status")), (ONLINE, "status")))
        return ChoiceFlow(tr(N_("Online")), items, lang, style)

    def seating(self, names: list[str]) -> list[str]:
        """The seats' names: the club players chosen on the OLED (kept in the outbox file), else ``names``."""
        if self.link is None:
            return names
        saved = self.link.outbox.get_link("seating")
        chosen = json.loads(saved) if saved else None
        return list(chosen) if isinstance(chosen, list) and len(chosen) == len(names) else names

    def seat_players(self, app: Any, names: tuple[str, ...]) -> Any:
        """A new game with the club players chosen on the OLED (the game in progress is closed, as by
        "End the game"); the seating is kept for the next starts."""
        session = app.session
        session.close_game()
        session.start_new_game(list(names))
        app.controller.reset_collections()
        app.controller.pending.clear()
        self.link.outbox.set_link(seating=json.dumps(list(names), ensure_ascii=False))
        self.update(session)
        return OnlineView(CLUB, (", ".join(names),))

    def decide(self, app: Any, decision: tuple, show: Callable[[Any], None]) -> Any:
        """What an online menu decision does; returns the screen to show (``show`` redraws later
        ones, e.g. the pairing code once the server gives it)."""
        action = decision[1]
        if action == "choose":
            return ClubPlayersFlow(list(decision[2]), decision[3], app.lang, app.style)
        if action == "players":
            return self.seat_players(app, decision[2])
        return self.view_for(action, show)

    def view_for(self, action: str, show: Callable[[Any], None]) -> Any:
        """The screen an online menu choice shows (``show`` redraws later ones, e.g. the pairing code)."""
        if action == "page":
            return OnlineView(TABLE_PAGE, (), self.page_url())
        if action == "pair" and self.link is not None:
            def shown(code: str) -> None:
                show(OnlineView(CLUB_PAIRING, (self.link.url or "",), big=code))

            def done(error: str | None) -> None:
                show(OnlineView(CLUB, (error or self.link.status_text(),)))

            self.link.pair(shown, done)
            return OnlineView(CLUB_PAIRING, ("…",))
        if self.link is not None:
            s = self.link.status()
            return OnlineView(CLUB, (self.link.status_text(), s["url"] or "", f"{s['sent']} sent, "
                                     f"{s['refused']} refused"))
        return None

    def players(self) -> list[str]:
        """The club's player list, for choosing the players on the OLED (empty without a club)."""
        return self.link.players() if self.link is not None else []

    def close(self) -> None:
        if self.page is not None:
            self.page.stop()
        if self.link is not None:
            self.link.close()

"""The table side: a game in the deal log shown on the table's page, finished deals published to the club."""

from __future__ import annotations

from device.club.table_link import ClubLink, int_scores
from device.app.session import GameSession
from device.app.registry import game_for
from device.storage.deal_log import DealLog
from device.web.table_state import table_page_state
from engine.tarot.simulate import random_deal

from .helpers import wait_for

NAMES = ["Ana", "Luis", "Marta", "Pau"]


def play_deal(session: GameSession, seed: int) -> None:
    source = random_deal(4, seed, dealer=session.state.dealer)
    for op in source.operations:
        assert session.apply(op).ok


def test_the_page_state_follows_the_deal_log(tmp_path):
    with DealLog.open(tmp_path / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="t")
        play_deal(session, 1)
        _, scores = session.finish_deal()
        session.next_deal()
        state = table_page_state(log, session.game, session.state, "Window")
        assert state["title"] == "Window" and state["names"] == NAMES
        assert state["sheet"]["totals"] == int_scores(scores)
        assert state["sheet"]["running"] == [[s] for s in int_scores(scores)]
        assert state["deal"]["phase"] == "bidding" and state["deal"]["trick"] == []
        source = random_deal(4, 2, dealer=session.state.dealer)
        ops = list(source.operations)
        first_play = next(i for i, op in enumerate(ops) if type(op).__name__ == "Play")
        for op in ops[:first_play + 2]:
            session.apply(op)
        state = table_page_state(log, session.game, session.state, "Window")
        assert [p["card"]["code"] for p in state["deal"]["trick"]] == [ops[first_play].card, ops[first_play + 1].card]
        assert state["deal"]["taker"] == NAMES[source.taker]
        assert state["deal"]["target"] is not None


def test_finished_deals_reach_the_club_once(tmp_path, live_club, store):
    link = ClubLink(tmp_path / "outbox.db", url=live_club.url, table_name="Window")
    shown, done = [], []
    link.pair(shown.append, done.append)
    assert wait_for(lambda: shown)
    assert link.status_text() == f"club: type {shown[0]} on the director page"
    store.confirm_pairing(shown[0])
    assert wait_for(lambda: done) and done == [None]
    with DealLog.open(tmp_path / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="t")
        play_deal(session, 3)
        record, scores = session.finish_deal()
        link.publish(session.deal.id, record, scores)
        link.publish(session.deal.id, record, scores)  # the same deal again (a restart): one publication
    assert wait_for(lambda: link.status()["sent"] == 1)
    assert link.status_text() == "club: table 1, all sent"
    deals = store.deals(store.current_session()["id"])
    assert len(deals) == 1 and [s["score"] for s in deals[0]["seats"]] == int_scores(scores)
    store.add_player("Jeanne")
    assert "Jeanne" in link.players()
    link.close()


def test_a_table_without_a_server_plays_on(tmp_path):
    link = ClubLink(tmp_path / "outbox.db", url="http://127.0.0.1:9")
    link.outbox.set_link(token="t", table="2")
    link.start()
    assert link.publish("d1", random_deal(4, 1).to_record(), [1.0, 2.0, -3.0, 0.0])
    assert link.status()["waiting"] == 1
    assert link.status_text() == "club: table 2, 1 deal waiting"
    assert link.players() == []
    link.close()


def test_a_trivium_game_from_the_deal_log_reaches_the_club(paired_table, store):
    from engine.trivium.bot import random_game

    rules = game_for("trivium")
    game = random_game(["Ana", "Luis", "Marta"], seed=3)
    record, scores = rules.write_record(game), rules.scores(game)
    link = ClubLink(paired_table.outbox, url=paired_table.url)
    link.start()
    try:
        link.publish(1, record, scores)
        assert wait_for(lambda: link.status()["sent"] == 1), link.outbox.items()
    finally:
        link.close()
    deal = store.deals(store.current_session()["id"])[0]
    assert deal["game"] == "trivium" and [s["score"] for s in deal["seats"]] == int_scores(scores)


def test_the_page_shows_a_trivium_game_as_trivium(tmp_path):
    with DealLog.open(tmp_path / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("trivium"), NAMES[:3], label="t")
        state = table_page_state(log, session.game, session.state, "Window")
        assert state["deal"]["game"] == "trivium" and state["deal"]["contract_label"] == "Trivium"
        assert (state["deal"]["phase"], state["deal"]["phase_label"]) == ("deal", "Dealing")  # not "Game over"
        assert state["deal"]["result"] is None
        tarot = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="u")
        assert table_page_state(log, tarot.game, tarot.state)["deal"]["game"] == "french-tarot"


def play_trivium_games(session: GameSession, seeds) -> list:
    """Finished Trivium games of the bots, one per seed, through the session (as the table logs them)."""
    from engine.trivium.bot import random_game

    games = []
    for n, seed in enumerate(seeds):
        if n:
            session.next_deal()
        game = random_game(session.names, seed=seed)
        for op in game.operations:
            assert session.apply(op).ok
        session.finish_deal()
        games.append(game.state)
    return games


def test_a_finished_trivium_game_shows_its_winner_combination_and_points(tmp_path):
    with DealLog.open(tmp_path / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("trivium"), NAMES[:3], label="t")
        played = play_trivium_games(session, [2, 4])  # Ana: CUADRIVIUM 50, then Luis: GRAN MAESTRE 200
        assert [(g.winner, g.result.combination) for g in played] == [(0, "cuadrivium"), (1, "gran_maestre")]
        state = table_page_state(log, session.game, session.state, "Window")
        deal = state["deal"]
        assert deal["phase"] == "finished" and deal["phase_label"] == "Game over"
        assert deal["result"] == {"winner": "Luis", "combination": "gran_maestre",
                                  "combination_label": "GRAN MAESTRE", "points": 200, "scores": [0, 200, 0]}
        assert deal["outcome"] == "Luis wins · GRAN MAESTRE · 200 points"
        assert "won" not in deal["result"] and "diff" not in deal["result"]  # no tarot verdict ("made by 0")
        rows = state["sheet"]["rows"]
        assert [r["label"] for r in rows] == ["CUADRIVIUM (Ana)", "GRAN MAESTRE (Luis)"]
        assert [(r["winner"], r["combination"], r["points"]) for r in rows] == [("Ana", "cuadrivium", 50),
                                                                               ("Luis", "gran_maestre", 200)]
        assert all(r["contract"] is None and r["taker"] is None for r in rows)  # no tarot field overloaded
        assert state["sheet"]["totals"] == [50, 200, 0] and state["sheet"]["heading"] == "Combination"
        french = table_page_state(log, session.game, session.state, "Window", lang="fr")
        assert french["deal"]["outcome"] == "Luis gagne · GRAN MAESTRE · 200 points"
        assert french["labels"]["sheet"] == "Feuille de marque" and french["lang"] == "fr"


def test_the_page_speaks_the_devices_language_and_writes_its_decimals(tmp_path):
    from device.games.french_tarot.page import deal_view

    with DealLog.open(tmp_path / "log.db") as log:
        five = NAMES + ["Jordi"]
        session = GameSession.resume_or_start(log, game_for("french-tarot"), five, label="t")
        source = random_deal(5, 1, dealer=session.state.dealer)
        for op in source.operations:
            session.apply(op)
        deal = session.state
        r = deal.result()
        assert r.attack_points == 60.5  # a half point
        en, es = deal_view(deal, five, "en"), deal_view(deal, five, "es")
        assert en["outcome"].startswith("Attack: 60.5 points")
        assert es["outcome"].startswith("Ataque: 60,5 puntos")
        assert es["phase_label"] == "Mano terminada" and en["phase_label"] == "Deal over"
        verdict = ("made by " if r.won else "failed by ") + str(r.diff)
        assert en["outcome"].endswith(verdict)
        state = table_page_state(log, session.game, session.state, "Window", lang="es")
        assert state["labels"]["deal"] == "Mano" and state["labels"]["live"] == "En directo"


def test_the_page_follows_the_language_of_the_devices_screens(tmp_path):
    from device.app.online import Online
    from device.config import config_from_dict

    config = config_from_dict({"game": {"names": NAMES}, "display": {"kind": "dummy"}, "ui": {"language": "es"},
                               "club": {"table_name": "Ventana"}})
    sent: list[dict] = []
    with DealLog.open(tmp_path / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="t")
        online = Online(config, log, report=lambda text: sent.append({"report": text}))
        online.page = type("Page", (), {"update": lambda self, state: sent.append(state)})()
        online.update(session)
    assert [(s["title"], s["lang"], s["labels"]["sheet"], s["deal"]["phase_label"]) for s in sent] == [
        ("Ventana", "es", "Hoja de puntos", "Subasta")]

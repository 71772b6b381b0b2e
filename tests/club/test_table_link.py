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

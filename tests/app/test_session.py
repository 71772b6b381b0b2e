"""The session keeps the engine in step with the deal log: resume, undo, refusal."""

import sqlite3

import pytest

from device.games.registry import game_for
from device.app.session import GameSession
from device.storage.deal_log import DealLog, StoreError
from engine.tarot import Bid, random_deal

NAMES = ["Ana", "Luis", "Marta", "Pau"]


def test_resume_replays_the_log(tmp_path):
    truth = random_deal(4, 4)
    path = tmp_path / "log.db"
    half = len(truth.operations) // 2
    with DealLog.open(path) as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="x", first_setup={"dealer": truth.dealer})
        for op in truth.operations[:half]:
            assert session.apply(op).ok
    with DealLog.open(path) as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="x")
        assert session.replayed == half
        assert [o.to_dict() for o in session.state.operations] == [o.to_dict() for o in truth.operations[:half]]
        for op in truth.operations[half:]:
            assert session.apply(op).ok
        record, scores = session.finish_deal()
        assert scores == list(truth.result().scores)
        assert record["format"] == "tarot-deal/1"
        session.next_deal()
        assert session.deal.number == 2
        assert session.deal.setup["dealer"] == (truth.dealer + 1) % 4
        assert session.totals() == list(truth.result().scores)


def test_refused_operation_is_not_logged(tmp_path):
    with DealLog.open(tmp_path / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, first_setup={"dealer": 0})
        result = session.apply(Bid(3, "garde"))  # seat 1 speaks first
        assert not result.ok and result.refusal.reason
        assert session.operations_count == 0
        assert session.apply(Bid(1, "prise")).ok
        assert session.undo().to_dict() == {"op": "bid", "seat": 1, "bid": "prise"}
        assert session.undo() is None
        assert session.state.bids == ()


def test_a_log_that_no_longer_replays_is_refused(tmp_path):
    path = tmp_path / "log.db"
    with DealLog.open(path) as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, first_setup={"dealer": 0})
        session.apply(Bid(1, "prise"))
    conn = sqlite3.connect(path)
    conn.execute("""UPDATE operations SET op = '{"op":"bid","seat":3,"bid":"garde"}'""")
    conn.commit()
    conn.close()
    with DealLog.open(path) as log:
        with pytest.raises(StoreError, match="no longer replays"):
            GameSession.resume_or_start(log, game_for("french-tarot"), NAMES)


def test_another_game_kind_in_the_log_is_refused(tmp_path):

    with DealLog.open(tmp_path / "log.db") as log:
        GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="device")
        with pytest.raises(StoreError, match="is french-tarot, not trivium"):
            GameSession.resume_or_start(log, game_for("trivium"), NAMES, label="device")

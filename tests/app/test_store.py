"""The deal log: append, replay, undo, finish, and refusal of foreign or damaged files."""

import sqlite3
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from device.storage.deal_log import APPLICATION_ID, DealLog, StoreError

NAMES = ["Ana", "Luis", "Marta", "Pau"]


@pytest.fixture
def log(tmp_path):
    with DealLog.open(tmp_path / "log.db") as opened:
        yield opened


def test_new_log_is_identified_and_durable(tmp_path):
    path = tmp_path / "sub" / "log.db"
    DealLog.open(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_append_replay_and_undo(tmp_path):
    path = tmp_path / "log.db"
    with DealLog.open(path) as log:
        game = log.start_game("french-tarot", NAMES, {"misere": True})
        deal = log.start_deal(game.id, {"dealer": 3})
        ops = [{"op": "bid", "seat": s, "bid": "pass"} for s in range(3)]
        for i, op in enumerate(ops, 1):
            assert log.append(deal.id, op) == i
    with DealLog.open(path) as log:  # a restart reads everything back
        game = log.open_game()
        assert game.names == NAMES and game.options == {"misere": True}
        deal = log.open_deal(game.id)
        assert deal.setup == {"dealer": 3}
        assert log.operations(deal.id) == ops
        assert log.pop(deal.id) == ops[-1]
        assert log.operations(deal.id) == ops[:-1]
        assert log.append(deal.id, {"op": "bid", "seat": 2, "bid": "garde"}) == 3


def test_pop_on_empty_deal_returns_none(log):
    game = log.start_game("trivium", NAMES[:3])
    deal = log.start_deal(game.id)
    assert log.pop(deal.id) is None


def test_finished_deal_is_frozen_and_totals_add_up(log):
    game = log.start_game("french-tarot", NAMES)
    first = log.start_deal(game.id)
    log.append(first.id, {"op": "x"})
    with pytest.raises(StoreError, match="unfinished deal"):
        log.start_deal(game.id)
    log.finish_deal(first.id, {"format": "tarot-deal/1"}, [52, 52, -156, 52])
    with pytest.raises(StoreError, match="finished"):
        log.append(first.id, {"op": "y"})
    with pytest.raises(StoreError, match="cannot be undone"):
        log.pop(first.id)
    second = log.start_deal(game.id)
    assert second.number == 2
    log.finish_deal(second.id, None, None)  # redeal: no score
    third = log.start_deal(game.id)
    log.finish_deal(third.id, {"format": "tarot-deal/1"}, [-30, 90, -30, -30])
    assert log.totals(game.id) == [22, 142, -186, 22]
    assert [r["format"] for r in log.iter_records(game.id)] == ["tarot-deal/1", "tarot-deal/1"]
    log.finish_game(game.id)
    assert log.open_game() is None
    with pytest.raises(StoreError, match="finished"):
        log.start_deal(game.id)


def test_games_are_found_by_label(log):
    a = log.start_game("french-tarot", NAMES, label="demo:french-tarot:7")
    log.start_game("trivium", NAMES, label="device")
    assert log.open_game("demo:french-tarot:7").id == a.id
    assert log.open_game("demo:french-tarot:8") is None
    assert log.latest_game("device").kind == "trivium"


def _bytes(path):
    return path.read_bytes()


def test_text_file_is_refused_and_untouched(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("shopping list\n" * 20)
    before = _bytes(path)
    with pytest.raises(StoreError, match="not an SQLite database"):
        DealLog.open(path)
    assert _bytes(path) == before


def test_foreign_sqlite_database_is_refused_and_untouched(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE photos (id INTEGER)")
    conn.commit()
    conn.close()
    before = _bytes(path)
    with pytest.raises(StoreError, match="another application"):
        DealLog.open(path)
    assert _bytes(path) == before
    assert not (tmp_path / "other.db-wal").exists()


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "log.db"
    DealLog.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version=99")
    conn.commit()
    conn.close()
    before = _bytes(path)
    with pytest.raises(StoreError, match="newer Tarotmate"):
        DealLog.open(path)
    assert _bytes(path) == before


def test_damaged_log_is_refused_and_untouched(tmp_path):
    path = tmp_path / "log.db"
    with DealLog.open(path) as log:
        game = log.start_game("french-tarot", NAMES)
        deal = log.start_deal(game.id)
        for i in range(300):
            log.append(deal.id, {"op": "play", "card": "T01", "n": i, "pad": "x" * 50})
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(_bytes(path))
    page = 4096
    for offset in range(2 * page, min(len(data), 6 * page)):
        data[offset] = 0xA5  # scribble over b-tree pages, keep the header
    path.write_bytes(bytes(data))
    before = _bytes(path)
    with pytest.raises(StoreError, match="damaged"):
        DealLog.open(path)
    assert _bytes(path) == before


def test_empty_file_becomes_a_new_log(tmp_path):
    path = tmp_path / "empty.db"
    path.touch()
    with DealLog.open(path) as log:
        assert log.games() == []


@settings(max_examples=25, deadline=None)
@given(st.lists(st.one_of(st.just("undo"), st.integers(0, 77)), max_size=30))
def test_log_matches_a_list_model(tmp_path_factory, actions):
    path = tmp_path_factory.mktemp("model") / "log.db"
    model: list[dict] = []
    with DealLog.open(path) as log:
        deal = log.start_deal(log.start_game("french-tarot", NAMES).id)
        for action in actions:
            if action == "undo":
                assert log.pop(deal.id) == (model.pop() if model else None)
            else:
                op = {"op": "play", "card": action}
                log.append(deal.id, op)
                model.append(op)
    with DealLog.open(path) as log:
        assert log.operations(log.open_deal(log.open_game().id).id) == model


KILL_WRITER = r"""
import sys
from device.storage.deal_log import DealLog
log = DealLog.open(sys.argv[1])
game = log.open_game() or log.start_game("french-tarot", ["A", "B", "C", "D"])
deal = log.open_deal(game.id) or log.start_deal(game.id)
i = log.count(deal.id)
while True:
    log.append(deal.id, {"op": "play", "n": i})
    print(i, flush=True)
    i += 1
"""


def test_kill_9_loses_nothing_that_was_acknowledged(tmp_path):
    """Each printed number was appended before it was printed: after
    ``kill -9`` all of them, in order, are in the log (plus at most one)."""
    path = tmp_path / "log.db"
    for _ in range(2):
        proc = subprocess.Popen([sys.executable, "-c", KILL_WRITER, str(path)], stdout=subprocess.PIPE, text=True)
        seen = [int(proc.stdout.readline()) for _ in range(25)]
        proc.kill()
        proc.wait()
        with DealLog.open(path) as log:
            ops = log.operations(log.open_deal(log.open_game().id).id)
        numbers = [op["n"] for op in ops]
        assert numbers == list(range(len(numbers)))
        assert numbers[: seen[-1] + 1] == list(range(seen[-1] + 1))

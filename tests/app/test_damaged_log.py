"""A deal log that SQLite finds healthy but whose rows are damaged (not UTF-8,
truncated or oversized JSON, wrong shapes): every read reports the game and
the deal, never a traceback; a writer refuses the log and leaves it
untouched; a read-only location is reported as read-only."""

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from device.storage.deal_log import DamagedRow, DealLog, StoreError

NAMES = ["Ana", "Luis", "Marta", "Pau"]
ENV = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "SDL_VIDEODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}


def make_log(path):
    """Two games: a finished deal with its record and scores, and an open deal with operations."""
    with DealLog.open(path) as log:
        game = log.start_game("french-tarot", NAMES, {})
        deal = log.start_deal(game.id, {"dealer": 0})
        log.append(deal.id, {"op": "bid", "seat": 1, "bid": "pass"})
        log.finish_deal(deal.id, {"format": "tarot-deal/1"}, [1, 2, 3, -6])
        second = log.start_deal(game.id, {"dealer": 1})
        for seat in (2, 3):
            log.append(second.id, {"op": "bid", "seat": seat, "bid": "pass"})
    settle(path)


def settle(path):
    """Everything in the main file, no WAL left: its bytes say all there is."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def damage(path, sql, *params):
    conn = sqlite3.connect(path)
    conn.execute(sql, params)
    conn.commit()
    conn.close()
    settle(path)


def snapshot(path):
    """The database and its WAL (an empty WAL left by a read-only reader holds nothing)."""
    return {p.name: p.read_bytes() for p in path.parent.iterdir()
            if p.name.startswith(path.name) and not p.name.endswith((".lock", "-shm")) and p.stat().st_size}


DAMAGES = [
    # (what is written, SQL, where the message must point)
    ("non-UTF-8 names", "UPDATE games SET names = CAST(x'5b22ff225d' AS TEXT)", "game 1", "names: not UTF-8"),
    ("names that are a number", "UPDATE games SET names = '5'", "game 1", "names: expected 4 names"),
    ("truncated operation", "UPDATE operations SET op = '{\"op\": \"bid\", \"se' WHERE seq = 2",
     "game 1, deal 2, operation 2", "invalid JSON"),
    ("operation that is a list", "UPDATE operations SET op = '[1,2]' WHERE seq = 1 AND deal_id = 2",
     "game 1, deal 2, operation 1", "expected an operation object"),
    ("5000-digit number", "UPDATE operations SET op = '{\"op\":\"bid\",\"seat\":" + "9" * 5000 + "}' WHERE seq = 1 "
     "AND deal_id = 1", "game 1, deal 1, operation 1", "5000 digits"),
    ("deep options", "UPDATE games SET options = '" + "[" * 5000 + "]" * 5000 + "'", "game 1", "nested deeper"),
    ("non-UTF-8 record", "UPDATE deals SET record = CAST(x'7b22c3' AS TEXT) WHERE number = 1",
     "game 1, deal 1", "record: not UTF-8"),
    ("scores for 3 players", "UPDATE deals SET scores = '[1,2,3]' WHERE number = 1", "game 1, deal 1",
     "3 scores for 4 players"),
    ("setup that is text", "UPDATE deals SET setup = '\"x\"' WHERE number = 2", "game 1, deal 2", "setup"),
    ("a blob for a kind", "UPDATE games SET kind = x'00ff'", "game 1", "kind"),
    ("NaN in scores", "UPDATE deals SET scores = '[NaN,1,1,1]' WHERE number = 1", "game 1, deal 1", "NaN"),
]


@pytest.mark.parametrize("what, sql, where, problem", DAMAGES, ids=[d[0] for d in DAMAGES])
def test_a_damaged_row_is_reported_by_game_and_deal_and_left_untouched(tmp_path, what, sql, where, problem):
    path = tmp_path / "log.db"
    make_log(path)
    damage(path, sql)
    before = snapshot(path)
    with pytest.raises(DamagedRow) as refused:
        DealLog.open(path)  # a writer checks every row first
    message = str(refused.value)
    assert where in message and problem in message, message
    assert "left untouched" in message
    assert snapshot(path) == before
    # the command line says the same, without a traceback
    result = subprocess.run([sys.executable, "-m", "device.cli", "history", "--db", str(path)],
                            capture_output=True, text=True, env=ENV)
    assert result.returncode == 2 and where in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert snapshot(path) == before


def test_run_refuses_to_write_into_a_damaged_log(tmp_path):
    path = tmp_path / "log.db"
    make_log(path)
    damage(path, "UPDATE deals SET record = '{\"format\": ' WHERE number = 1")
    before = snapshot(path)
    config = tmp_path / "tarotmate.toml"
    config.write_text(f'[camera]\nsource = "simulator"\n[display]\nkind = "dummy"\n[store]\npath = "{path}"\n')
    result = subprocess.run([sys.executable, "-m", "device.cli", "run", "--config", str(config), "--max-frames", "3"],
                            capture_output=True, text=True, env=ENV, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "game 1, deal 1" in result.stderr and "Traceback" not in result.stderr
    assert snapshot(path) == before


def test_an_operation_the_engine_cannot_read_is_reported_with_game_and_deal(tmp_path):
    from device.app.registry import game_for
    from device.app.session import GameSession

    path = tmp_path / "log.db"
    make_log(path)
    damage(path, "UPDATE operations SET op = '{\"op\":\"bid\",\"seat\":\"x\"}' WHERE deal_id = 2 AND seq = 2")
    before = snapshot(path)
    with DealLog.open(path) as log:  # decodes: it is JSON of the right shape
        with pytest.raises(StoreError, match="game 1, deal 2: operation 2") as refused:
            GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, {}, label="")
    assert "left untouched" in str(refused.value)
    assert snapshot(path) == before


def test_names_with_control_characters_are_shown_escaped_by_history(tmp_path):
    path = tmp_path / "log.db"
    with DealLog.open(path) as log:
        log.start_game("french-tarot", ["A\x1b[31m", "B\x07", "C\u202e", "D"])
    result = subprocess.run([sys.executable, "-m", "device.cli", "history", "--db", str(path), "--csv", "-"],
                            capture_output=True, text=True, env=ENV)
    assert result.returncode == 0, result.stderr
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in result.stdout + result.stderr
    assert "A\\x1b[31m" in result.stderr and "B\\x07" in result.stderr and "C\\u202e" in result.stderr


def test_a_value_the_log_could_not_read_back_is_refused_on_write(tmp_path):
    with DealLog.open(tmp_path / "log.db") as log:
        deal = log.start_deal(log.start_game("french-tarot", NAMES).id)
        with pytest.raises(StoreError, match="nested deeper"):
            nested: list = []
            for _ in range(100):
                nested = [nested]
            log.append(deal.id, {"op": "x", "v": nested})
        with pytest.raises(StoreError, match="digits"):
            log.append(deal.id, {"op": "x", "v": 10 ** 60})
        with pytest.raises(StoreError, match="nan"):
            log.finish_deal(deal.id, None, [float("nan")] * 4)
        assert log.count(deal.id) == 0


# ---------------------------------------------------------------- read-only places

# The child imports everything, then (when it runs as root, which ignores
# permissions) drops to the user nobody before it opens the log.
READ_ONLY_CHILD = """
import os, sys
from device.storage.deal_log import DealLog, StoreError
if os.geteuid() == 0:
    import pwd
    nobody = pwd.getpwnam("nobody")
    os.setgroups([])
    os.setgid(nobody.pw_gid)
    os.setuid(nobody.pw_uid)
try:
    DealLog.open(sys.argv[1]).close()
    print("opened")
except StoreError as exc:
    print(exc)
"""


@pytest.mark.parametrize("existing", [False, True], ids=["new log", "existing log"])
def test_a_read_only_folder_is_reported_as_read_only_not_damaged(request, existing):
    if os.geteuid() == 0:
        import pwd

        try:
            pwd.getpwnam("nobody")
        except KeyError:
            pytest.skip("running as root and there is no user 'nobody' to drop to")
    import tempfile

    top = Path(tempfile.mkdtemp(prefix="tarotmate-ro-"))  # reachable by the unprivileged child
    os.chmod(top, 0o755)
    request.addfinalizer(lambda: shutil.rmtree(top, ignore_errors=True))
    folder = top / "state"
    folder.mkdir()
    path = folder / "log.db"
    if existing:
        make_log(path)
    os.chmod(folder, 0o555)
    for p in folder.iterdir():
        os.chmod(p, 0o444)
    before = snapshot(path) if existing else {}
    try:
        result = subprocess.run([sys.executable, "-c", READ_ONLY_CHILD, str(path)], capture_output=True,
                                text=True, env=ENV)
    finally:
        os.chmod(folder, 0o755)
    assert result.returncode == 0, result.stderr
    assert "read-only" in result.stdout and "damaged" not in result.stdout, result.stdout
    assert "nothing was written" in result.stdout
    assert snapshot(path) == before


# ---------------------------------------------------------------- fuzzing the rows

COLUMNS = [("games", "names"), ("games", "options"), ("games", "kind"), ("games", "players"), ("games", "started"),
           ("deals", "setup"), ("deals", "record"), ("deals", "scores"), ("deals", "number"), ("deals", "finished"),
           ("operations", "op"), ("operations", "seq")]

json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)
values = st.one_of(
    st.binary(max_size=40),
    st.text(max_size=40),
    st.integers(-2 ** 63, 2 ** 63 - 1),  # what an SQLite INTEGER holds
    st.floats(allow_nan=True),
    st.none(),
    json_like.map(lambda v: __import__("json").dumps(v, allow_nan=True)),
    st.integers(30, 6000).map(lambda n: "[" * n + "]" * n),
    st.integers(20, 6000).map(lambda n: '{"op":"x","v":' + "7" * n + "}"),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(column=st.sampled_from(COLUMNS), value=values, row=st.integers(1, 2))
def test_fuzzed_rows_give_a_clear_error_or_a_readable_log(tmp_path_factory, column, value, row):
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "log.db"
    shutil.copy(_template(tmp_path_factory), path)
    table, name = column
    key = "rowid"
    conn = sqlite3.connect(path)
    try:
        conn.execute(f"UPDATE {table} SET {name} = ? WHERE {key} = ?", (value, row))
        conn.commit()
    except sqlite3.IntegrityError:  # NOT NULL / UNIQUE: SQLite itself refuses it
        return
    finally:
        conn.close()
    settle(path)
    before = snapshot(path)
    refused = None
    try:
        with DealLog.open(path) as log:
            for game in log.games():  # everything a writer accepted reads back
                for deal in log.deals(game.id):
                    log.operations(deal.id)
                log.totals(game.id)
    except StoreError as exc:
        refused = str(exc)
        assert refused and "Traceback" not in refused
        assert snapshot(path) == before
    result = subprocess.run([sys.executable, "-m", "device.cli", "history", "--db", str(path), "--csv", "-"],
                            capture_output=True, text=True, env=ENV) if row == 1 and name in ("names", "op") else None
    if result is not None:  # history reads what the log reads, and refuses what it refuses, in one line
        assert "Traceback" not in result.stderr, result.stderr
        if refused is None:
            assert result.returncode == 0, result.stderr
        else:
            assert result.returncode == 2, result.stderr
            errors = [x for x in result.stderr.splitlines() if x.startswith("tarotmate history: error: ")]
            assert len(errors) == 1 and str(path) in errors[0], result.stderr


_TEMPLATE = {}


def _template(factory):
    if "path" not in _TEMPLATE:
        path = factory.mktemp("template") / "log.db"
        make_log(path)
        _TEMPLATE["path"] = path
    return _TEMPLATE["path"]


def test_an_unreachable_folder_is_reported_not_a_traceback(tmp_path):
    folder = tmp_path / "closed"
    (folder / "inner").mkdir(parents=True)
    os.chmod(folder, 0o000)
    try:
        result = subprocess.run([sys.executable, "-c", READ_ONLY_CHILD, str(folder / "inner" / "log.db")],
                                capture_output=True, text=True, env=ENV)
    finally:
        os.chmod(folder, 0o755)
    assert result.returncode == 0, result.stderr
    assert "no permission" in result.stdout and "nothing was written" in result.stdout, result.stdout


def test_a_finished_demo_deal_that_no_longer_replays_is_reported_not_a_traceback(tmp_path):
    from device.demo.table import finished_session
    from device.app.registry import game_for

    class Demo:
        label = "demo:french-tarot:4:1"

        @staticmethod
        def rules():
            return game_for("french-tarot")

    path = tmp_path / "demo.db"
    with DealLog.open(path) as log:
        game = log.start_game("french-tarot", NAMES, {}, label=Demo.label)
        deal = log.start_deal(game.id, {"dealer": 0})
        log.append(deal.id, {"op": "bid", "seat": 1, "bid": "pass"})
        log.append(deal.id, {"op": "play", "seat": "x", "card": "ZZ"})
        log.finish_deal(deal.id, {"format": "tarot-deal/1"}, [0, 0, 0, 0])
        log.finish_game(game.id)  # the demo is over: a rerun shows it again
        with pytest.raises(StoreError, match="game 1, deal 1: operation 2") as refused:
            finished_session(log, Demo)
    assert "left untouched" in str(refused.value)


def test_a_new_configuration_does_not_close_a_deal_that_no_longer_replays(tmp_path):
    from device.app.loop import close_other_game

    path = tmp_path / "log.db"
    with DealLog.open(path) as log:
        game = log.start_game("french-tarot", NAMES, {}, label="device")
        deal = log.start_deal(game.id, {"dealer": 0})
        log.append(deal.id, {"op": "play", "seat": 0, "card": "T21"})  # no bidding yet: it does not replay
    settle(path)
    before = snapshot(path)
    with DealLog.open(path) as log:
        with pytest.raises(StoreError, match="game 1, deal 1: operation 1"):
            close_other_game(log, "trivium", ["A", "B", "C"], {}, report=lambda text: None)
    assert snapshot(path) == before

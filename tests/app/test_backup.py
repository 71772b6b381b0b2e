"""``tarotmate backup``: a consistent copy of a live deal log (WAL included),
taken while another process writes it; the copy is one complete file."""

import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from device.storage.deal_log import DealLog, StoreError, backup

ENV = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "SDL_VIDEODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}

WRITER = textwrap.dedent(r"""
    import sys, time
    from device.storage.deal_log import DealLog
    log = DealLog.open(sys.argv[1])
    deal = log.start_deal(log.start_game("french-tarot", ["A", "B", "C", "D"]).id, {"dealer": 0})
    for i in range(51):  # fewer than the WAL holds before SQLite checkpoints it
        log.append(deal.id, {"op": "play", "n": i})
    print("fifty", flush=True)
    time.sleep(600)  # a game in progress: the log stays open, its WAL unmerged
""")


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "device.cli", *args], capture_output=True, text=True, env=ENV,
                          timeout=60)


def test_a_copy_of_a_live_log_holds_what_is_still_in_the_wal(tmp_path):
    """Copying tarotmate.db alone during a game captures nothing (the game is
    in the WAL); the backup holds it, in one file that opens on its own."""
    path = tmp_path / "live.db"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True, env=ENV)
    try:
        assert writer.stdout.readline().strip() == "fifty"
        plain = tmp_path / "plain-copy.db"
        plain.write_bytes(path.read_bytes())  # what a file copy of the database alone gets
        result = _cli("backup", str(tmp_path / "copy.db"), "--db", str(path))
        assert result.returncode == 0, result.stderr
        assert "1 games, 1 deals" in result.stderr
    finally:
        writer.kill()
        writer.wait()
    conn = sqlite3.connect(plain)
    assert conn.execute("SELECT COUNT(*) FROM operations").fetchone()[0] == 0
    conn.close()
    assert not (tmp_path / "copy.db-wal").exists()
    conn = sqlite3.connect(f"{(tmp_path / 'copy.db').as_uri()}?mode=ro", uri=True)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    numbers = [r[0] for r in conn.execute("SELECT json_extract(op, '$.n') FROM operations ORDER BY seq")]
    conn.close()
    assert numbers == list(range(51))
    with DealLog.open(tmp_path / "copy.db") as copy:  # a working deal log
        assert copy.count(copy.open_deal(copy.open_game().id).id) == len(numbers)


def test_backup_refuses_to_overwrite_or_copy_onto_itself(tmp_path):
    path = tmp_path / "log.db"
    DealLog.open(path).close()
    target = tmp_path / "copy.db"
    assert backup(path, target).problem is None
    with pytest.raises(StoreError, match="already exists"):
        backup(path, target)
    assert backup(path, target, overwrite=True).games == 0
    with pytest.raises(StoreError, match="the deal log itself"):
        backup(path, path, overwrite=True)
    with pytest.raises(StoreError, match="nothing to back up"):
        backup(tmp_path / "missing.db", tmp_path / "x.db")
    assert sorted(p.name for p in tmp_path.iterdir() if "backup" in p.name) == []  # no temporary left


def test_a_damaged_log_is_still_copied_with_a_warning(tmp_path):
    path = tmp_path / "log.db"
    with DealLog.open(path) as log:
        log.start_game("french-tarot", ["A", "B", "C", "D"])
    conn = sqlite3.connect(path)
    conn.execute("UPDATE games SET names = '5'")
    conn.commit()
    conn.close()
    result = _cli("backup", str(tmp_path / "copy.db"), "--db", str(path))
    assert result.returncode == 1
    assert "1 games" in result.stderr and "warning" in result.stderr and "game 1" in result.stderr
    assert (tmp_path / "copy.db").exists()


BUSY_WRITER = textwrap.dedent(r"""
    import sys
    from device.storage.deal_log import DealLog
    log = DealLog.open(sys.argv[1])
    deal = log.start_deal(log.start_game("french-tarot", ["A", "B", "C", "D"]).id, {"dealer": 0})
    i = 0
    while True:
        log.append(deal.id, {"op": "play", "n": i, "pad": "x" * 200})
        if i == 300:
            print("busy", flush=True)
        i += 1
""")


def test_backups_taken_while_the_log_is_written_are_each_consistent(tmp_path):
    path = tmp_path / "busy.db"
    writer = subprocess.Popen([sys.executable, "-c", BUSY_WRITER, str(path)], stdout=subprocess.PIPE, text=True,
                              env=ENV)
    try:
        assert writer.stdout.readline().strip() == "busy"
        sizes = []
        for k in range(3):
            copy = tmp_path / f"copy{k}.db"
            assert backup(path, copy).problem is None
            conn = sqlite3.connect(copy)
            numbers = [r[0] for r in conn.execute("SELECT json_extract(op, '$.n') FROM operations ORDER BY seq")]
            conn.close()
            assert numbers == list(range(len(numbers)))
            sizes.append(len(numbers))
    finally:
        writer.kill()
        writer.wait()
    assert sizes[0] > 300 and sizes == sorted(sizes)

"""One writer per deal log: a second process (``run``, ``demo`` or any writer)
is refused with the holder's PID, and writes nothing; readers still read."""

import os
import subprocess
import sys
import textwrap

import pytest

from device.storage.deal_log import DealLog, LogInUse, lock_path

HOLDER = textwrap.dedent(r"""
    import sys, time
    from device.storage.deal_log import DealLog
    log = DealLog.open(sys.argv[1])
    game = log.open_game() or log.start_game("french-tarot", ["A", "B", "C", "D"])
    deal = log.open_deal(game.id) or log.start_deal(game.id, {"dealer": 0})
    log.append(deal.id, {"op": "bid", "seat": 1, "bid": "pass"})
    print("holding", flush=True)
    sys.stdin.readline()   # hold the log until told to go
    log.close()
    print("released", flush=True)
""")

ENV = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "SDL_VIDEODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}


def _files(folder):
    """Every file of the deal log (database, WAL, shared memory) with its bytes."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name.startswith("demo.db")
            and not p.name.endswith(".lock") and not p.name.endswith("-shm")}


@pytest.fixture
def holder(tmp_path):
    """A real process holding the writer lock on tmp_path/demo.db."""
    path = tmp_path / "demo.db"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=ENV)
    assert proc.stdout.readline().strip() == "holding"
    yield proc, path
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def _tarotmate(*args):
    return subprocess.run([sys.executable, "-m", "device.cli", *args], capture_output=True, text=True,
                          env=ENV, timeout=120)


def test_a_second_demo_is_refused_with_the_holders_pid_and_writes_nothing(holder):
    proc, path = holder
    before = _files(path.parent)
    result = _tarotmate("demo", "--out", str(path.parent), "--recogniser", "truth", "--fast",
                        "--display", "none")
    assert result.returncode == 2, result.stderr
    assert f"in use by another Tarotmate process (PID {proc.pid})" in result.stderr
    assert "Traceback" not in result.stderr
    assert _files(path.parent) == before
    assert not (path.parent / "screens").exists()  # not even the demo's screens


def test_a_second_demo_with_fresh_does_not_delete_the_live_log(holder):
    proc, path = holder
    before = _files(path.parent)
    result = _tarotmate("demo", "--out", str(path.parent), "--fresh", "--recogniser", "truth", "--display", "none")
    assert result.returncode == 2 and f"PID {proc.pid}" in result.stderr
    assert _files(path.parent) == before


def test_a_second_run_is_refused_with_the_holders_pid(holder, tmp_path):
    proc, path = holder
    config = tmp_path / "tarotmate.toml"
    config.write_text(f'[camera]\nsource = "simulator"\n[display]\nkind = "dummy"\n[store]\npath = "{path}"\n')
    before = _files(path.parent)
    result = _tarotmate("run", "--config", str(config), "--max-frames", "5")
    assert result.returncode == 2, result.stderr
    assert f"PID {proc.pid}" in result.stderr and "Traceback" not in result.stderr
    assert _files(path.parent) == before


def test_readers_read_while_the_writer_holds_the_log(holder):
    proc, path = holder
    result = _tarotmate("history", "--db", str(path))
    assert result.returncode == 0, result.stderr
    assert "french-tarot" in result.stdout
    with DealLog.open(path, writer=False) as log:
        assert not log.writable
        assert log.operations(log.open_deal(log.open_game().id).id) == [{"op": "bid", "seat": 1, "bid": "pass"}]


def test_the_lock_goes_with_its_holder_even_after_kill_9(holder):
    proc, path = holder
    with pytest.raises(LogInUse) as refused:
        DealLog.open(path)
    assert refused.value.pid == proc.pid
    proc.kill()
    proc.wait()
    with DealLog.open(path) as log:  # no stale lock to clean up
        assert log.writable
        assert lock_path(path).read_text().strip() == str(os.getpid())


def test_released_on_close(holder):
    proc, path = holder
    proc.stdin.write("\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "released"
    with DealLog.open(path) as log:
        assert log.count(log.open_deal(log.open_game().id).id) == 1


def test_one_process_cannot_open_the_same_log_twice_for_writing(tmp_path):
    path = tmp_path / "log.db"
    with DealLog.open(path):
        with pytest.raises(LogInUse, match=f"PID {os.getpid()}"):
            DealLog.open(path)
    DealLog.open(path).close()  # free again once closed

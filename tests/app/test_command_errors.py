"""What a user meets when a command cannot do its work: one line on stderr,
``tarotmate COMMAND: error: ...`` naming the path and why, and the exit status
of the convention (0 done, 1 done in part, 2 nothing done); never a traceback."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys

import cv2
import numpy as np
import pytest

from device.app.loop import EXIT_CAMERA_LOST
from device.cli import EXIT_DONE, EXIT_ERROR, EXIT_INTERRUPTED, EXIT_PARTIAL, main
from device.storage.deal_log import DealLog
from engine.tarot import deal_to_record, random_deal
from tests.conftest import ROOT


def _one_line_error(err: str, command: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith(f"tarotmate {command}: error: ")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def log_db(tmp_path):
    db = tmp_path / "log.db"
    with DealLog.open(db) as log:
        game = log.start_game("french-tarot", ["Ana", "Luis", "Marta", "Pau"])
        deal = log.start_deal(game.id)
        log.finish_deal(deal.id, {"format": "tarot-deal/1"}, [3, -1, -1, -1])
    return db


@pytest.mark.parametrize("where,why", [
    ("/proc/nope/x.csv", "does not exist"),
    ("{tmp}", "is a folder"),
    ("{tmp}/afile/x.csv", "is a file, not a folder"),
])
def test_history_csv_that_cannot_be_written(log_db, tmp_path, capsys, where, why):
    (tmp_path / "afile").write_text("x")
    target = where.format(tmp=tmp_path)
    assert main(["history", "--db", str(log_db), "--csv", target]) == EXIT_ERROR
    captured = capsys.readouterr()
    line = _one_line_error(captured.err, "history")
    assert target in line and why in line
    assert captured.out == ""  # nothing printed before the error


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_history_csv_in_a_read_only_folder(log_db, tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        assert main(["history", "--db", str(log_db), "--csv", str(ro / "x.csv")]) == EXIT_ERROR
        assert "Permission denied" in _one_line_error(capsys.readouterr().err, "history")
    finally:
        ro.chmod(0o700)


def test_watch_a_text_file_named_jpg(tmp_path, capfd):
    fake = tmp_path / "notimage.jpg"
    fake.write_text("this is not a picture\n")
    assert main(["watch", str(fake)]) == EXIT_ERROR
    err = capfd.readouterr().err
    line = _one_line_error(err, "watch")
    assert str(fake) in line and "not a video or an image" in line
    # OpenCV's own warnings are not on the terminal (they go to the log) ...
    others = [x for x in err.splitlines() if x != line and not x.startswith("watch: 0 frames")]
    assert not others, others


def test_watch_a_real_image_still_works(tmp_path, capfd):
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), np.full((120, 160, 3), 40, np.uint8))
    assert main(["watch", str(image)]) == 0
    assert "watch: 1 frames" in capfd.readouterr().err


def test_classify_failures_follow_the_convention(tmp_path, capfd):
    fake = tmp_path / "broken.jpg"
    fake.write_bytes(b"\xff\xd8\xff\xe0" + b"\0" * 64)  # a JPEG header and nothing else
    assert main(["classify", str(fake), str(tmp_path / "missing.png")]) == EXIT_PARTIAL
    err = capfd.readouterr().err
    errors = [x for x in err.splitlines() if x.startswith("tarotmate classify: error: ")]
    assert len(errors) == 2 and "no such file" in errors[1]
    assert "Traceback" not in err and "Corrupt JPEG" not in err and "Premature" not in err


def test_every_error_uses_one_form(capsys, tmp_path):
    assert main(["replay", str(tmp_path / "none.json")]) == EXIT_ERROR
    _one_line_error(capsys.readouterr().err, "replay")
    assert main(["trivium", "check", "ZZ"]) == EXIT_ERROR
    _one_line_error(capsys.readouterr().err, "trivium")


def readme_exit_statuses() -> dict[int, str]:
    """The README's exit-status table: {status: meaning}."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("### Exit status and errors")
    section = readme[start:readme.index("\n## ", start)]
    return {int(code): meaning for code, meaning in re.findall(r"^\| `(\d+)` \| (.+) \|$", section, re.M)}


def help_exit_statuses(capsys, *command: str) -> dict[int, str]:
    """The exit statuses ``tarotmate [COMMAND] --help`` lists: {status: meaning}."""
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    epilog = out[out.index("exit status"):]
    rows = re.findall(r"^  (\d+) +(\S.*(?:\n {7,}\S.*)*)", epilog, re.M)
    return {int(code): " ".join(meaning.split()) for code, meaning in rows}


def test_the_help_and_the_readme_give_one_exit_convention(capsys):
    readme = readme_exit_statuses()
    every = help_exit_statuses(capsys)
    assert set(readme) == set(every) == {EXIT_DONE, EXIT_PARTIAL, EXIT_ERROR, EXIT_CAMERA_LOST, EXIT_INTERRUPTED}
    for status, word in [(EXIT_DONE, "done"), (EXIT_PARTIAL, "done in part"), (EXIT_ERROR, "nothing done"),
                         (EXIT_INTERRUPTED, "interrupted")]:
        assert readme[status].startswith(word) and every[status].startswith(word)
    # 3 is run's alone: the camera given up after camera.give_up_after_s
    for meaning in (readme[EXIT_CAMERA_LOST], every[EXIT_CAMERA_LOST]):
        assert "run" in meaning and "camera" in meaning and "give_up_after_s" in meaning
    run = help_exit_statuses(capsys, "run")
    assert EXIT_CAMERA_LOST == 3 and "give_up_after_s" in run[EXIT_CAMERA_LOST]
    assert "camera" in run[EXIT_ERROR] and EXIT_PARTIAL not in run


def _demo_interrupted(tmp_path) -> tuple[int, str]:
    """``tarotmate demo`` interrupted with Ctrl-C once it has started: (status, stderr)."""
    command = [sys.executable, "-m", "device.cli", "demo", "--fast", "--display", "none", "--recogniser", "truth",
               "--out", str(tmp_path / "demo")]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines = []
    for line in child.stderr:
        lines.append(line)
        if line.startswith("new french-tarot demo"):
            break
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    return child.returncode, "".join(lines) + err


def test_each_status_of_the_table_is_what_a_command_returns(tmp_path, capfd):
    table = readme_exit_statuses()
    assert main(["trivium", "check", "T10", "H05", "EX"]) == EXIT_DONE
    assert table[EXIT_DONE] == "done"
    capfd.readouterr()
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8\xff\xe0" + b"\0" * 64)
    assert main(["classify", str(broken), str(tmp_path / "missing.png")]) == EXIT_PARTIAL
    assert "`classify`" in table[EXIT_PARTIAL]
    capfd.readouterr()
    assert main(["replay", str(tmp_path / "none.json")]) == EXIT_ERROR
    _one_line_error(capfd.readouterr().err, "replay")
    status, err = _demo_interrupted(tmp_path)
    assert status == EXIT_INTERRUPTED, err
    assert err.splitlines()[-1] == "tarotmate demo: interrupted" and "Traceback" not in err
    # EXIT_CAMERA_LOST: tests/app/test_camera_loss.py runs `run` until it gives the camera up


_CTRL_C_IN_EVAL = """
import sys
import device.commands.demo as demo
from device.cli import main

def interrupted_in_eval(args):
    eval("(_ for _ in ()).throw(KeyboardInterrupt)")  # as a Ctrl-C inside collections.namedtuple

demo.run = interrupted_in_eval
sys.exit(main(["demo"]))
"""


def test_ctrl_c_inside_code_run_from_a_string_still_exits_130(tmp_path):
    # CPython marks such a Ctrl-C as never handled and, run with -m, would end the process by SIGINT
    (tmp_path / "ctrl_c_in_eval.py").write_text(_CTRL_C_IN_EVAL)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    child = subprocess.run([sys.executable, "-m", "ctrl_c_in_eval"], capture_output=True, text=True, cwd=ROOT,
                           env=env, timeout=60)
    assert child.returncode == EXIT_INTERRUPTED, child.stderr
    assert child.stderr.splitlines()[-1] == "tarotmate demo: interrupted"


# --- replay reads both formats; one rule for card codes ------------------------

def test_replay_reads_a_trivium_game_record(tmp_path, capsys):
    record = tmp_path / "trivium-game.json"
    assert main(["trivium", "simulate", "--seed", "4", "--record", str(record)]) == 0
    capsys.readouterr()
    assert main(["replay", str(record)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Trivium, 3 players") and "The record replays" in out
    assert main(["replay", str(record), "--json"]) == 0
    replay = json.loads(capsys.readouterr().out)
    saved = json.loads(record.read_text())
    assert replay["format"] == "trivium-replay/1"
    assert replay["scores"] == saved["result"]["scores"] and replay["winner"] == saved["result"]["winner"]


def test_replay_names_both_formats_for_another_one(tmp_path, capsys):
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "chess-game/1"}))
    assert main(["replay", str(other)]) == EXIT_ERROR
    line = _one_line_error(capsys.readouterr().err, "replay")
    assert "tarot-deal/1" in line and "trivium-game/1" in line


def test_card_codes_follow_one_rule_in_replay_and_trivium_check(tmp_path, capsys):
    deal = random_deal(4, 7)
    text = json.dumps(deal_to_record(deal))
    for code in set(c for t in deal.tricks for c in t.cards):
        text = text.replace(f'"{code}"', f'" {code.lower()}"')
    lowered = tmp_path / "lower.json"
    lowered.write_text(text)
    assert main(["replay", str(lowered), "--json"]) == 0
    lower = json.loads(capsys.readouterr().out)
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(deal_to_record(deal)))
    assert main(["replay", str(plain), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == lower  # read the same, written upper-case
    assert main(["trivium", "check", " c10", "h10", "S01 "]) == 0
    assert main(["trivium", "check", "C10", "H10", "S01"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == out[1]


@pytest.mark.parametrize("args,command,why", [
    (["trivium", "simulate", "--record", "/proc/nope/x.json"], "trivium", "cannot create it"),
    (["trivium", "simulate", "--record", "{tmp}"], "trivium", "is a folder, not a file"),
    (["screens", "--out", "{tmp}/afile/x"], "screens", "is a file, not a folder"),
])
def test_other_places_that_cannot_be_written(tmp_path, capsys, args, command, why):
    (tmp_path / "afile").write_text("x")
    args = [a.format(tmp=tmp_path) for a in args]
    assert main(args) == EXIT_ERROR
    line = _one_line_error(capsys.readouterr().err, command)
    assert why in line and args[-1] in line

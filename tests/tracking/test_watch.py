"""``tarotmate watch``: events as lines, one JSON list with --json, clear errors."""

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from device.cli import main
from vision.namer import MODEL_FILE, models_dir


def test_watch_sim_json_prints_only_the_event_list(capsys):
    assert main(["watch", "sim", "--truth", "--json", "--seed", "3"]) == 0
    out, err = capsys.readouterr()
    events = json.loads(out)
    assert [e["type"] for e in events] == ["appeared"] * 4 + ["cleared"]
    for e in events[:4]:
        assert e["zone"] == "middle" and len(e["card"]) in (2, 3) and len(e["corners"]) == 4
        assert isinstance(e["frame"], int)
    assert events[-1]["card"] is None
    assert "appeared" in err and "frames/s" in err  # readable lines and progress go to stderr


def test_watch_prints_one_line_per_event(capsys):
    assert main(["watch", "sim", "--truth", "--players", "5", "--seed", "1"]) == 0
    out, _ = capsys.readouterr()
    lines = out.strip().splitlines()
    assert len(lines) == 6
    assert all("appeared" in line and " in middle" in line for line in lines[:5])
    assert "cleared" in lines[5]


def _still_images(folder):
    for i in range(5):
        cv2.imwrite(str(folder / f"{i:03d}.png"), np.full((90, 160, 3), 70, np.uint8))


@pytest.mark.skipif(not (models_dir() / MODEL_FILE).is_file(), reason="needs the card model (models/cards.onnx)")
def test_watch_folder_of_still_images_gives_no_events(tmp_path, capsys):
    _still_images(tmp_path)
    assert main(["watch", str(tmp_path), "--json"]) == 0
    out, _ = capsys.readouterr()
    assert json.loads(out) == []


def test_watch_without_a_card_model_is_one_clear_error(tmp_path, capsys, monkeypatch):
    import vision.namer

    _still_images(tmp_path)
    empty = tmp_path / "no-models"
    empty.mkdir()
    monkeypatch.setattr(vision.namer, "models_dir", lambda: empty)
    assert main(["watch", str(tmp_path), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert f"tarotmate watch: error: no card model in {empty}" in err


def test_missing_source_and_bad_zone_file_are_clean_errors(tmp_path):
    cmd = [sys.executable, "-m", "device.cli", "watch"]
    r = subprocess.run(cmd + [str(tmp_path / "nope.mp4")], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "tarotmate watch: error: no such file or folder" in r.stderr
    bad = tmp_path / "zones.toml"
    bad.write_text("[[zone]]\nname = 'x'\n")
    r = subprocess.run(cmd + ["sim", "--zones", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "exactly one of 'rect' or 'polygon'" in r.stderr
    r = subprocess.run(cmd + [str(tmp_path), "--truth"], capture_output=True, text=True)
    assert r.returncode == 2 and "--truth works only with the simulated table" in r.stderr

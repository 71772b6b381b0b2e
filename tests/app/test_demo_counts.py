"""The demo's summary counts are what happened at the table: every card the
camera had to see is read right, answered on the OLED, or entered by hand,
each counted here from the deal log and from what reached the table app (the
camera's events, the answers, the menu's cards), not from the demo's own
figures, over the whole deal even after a resume; the GIF's count is its
frames; --out errors are one line."""

from __future__ import annotations

import re
import time

import pytest

from device.cli import EXIT_ERROR, main
from device.demo.table import STATS_NAME, DemoSettings, run_demo
from engine.errors import TarotmateError
from vision.namer import MODEL_FILE, models_dir

from .demo_witness import Witness

QUICK = dict(fast=True, display="none", recogniser="truth", frame_width=640, speed=3.0)
LINE = re.compile(r"(\d+) cards = (\d+) read right at once \+ (\d+) uncertain, answered on the OLED "
                  r"\+ (\d+) entered by hand")


FIXED = re.compile(r"\+ (\d+) fixed where they lay")


def _fixed(out) -> int:
    """The wrong cards the player fixed where they lay, as the camera line says."""
    text = (out / "scores.txt").read_text()
    line = next(x for x in text.splitlines() if x.startswith("camera: "))
    m = FIXED.search(line)
    return int(m.group(1)) if m else 0


def _camera_line(out):
    text = (out / "scores.txt").read_text()
    line = next(x for x in text.splitlines() if x.startswith("camera: "))
    total, right, uncertain, by_hand = map(int, LINE.search(line).groups())
    return total, right, uncertain, by_hand


def test_tarot_cards_add_up_to_the_deal(tmp_path, monkeypatch):
    # every fifth card the camera names is lost on its way: questions and hand entries follow
    witness = Witness(monkeypatch, lose_every=5)
    result = run_demo(DemoSettings(seed=3, out=tmp_path, **QUICK), report=lambda t: None)
    total, right, uncertain, by_hand = _camera_line(tmp_path)
    record = result["record"]
    chien = 6 if record["contract"] in ("prise", "garde") else 0
    sources = witness.count(tmp_path)
    assert total == 72 + chien == sum(sources.values())
    assert (right, uncertain, by_hand) == (sources["camera"], sources["oled"], sources["hand"])
    assert _fixed(tmp_path) == sources.get("fix", 0)
    # read, answered, and entered by hand or fixed where it lay (a lost card's successor put to its seat)
    assert {"camera", "oled"} <= set(sources) <= {"camera", "oled", "hand", "fix"}
    # each lost card was asked for on the OLED (seen missing when the next lay on a later player's
    # side, or when the trick was swept), entered by hand or fixed where it lay
    assert sources["oled"] + sources["hand"] + sources["fix"] >= witness.lost // witness.lose_every
    assert right > 0 and sum(witness.appeared.values()) >= right  # each read named by an event
    assert result["stats"].seen_right <= right  # measured at once: never more than the remainder


def test_trivium_cards_add_up(tmp_path, monkeypatch):
    witness = Witness(monkeypatch)
    run_demo(DemoSettings(game="trivium", seed=2, out=tmp_path, **QUICK), report=lambda t: None)
    total, right, uncertain, by_hand = _camera_line(tmp_path)
    sources = witness.count(tmp_path)
    assert total == sum(sources.values()) > 0
    assert (right, uncertain, by_hand) == (sources["camera"], sources["oled"], sources["hand"])


@pytest.mark.skipif(not (models_dir() / MODEL_FILE).is_file(), reason="needs the card model (models/cards.onnx)")
def test_the_counts_hold_on_the_card_model(tmp_path, monkeypatch):
    """The shipped model, not the simulator's truth, names the cards of one short game: its
    misreads, questions and hand entries are counted as they happened."""
    witness = Witness(monkeypatch)
    settings = DemoSettings(game="trivium", seed=5, out=tmp_path, conditions="hard", **{**QUICK, "recogniser": "model"})
    result = run_demo(settings, report=lambda t: None)
    assert "ONNX model" in result["stats"].recognition
    total, right, uncertain, by_hand = _camera_line(tmp_path)
    sources = witness.count(tmp_path)
    assert total == sum(sources.values()) > 0
    assert (right, uncertain, by_hand) == (sources["camera"], sources["oled"], sources["hand"])


def test_after_a_resume_the_counts_are_the_whole_deal(tmp_path, monkeypatch):
    # a card lost now and then, so that all three ways are counted on both sides of the stop
    Witness(monkeypatch, lose_every=5)
    whole = tmp_path / "whole"
    start = time.monotonic()
    full = run_demo(DemoSettings(seed=3, out=whole, **QUICK), report=lambda t: None)
    took = time.monotonic() - start
    monkeypatch.undo()
    witness = Witness(monkeypatch, lose_every=5)
    part = tmp_path / "part"
    with pytest.raises(TarotmateError, match="ran out of time"):  # stopped about half-way, whatever the machine
        run_demo(DemoSettings(seed=3, out=part, max_seconds=took / 2, **QUICK), report=lambda t: None)
    assert (part / STATS_NAME).exists()
    stopped = witness.count(part)
    resumed = run_demo(DemoSettings(seed=3, out=part, **QUICK), report=lambda t: None)
    assert resumed["scores"] == full["scores"]
    total, right, uncertain, by_hand = _camera_line(part)
    sources = witness.count(part)
    assert 0 < sum(stopped.values()) < total == sum(sources.values())
    assert (right, uncertain, by_hand) == (sources["camera"], sources["oled"], sources["hand"])
    assert _fixed(part) == sources.get("fix", 0)
    assert min(sources["camera"], sources["oled"]) > 0  # read, and answered (the lost cards asked for)
    assert _camera_line(part) == _camera_line(whole)  # the same scenes, the same cards lost
    assert resumed["stats"].frames >= full["stats"].frames * 0.9  # both parts counted, not only the resumed one


def test_the_gif_count_in_the_report_is_its_frames(tmp_path):
    from PIL import Image

    lines = []
    run_demo(DemoSettings(seed=3, out=tmp_path, **QUICK), report=lines.append)
    said = next(int(m.group(1)) for x in lines if (m := re.search(r"demo.gif \((\d+) screens\)", x)))
    with Image.open(tmp_path / "demo.gif") as gif:
        assert said == gif.n_frames


@pytest.mark.parametrize("where,why", [
    ("{tmp}/afile/out", "is a file, not a folder"),
    ("{tmp}/afile", "is a file, not a folder"),
    ("/proc/tarotmate/out", "cannot create it"),
])
def test_demo_out_that_cannot_be_used(tmp_path, capsys, where, why):
    (tmp_path / "afile").write_text("x")
    target = where.format(tmp=tmp_path)
    assert main(["demo", "--out", target, "--fast", "--display", "none", "--recogniser", "truth"]) == EXIT_ERROR
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.startswith("tarotmate demo: error: ")]
    assert len(lines) == 1 and "Traceback" not in err
    assert target in lines[0] and why in lines[0]


@pytest.mark.parametrize("seed", [1, 2])
def test_trivium_a_tercia_seen_short_is_answered_on_the_oled(tmp_path, monkeypatch, seed):
    """Cards of tercias lost on their way: the player plays on, the table asks for the missing
    card when the next seat discards, and the counts still add up to the log."""
    witness = Witness(monkeypatch, lose_every=3)
    lines = []
    run_demo(DemoSettings(game="trivium", seed=seed, out=tmp_path, **QUICK), report=lines.append)
    total, right, uncertain, by_hand = _camera_line(tmp_path)
    sources = witness.count(tmp_path)
    assert total == sum(sources.values()) > 0
    assert (right, uncertain, by_hand) == (sources["camera"], sources["oled"], sources["hand"])
    assert any("the table asks for the rest" in line for line in lines)
    assert uncertain > 0

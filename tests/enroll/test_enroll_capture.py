"""Guided enrollment from camera frames: the Capturer and the terminal driver."""

from __future__ import annotations

import cv2
import numpy as np

from device.commands.enroll import guide
from device.enroll.flow import CAPTURED, CONFIRM, DONE, IDLE, MOVING, NO_CARD, REMOVE, WAITING, Capturer, EnrollFlow
from device.cli import main
from vision import enroll
from vision.deck_profiles import load_profile
from vision.sources import Frame
from vision.synth import builtin_faces, card_quad, paste

ORDER = ("T01", "HK", "EX")
FACES = {f.code: f for f in builtin_faces() if f.code in ORDER}


def table(code: str | None = None, dx: float = 0.0) -> np.ndarray:
    """A 640x360 frame of green felt with card ``code`` lying on it (shifted by ``dx`` pixels)."""
    image = np.full((360, 640, 3), (40, 90, 30), np.uint8)
    if code:
        paste(image, FACES[code], card_quad((320 + dx, 180), 280, 0.15, 800 / 440))
    return image


def session(codes_per_frame: list[str | None], step_s: float = 0.2) -> list[Frame]:
    return [Frame(table(code), i * step_s, i) for i, code in enumerate(codes_per_frame)]


def test_a_still_card_is_captured_at_intervals_and_the_previous_card_must_go(embedder):
    flow = EnrollFlow("deck", embedder.model_id, views_needed=8, order=ORDER)
    capturer = Capturer(flow, embedder, views_per_capture=4, interval_s=0.3)
    assert capturer.offer(table(), 0.0) == NO_CARD
    assert capturer.offer(table("T01"), 0.1) == MOVING  # first sight: is it lying still?
    assert capturer.offer(table("T01", dx=25), 0.2) == MOVING  # it moved
    assert capturer.offer(table("T01", dx=25), 0.3) == CAPTURED
    assert capturer.offer(table("T01", dx=25), 0.4) == WAITING
    assert capturer.offer(table("T01", dx=26), 0.7) == CAPTURED
    assert flow.step == CONFIRM and flow.prompt().views == 8
    assert capturer.offer(table("T01"), 0.8) == IDLE
    flow.confirm()
    assert capturer.offer(table("T01"), 0.9) == REMOVE  # still T01 under the camera
    assert capturer.offer(table(), 1.0) == NO_CARD
    assert capturer.offer(table("HK"), 1.1) == MOVING
    assert capturer.offer(table("HK"), 1.2) == CAPTURED
    assert flow.prompt().card == "HK" and flow.prompt().views == 4


def test_guided_session_enrolls_every_card_from_frames(embedder):
    flow = EnrollFlow("deck", embedder.model_id, views_needed=4, order=ORDER)
    capturer = Capturer(flow, embedder, views_per_capture=2, interval_s=0.3)
    frames = session(["T01"] * 4 + [None] + ["HK"] * 4 + [None] + ["EX"] * 4)
    lines, questions = [], []

    def ask(question):
        questions.append(question)
        return ""

    done = guide(flow, capturer, frames, ask, lambda: None, lines.append, str.lower)
    assert done and flow.step == DONE
    assert sorted(flow.enrolled) == sorted(ORDER)
    assert lines[0] == "[1/3] show: t01 (T01)" and "[3/3] show: ex (EX)" in lines
    assert len(questions) == 3 and questions[0].startswith("  keep t01?")


def test_guided_session_answers_redo_skip_and_quit(embedder):
    flow = EnrollFlow("deck", embedder.model_id, views_needed=2, order=ORDER)
    capturer = Capturer(flow, embedder, views_per_capture=2, interval_s=0.3)
    answers = iter(["r", "", "s", "q"])
    frames = session(["T01"] * 4 + [None] + ["HK"] * 3 + [None] + ["EX"] * 3)
    done = guide(flow, capturer, frames, lambda q: next(answers), lambda: None, lambda s: None, str)
    assert not done
    assert list(flow.enrolled) == ["T01"] and flow.skipped == ("HK",) and flow.prompt().card == "EX"


def test_a_card_can_be_skipped_while_capturing(embedder):
    flow = EnrollFlow("deck", embedder.model_id, views_needed=2, order=ORDER)
    capturer = Capturer(flow, embedder, views_per_capture=2)
    typed = iter(["s\n", None, None, None])
    frames = session([None, None, "HK", "HK"])
    guide(flow, capturer, frames, lambda q: "", lambda: next(typed), lambda s: None, str, auto=True)
    assert flow.skipped == ("T01",) and list(flow.enrolled) == ["HK"]


def test_enroll_camera_command_with_an_image_folder(tmp_path, monkeypatch, embedder, capsys):
    monkeypatch.setenv("TAROTMATE_DATA", str(tmp_path / "data"))
    monkeypatch.setattr(enroll, "default_embedder", lambda: embedder)
    frames = tmp_path / "frames"
    frames.mkdir()
    sequence = ["T01"] * 3 + [None] + ["HK"] * 3 + [None]
    for i, code in enumerate(sequence):
        cv2.imwrite(str(frames / f"{i:03d}.png"), table(code))
    args = ["enroll", "tabled", "--camera", str(frames), "--cards", "t01,HK,EX", "--auto", "--views", "4",
            "--strategy", "orientation"]
    assert main(args) == 1  # the frames end before EX was shown
    err = capsys.readouterr().err
    assert "show: King of Hearts (HK)" in err and "stopped at EX: progress saved" in err
    for i in range(3):
        cv2.imwrite(str(frames / f"{i:03d}.png"), table("EX"))
    for i in range(3, len(sequence)):
        (frames / f"{i:03d}.png").unlink()
    assert main(args) == 0  # resumes at EX
    out, err = capsys.readouterr()
    assert "resuming deck tabled: 2 cards enrolled" in err
    assert "deck tabled: 3 of 78 cards enrolled (4 views each)" in out
    assert load_profile("tabled").cards == ("T01", "EX", "HK")
    assert not (tmp_path / "data" / "decks" / ".progress" / "tabled.npz").exists()

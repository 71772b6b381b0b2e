"""Guided enrollment on the device: the OLED screens, the buttons on gpiozero's mock pins, camera frames."""

from __future__ import annotations

import time

import cv2
import numpy as np
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from device.hardware.outputs import Outputs
from device.hardware.buttons import ButtonPanel
from device.cli import main
from device.config import config_from_dict
from device.hardware.display import MemoryDisplay
from device.enroll.on_device import EnrollDevice, enroll_with_display
from device.enroll.flow import Capturer, EnrollFlow, ProgressFile
from device.hardware.from_config import ButtonEvents
from device.screens.views import EnrollCardView, EnrollConfirmView, EnrollDoneView, EnrollReviewView
from engine.cards import CODES
from vision import enroll
from vision.sources import Frame
from vision.synth import builtin_faces, card_quad, paste

PINS = {"up": 5, "down": 6, "ok": 13, "back": 19}
HOLD = 0.25
ORDER = ("T01", "HK", "EX")
FACES = {f.code: f for f in builtin_faces() if f.code in ORDER}
CONFIG = config_from_dict({"display": {"kind": "dummy"}, "ui": {"buzzer": False, "language": "fr"}})


def table(code: str | None = None) -> np.ndarray:
    """A 640x360 frame of green felt with card ``code`` lying on it."""
    image = np.full((360, 640, 3), (40, 90, 30), np.uint8)
    if code:
        paste(image, FACES[code], card_quad((320, 180), 280, 0.15, 800 / 440))
    return image


@pytest.fixture
def factory():
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()


@pytest.fixture
def buttons(factory):
    return ButtonEvents(ButtonPanel(PINS, hold_time=HOLD, debounce_ms=10))


def press(factory, name: str) -> None:
    """A short press, or a long one for a name ending in "!"."""
    pin = factory.pin(PINS[name.rstrip("!")])
    pin.drive_low()
    time.sleep(HOLD * 1.6 if name.endswith("!") else 0.03)
    pin.drive_high()
    time.sleep(0.03)


def camera(factory, codes: list[str | None], presses: dict[int, tuple[str, ...]], step_s: float = 0.2):
    """Frames of the table showing ``codes[i]``; the buttons ``presses[i]`` are pressed before frame ``i``."""
    for i, code in enumerate(codes):
        for name in presses.get(i, ()):
            press(factory, name)
        yield Frame(table(code), i * step_s, i)


def run(factory, buttons, embedder, target, codes, presses, order=ORDER):
    display = MemoryDisplay()
    result = enroll_with_display(CONFIG, "tabled", "test", target, embedder=embedder, order=order, views=8,
                                 strategy="orientation", outputs=Outputs([display]), buttons=buttons,
                                 source=camera(factory, codes, presses))
    return result, display


def card_views(display_history, code):
    return [v for v in display_history if isinstance(v, EnrollCardView) and v.card == code]


def test_buttons_keep_redo_and_skip_cards_and_the_profile_is_saved(factory, buttons, embedder, tmp_path,
                                                                   monkeypatch):
    shown = []
    monkeypatch.setattr(EnrollDevice, "show", _recording_show(shown))
    codes = [None] + ["T01"] * 8 + ["T01", None] + ["HK"] * 4 + [None, None]
    presses = {5: ("back",), 9: ("ok",), 15: ("ok",), 16: ("ok!",)}  # redo T01, keep it, keep HK, skip EX
    result, display = run(factory, buttons, embedder, tmp_path / "decks", codes, presses)

    assert result.finished
    assert result.profile.cards == ("T01", "HK") and result.profile.missing == tuple(c for c in CODES if c != "T01"
                                                                                     and c != "HK")
    assert (tmp_path / "decks" / "tabled.json").exists() and not result.progress.exists()
    # what the OLED showed, in order
    t01 = card_views(shown, "T01")
    assert t01[0] == EnrollCardView("T01", 1, 3, "waiting", 0, 2)
    assert EnrollCardView("T01", 1, 3, "moving", 0, 2) in t01
    assert EnrollCardView("T01", 1, 3, "captured", 1, 2) in t01
    assert shown.count(EnrollConfirmView("T01", 1, 3)) == 2  # captured twice: redone once
    assert EnrollCardView("HK", 2, 3, "remove", 0, 2) in shown  # T01 still on the table after it was kept
    assert EnrollConfirmView("HK", 2, 3) in shown
    assert EnrollCardView("EX", 3, 3, "waiting", 0, 2) in shown
    assert shown[-2:] == [EnrollDoneView("tabled", 2, 1, 3, 0, "building"), EnrollDoneView("tabled", 2, 1, 3, 0, "saved")]
    assert len(display.frames) == len(shown)  # one OLED frame per change of screen, none repeated
    assert all(a != b for a, b in zip(shown, shown[1:]))


def _recording_show(shown):
    original = EnrollDevice.show

    def show(self, view):
        if view != self.shown:
            shown.append(view)
        original(self, view)

    return show


def test_a_long_back_stops_and_the_same_enrollment_resumes(factory, embedder, tmp_path, monkeypatch):
    target = tmp_path / "decks"
    codes = [None] + ["T01"] * 4 + [None] + ["HK"] * 2
    with ButtonPanel(PINS, hold_time=HOLD, debounce_ms=10) as panel:
        result, display = run(factory, ButtonEvents(panel), embedder, target, codes, {5: ("ok",), 7: ("back!",)})
    assert not result.finished and result.progress.exists()
    assert list(result.flow.enrolled) == ["T01"]
    last = display.image
    from device.screens import render

    assert last.tobytes() == render(EnrollDoneView("tabled", 1, 0, 3, 0, "stopped"), "fr", "french").tobytes()

    shown = []
    monkeypatch.setattr(EnrollDevice, "show", _recording_show(shown))
    codes = ["HK"] * 4 + [None] + ["EX"] * 4 + [None]
    with ButtonPanel(PINS, hold_time=HOLD, debounce_ms=10) as panel:
        result, _ = run(factory, ButtonEvents(panel), embedder, target, codes, {4: ("ok",), 9: ("ok",)})
    assert shown[0] == EnrollCardView("HK", 2, 3, "waiting", 0, 2)  # resumed at the second card
    assert result.finished and result.profile.cards == ("T01", "EX", "HK")
    assert not ProgressFile.for_deck("tabled", target).exists()


def test_up_shows_the_previous_card_again(factory, buttons, embedder, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(EnrollDevice, "show", _recording_show(shown))
    codes = ["T01"] * 4 + [None] + ["HK"] * 2 + [None] + ["T01"] * 4 + [None] + ["HK"] * 4 + [None]
    presses = {0: ("up",), 4: ("ok",), 7: ("up",), 12: ("ok",), 17: ("ok",)}  # UP on the first card: refused
    result, _ = run(factory, buttons, embedder, tmp_path, codes, presses, order=("T01", "HK"))
    assert result.finished and result.profile.cards == ("T01", "HK")
    first_hk = shown.index(EnrollCardView("HK", 2, 2, "waiting", 0, 2))
    assert EnrollCardView("T01", 1, 2, "waiting", 0, 2) in shown[first_hk:]  # T01 shown again after HK
    assert shown.count(EnrollConfirmView("T01", 1, 2)) == 2


def test_auto_keeps_every_card_without_buttons(embedder):
    flow = EnrollFlow("deck", embedder.model_id, views_needed=8, order=("T01", "HK"))
    device = EnrollDevice(flow, Capturer(flow, embedder), Outputs([MemoryDisplay()]), _Queue([]), auto=True)
    frames = (Frame(table(code), i * 0.2, i) for i, code in enumerate(["T01"] * 4 + [None] + ["HK"] * 4))
    assert device.run(frames)
    assert sorted(flow.enrolled) == ["HK", "T01"]


class _Queue:
    def __init__(self, events):
        self.events = list(events)

    def drain(self):
        events, self.events = self.events, []
        return events

    def close(self):
        pass


def views_of(code: str, n: int = 2, dim: int = 16) -> np.ndarray:
    """n unit embeddings near a direction that belongs to ``code`` alone."""
    rows = np.random.default_rng(CODES.index(code)).normal(size=dim) + 0.05 * np.random.default_rng(n).normal(
        size=(n, dim))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_review_of_cards_too_alike_with_the_buttons(embedder):
    order = ("T01", "T02", "EX", "HK", "S01")
    flow = EnrollFlow("deck", embedder.model_id, views_needed=2, order=order)
    outputs = Outputs([MemoryDisplay()])
    device = EnrollDevice(flow, Capturer(flow, embedder), outputs, _Queue([]))

    def show(code):
        flow.add_views(views_of(code))
        device.on_button(("ok", "press"))

    for _ in order:  # the player showed T01 five times: ten pairs too alike
        show("T01")
    first = device.view()
    pair = flow.prompt().pair
    assert first == EnrollReviewView(pair.first, pair.second, pair.similarity)
    assert first.similarity > 0.95
    device.refresh()
    device.on_button(("ok", "press"))  # keep this pair
    second = device.view()
    assert isinstance(second, EnrollReviewView) and second != first
    device.on_button(("back", "press"))  # show both cards of the second pair again
    assert device.view() == EnrollCardView(second.first, 4, 5, "waiting", 0, 1)
    show(second.first)
    show(second.second)
    assert isinstance(device.view(), EnrollReviewView)  # the three other cards are still alike
    device.on_button(("ok", "long"))  # keep every remaining pair as it is
    assert device.view() == EnrollDoneView("deck", 5, 0, 5, 0, "building")
    device.refresh()
    assert len(outputs.displays[0].frames) == 2


def test_enroll_command_with_an_emulated_display(tmp_path, monkeypatch, embedder, capsys):
    monkeypatch.setenv("TAROTMATE_DATA", str(tmp_path / "data"))
    monkeypatch.setattr(enroll, "default_embedder", lambda: embedder)
    config = tmp_path / "tarotmate.toml"
    config.write_text('[ui]\nlanguage = "es"\nbuzzer = false\n')
    frames = tmp_path / "frames"
    frames.mkdir()
    for i, code in enumerate(["T01"] * 3 + [None] + ["HK"] * 3 + [None]):
        cv2.imwrite(str(frames / f"{i:03d}.png"), table(code))
    out = tmp_path / "oled"
    try:
        code = main(["enroll", "tabled", "--camera", str(frames), "--display", "capture", "--display-out", str(out),
                     "--config", str(config), "--cards", "T01,HK", "--auto", "--views", "4",
                     "--strategy", "orientation"])
    finally:
        Device.pin_factory.reset()
    assert code == 0
    assert "deck tabled: 2 of 78 cards enrolled (4 views each)" in capsys.readouterr().out
    images = sorted(out.glob("frame_*[0-9].png"))
    assert len(images) > 5 and (out / "frame_0001@4x.png").exists()
    from PIL import Image

    from device.screens import render

    last = Image.open(images[-1])
    assert last.tobytes() == render(EnrollDoneView("tabled", 2, 0, 2, 0, "saved"), "es", "tarot").convert(
        last.mode).tobytes()


def test_display_goes_with_camera(tmp_path, capsys):
    assert main(["enroll", "x", "--from-dir", str(tmp_path), "--display", "dummy"]) == 2
    assert "--display goes with --camera" in capsys.readouterr().err

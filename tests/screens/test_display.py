"""Display adapters: memory, PNG capture, GIF, the real luma driver without hardware."""

from __future__ import annotations

import logging

import pytest
from PIL import Image

from device.hardware.display import open_display
from device.screens import render
from device.screens.examples import examples
from engine.errors import TarotmateError


@pytest.fixture(scope="module")
def frames():
    ex = examples("en")
    return [render(ex["target"]), render(ex["trick"]), render(ex["scores"])]


def test_dummy_keeps_the_frames(frames):
    display = open_display("dummy")
    for frame in frames:
        assert display.show(frame)
    assert len(display.frames) == 3 and display.image.tobytes() == frames[-1].tobytes()


def test_capture_writes_one_png_per_frame_and_a_scaled_copy(tmp_path, frames):
    display = open_display("capture", out=tmp_path, scale=4)
    for frame in frames[:2]:
        display.show(frame)
    display.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "frame_0001.png", "frame_0001@4x.png", "frame_0002.png", "frame_0002@4x.png"]
    assert Image.open(tmp_path / "frame_0002.png").tobytes() == frames[1].tobytes()
    assert Image.open(tmp_path / "frame_0001@4x.png").size == (512, 256)


def test_gif_is_written_on_close(tmp_path, frames):
    out = tmp_path / "deal.gif"
    with open_display("gif", out=out, scale=2) as display:
        for frame in frames:
            display.show(frame)
        assert not out.exists()
    gif = Image.open(out)
    assert gif.size == (256, 128) and gif.n_frames == 3


@pytest.mark.parametrize("kind", ["ssd1306", "sh1106"])
def test_real_driver_code_runs_on_a_noop_interface(kind, frames):
    from luma.core.interface.serial import noop

    display = open_display(kind, serial=noop(), rotate=180)
    assert display.show(frames[0]) and display.shown == 1
    display.close()


def test_a_display_failing_during_show_is_reported_once_and_recovers(caplog, frames):
    display = open_display("dummy")
    calls = {"n": 0}
    real_show = display._show

    def flaky(image):
        calls["n"] += 1
        if 2 <= calls["n"] <= 4:
            raise OSError(121, "Remote I/O error")
        real_show(image)

    display._show = flaky
    with caplog.at_level(logging.WARNING, logger="tarotmate.display"):
        results = [display.show(frames[0]) for _ in range(5)]
    assert results == [True, False, False, False, True]
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and "Remote I/O error" in errors[0].getMessage()
    assert any("again" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert len(display.frames) == 2


def test_missing_i2c_device_is_a_clear_error():
    with pytest.raises(TarotmateError, match="I2C bus 7 at address 0x3d"):
        open_display("ssd1306", i2c_port=7, i2c_address=0x3D)


def test_bad_settings_are_refused(frames):
    with pytest.raises(TarotmateError, match="unknown display kind"):
        open_display("crt")
    with pytest.raises(TarotmateError, match="rotation"):
        open_display("dummy", rotate=90)
    with pytest.raises(ValueError):
        open_display("dummy").show(Image.new("1", (64, 32)))


def test_pygame_window_shows_frames_headless(frames):
    pytest.importorskip("pygame")
    display = open_display("pygame", scale=2)  # SDL_VIDEODRIVER=dummy (tests/conftest.py)
    try:
        assert display.show(frames[0]) and display.show(frames[1])
    finally:
        display.close()

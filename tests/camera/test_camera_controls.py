"""The Pi camera set up for a table, against a fake picamera2 that records the controls set."""

from __future__ import annotations

import pytest

from device.config import config_from_dict, ConfigError
from device.hardware.from_config import open_frame_source
from tests.camera.fake_picamera2 import install
from vision.camera_controls import CameraSetup, locked_exposure


def open_camera(monkeypatch, camera: dict | None = None, report=None, **fake):
    cls = install(monkeypatch)
    for name, value in fake.items():
        monkeypatch.setattr(cls, name, value)
    config = config_from_dict({"camera": {"source": "picamera2", "fps": 10, **(camera or {})}})
    source = open_frame_source(config, report=report)
    return source, cls.instances[-1]


def test_defaults_focus_once_then_hold_the_lens_and_lock_exposure_and_white_balance(monkeypatch):
    slept = []
    monkeypatch.setattr("vision.camera_controls.time.sleep", slept.append)
    lines = []
    source, cam = open_camera(monkeypatch, report=lines.append)
    assert cam.configured["main"] == {"size": (1280, 720), "format": "RGB888"}
    assert cam.configured["controls"] == {"FrameDurationLimits": (100_000, 100_000)}
    names = [c[0] for c in cam.calls]
    assert names.index("start") < names.index("autofocus_cycle") < names.index("set_controls")
    focus, lock = cam.set
    assert focus == {"AfMode": 0, "LensPosition": 1.62}  # Manual, where the cycle ended
    # 33 ms at gain 2 settled; capped at 10 ms, the gain takes up the rest (2 x 3.3 = 6.6)
    assert lock == {"AeEnable": False, "ExposureTime": 10_000, "AnalogueGain": 6.6,
                    "AwbEnable": False, "ColourGains": (1.8, 1.5)}
    assert slept == [1.0]
    assert source.controls["AfMode"] == "Manual" and source.controls["ExposureTime"] == 10_000
    assert source.controls["FrameDurationLimits"] == [100_000, 100_000]
    assert any(line.startswith("camera controls: ") and "AfMode=Manual" in line for line in lines)
    frame = next(iter(source))
    assert frame.image.shape == (720, 1280, 3)


def test_failed_autofocus_falls_back_to_the_configured_distance(monkeypatch):
    monkeypatch.setattr("vision.camera_controls.time.sleep", lambda s: None)
    lines = []
    source, cam = open_camera(monkeypatch, {"lens_position": 1.25}, report=lines.append, focuses=False)
    assert cam.set[0] == {"AfMode": 0, "LensPosition": 1.25}
    assert any("autofocus did not settle" in line for line in lines)


def test_fixed_and_continuous_focus_and_automatic_exposure(monkeypatch):
    monkeypatch.setattr("vision.camera_controls.time.sleep", lambda s: pytest.fail("auto exposure does not wait"))
    source, cam = open_camera(monkeypatch, {"focus": "fixed", "lens_position": 1.67, "exposure": "auto"})
    assert ("autofocus_cycle",) not in cam.calls
    assert cam.set == [{"AfMode": 0, "LensPosition": 1.67}]
    assert cam.configured["controls"]["AeExposureMode"] == 1  # Short: the exposure stays short
    source, cam = open_camera(monkeypatch, {"focus": "continuous", "exposure": "auto"})
    assert cam.set == [{"AfMode": 2}]


def test_a_camera_without_autofocus_gets_no_focus_controls(monkeypatch):
    monkeypatch.setattr("vision.camera_controls.time.sleep", lambda s: None)
    source, cam = open_camera(monkeypatch, has_autofocus=False)
    assert len(cam.set) == 1 and "AfMode" not in cam.set[0] and cam.set[0]["AeEnable"] is False


def test_lock_keeps_a_short_exposure_and_never_passes_the_gain_cap():
    setup = CameraSetup(max_exposure_us=10_000, max_gain=8.0)
    assert locked_exposure({"ExposureTime": 4000, "AnalogueGain": 1.5}, setup, 100_000) == {
        "AeEnable": False, "ExposureTime": 4000, "AnalogueGain": 1.5}
    dark = locked_exposure({"ExposureTime": 66_000, "AnalogueGain": 4.0}, setup, 100_000)
    assert dark["ExposureTime"] == 10_000 and dark["AnalogueGain"] == 8.0
    assert locked_exposure({"ExposureTime": 50_000, "AnalogueGain": 1.0}, CameraSetup(max_exposure_us=90_000), 33_333)["ExposureTime"] == 33_333


def test_camera_keys_are_validated():
    with pytest.raises(ConfigError, match="camera.focus: expected one of once, fixed, continuous"):
        config_from_dict({"camera": {"focus": "sometimes"}})
    with pytest.raises(ConfigError, match="camera.max_exposure_ms"):
        config_from_dict({"camera": {"max_exposure_ms": 0.1}})
    assert CameraSetup.from_config(config_from_dict({"camera": {"max_exposure_ms": 8}}).camera).max_exposure_us == 8000


def test_a_camera_without_metadata_keeps_its_automatic_exposure(monkeypatch):
    monkeypatch.setattr("vision.camera_controls.time.sleep", lambda s: None)
    lines = []
    source, cam = open_camera(monkeypatch, report=lines.append, has_autofocus=False, metadata={})
    assert cam.set == [] and "AeEnable" not in source.controls
    assert source.controls == {"FrameDurationLimits": [100_000, 100_000]}

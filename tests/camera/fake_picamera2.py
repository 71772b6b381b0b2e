"""A stand-in for the ``picamera2`` module that records what Tarotmate asks of the camera."""

from __future__ import annotations

import sys
import types

import numpy as np


class FakeRequest:
    def __init__(self, cam):
        self.cam = cam

    def make_array(self, stream):
        w, h = self.cam.configured["main"]["size"]
        return np.full((h, w, 3), 128, np.uint8)

    def get_metadata(self):
        self.cam.frames += 1
        return {"SensorTimestamp": self.cam.frames * 100_000_000}

    def release(self):
        pass


class FakePicamera2:
    """Records the configuration and every ``set_controls`` call, in order."""

    instances: list["FakePicamera2"] = []
    metadata = {"ExposureTime": 33_000, "AnalogueGain": 2.0, "ColourGains": (1.8, 1.5), "LensPosition": 1.62}
    focuses = True
    has_autofocus = True

    def __init__(self, camera=0):
        self.camera = camera
        self.calls: list[tuple] = []
        self.set: list[dict] = []
        self.configured = None
        self.frames = 0
        self.is_mono = False
        self.camera_controls = {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0)} if self.has_autofocus else {}
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main=None, controls=None, **kw):
        return {"main": dict(main), "controls": dict(controls or {})}

    def configure(self, config):
        self.configured = config
        self.calls.append(("configure",))

    def start(self):
        self.calls.append(("start",))

    def autofocus_cycle(self):
        self.calls.append(("autofocus_cycle",))
        return self.focuses

    def capture_metadata(self):
        self.calls.append(("capture_metadata",))
        return dict(self.metadata)

    def set_controls(self, controls):
        self.calls.append(("set_controls",))
        self.set.append(dict(controls))

    def capture_request(self):
        return FakeRequest(self)

    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        self.calls.append(("close",))


def install(monkeypatch) -> type[FakePicamera2]:
    """Put the fake module in ``sys.modules`` (undone at the test's end)."""
    FakePicamera2.instances = []
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    return FakePicamera2

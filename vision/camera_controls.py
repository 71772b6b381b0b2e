"""The Pi camera set up for a table: focus, exposure and white balance settled, then locked.

A camera above a card table sees the same cloth all evening; what changes is a
hand, a white card, a sleeve. With picamera2's defaults the autofocus hunts
when a hand passes and the exposure and white balance follow every white card,
so the whole frame changes (and the tracker's "looks unchanged" test with it).
:func:`setup_camera` therefore, once the camera has started:

1. **focus**: ``"once"`` runs one autofocus cycle on the table, then holds the
   lens where it ended (``AfMode`` Manual at that ``LensPosition``);
   ``"fixed"`` sets ``LensPosition`` (dioptres: 1 / the distance in metres) from
   the configuration; ``"continuous"`` leaves the autofocus running. A camera
   without autofocus (``AfMode`` not among its controls) is left alone.
2. **exposure**: ``"locked"`` lets the automatic exposure and white balance
   settle for ``settle_s`` on the empty table, reads what they chose
   (``ExposureTime``, ``AnalogueGain``, ``ColourGains`` from the metadata), caps
   the exposure time at ``max_exposure_us`` (a card being thrown blurs less;
   10 ms is also one flicker period of a lamp on 50 Hz mains) with the gain
   taking up the rest (up to ``max_gain``), and sets them with ``AeEnable`` and
   ``AwbEnable`` off. ``"auto"`` leaves both running (with the short-exposure
   mode, ``AeExposureMode`` Short).

The functions that decide the values are pure (:func:`configure_controls`,
:func:`locked_exposure`); :func:`setup_camera` applies them to a
``Picamera2`` object and returns the controls set, by name, for the log and
for ``tarotmate camera check --json``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

FOCUS_MODES = ("once", "fixed", "continuous")
EXPOSURE_MODES = ("locked", "auto")

# libcamera's enum values (libcamera/control_ids): picamera2 accepts the integers.
AF_MANUAL, AF_AUTO, AF_CONTINUOUS = 0, 1, 2
AE_EXPOSURE_NORMAL, AE_EXPOSURE_SHORT = 0, 1
AF_NAMES = {AF_MANUAL: "Manual", AF_AUTO: "Auto", AF_CONTINUOUS: "Continuous"}


@dataclass(frozen=True)
class CameraSetup:
    """How the camera is set up for the table (the ``[camera]`` section's keys)."""

    focus: str = "once"
    lens_position: float = 1.4  # dioptres: a table 0.7 m below the lens
    exposure: str = "locked"
    settle_s: float = 1.0
    max_exposure_us: int = 10_000
    max_gain: float = 8.0

    @classmethod
    def from_config(cls, camera) -> "CameraSetup":
        return cls(focus=camera.focus, lens_position=camera.lens_position, exposure=camera.exposure,
                   settle_s=camera.settle_s, max_exposure_us=int(round(camera.max_exposure_ms * 1000)),
                   max_gain=camera.max_gain)


def configure_controls(fps: float, setup: CameraSetup) -> dict[str, Any]:
    """The controls of the video configuration: the frame rate fixed (``FrameDurationLimits``)
    and, with the exposure left automatic, its short-exposure mode."""
    frame_us = int(round(1_000_000 / float(fps)))
    controls: dict[str, Any] = {"FrameDurationLimits": (frame_us, frame_us)}
    if setup.exposure == "auto":
        controls["AeExposureMode"] = AE_EXPOSURE_SHORT
    return controls


def locked_exposure(metadata: dict, setup: CameraSetup, frame_us: int) -> dict[str, Any]:
    """The controls that lock what the automatic exposure and white balance settled on:
    the exposure time capped at ``max_exposure_us`` (and the frame time), the analogue gain
    raised by as much as the exposure was cut (up to ``max_gain``), AWB's colour gains."""
    exposure = int(metadata.get("ExposureTime") or setup.max_exposure_us)
    gain = float(metadata.get("AnalogueGain") or 1.0)
    capped = max(100, min(exposure, setup.max_exposure_us, frame_us))
    new_gain = min(max(1.0, gain * exposure / capped), max(1.0, setup.max_gain))
    controls: dict[str, Any] = {"AeEnable": False, "ExposureTime": capped, "AnalogueGain": round(new_gain, 3)}
    gains = metadata.get("ColourGains")
    if gains:
        controls["AwbEnable"] = False
        controls["ColourGains"] = (round(float(gains[0]), 3), round(float(gains[1]), 3))
    return controls


def readable(controls: dict[str, Any]) -> dict[str, Any]:
    """The controls as the log and the JSON show them (enum names, lists for tuples)."""
    out: dict[str, Any] = {}
    for name, value in controls.items():
        if name == "AfMode":
            value = AF_NAMES.get(int(value), value)
        elif name == "AeExposureMode":
            value = {AE_EXPOSURE_NORMAL: "Normal", AE_EXPOSURE_SHORT: "Short"}.get(int(value), value)
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


def setup_camera(cam, setup: CameraSetup, fps: float, sleep: Callable[[float], None] | None = None,
                 report: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Focus and lock the started camera ``cam`` (a ``Picamera2``) as ``setup`` says; returns
    every control set, by name (the configuration's and these)."""
    say = report or (lambda text: None)
    applied = dict(configure_controls(fps, setup))
    available = getattr(cam, "camera_controls", {}) or {}
    if "AfMode" in available:
        focus: dict[str, Any]
        if setup.focus == "continuous":
            focus = {"AfMode": AF_CONTINUOUS}
        elif setup.focus == "once":
            position = None
            try:
                if cam.autofocus_cycle():
                    position = cam.capture_metadata().get("LensPosition")
            except Exception as exc:  # libcamera: a timeout, a camera that refuses
                say(f"camera: the autofocus cycle failed ({exc}); lens set for the configured distance")
            if position is None:
                say(f"camera: autofocus did not settle; lens at {setup.lens_position:g} dioptres")
                position = setup.lens_position
            focus = {"AfMode": AF_MANUAL, "LensPosition": round(float(position), 3)}
        else:
            focus = {"AfMode": AF_MANUAL, "LensPosition": float(setup.lens_position)}
        cam.set_controls(focus)
        applied.update(focus)
    if setup.exposure == "locked":
        (sleep or time.sleep)(max(0.0, setup.settle_s))
        frame_us = int(round(1_000_000 / float(fps)))
        try:
            metadata = cam.capture_metadata() or {}
        except Exception as exc:  # a camera that gives no metadata: the exposure stays automatic
            metadata = {}
            say(f"camera: no metadata to lock the exposure on ({exc or type(exc).__name__}); it stays automatic")
        if metadata.get("ExposureTime"):
            lock = locked_exposure(metadata, setup, frame_us)
            if getattr(cam, "is_mono", False):
                lock = {k: v for k, v in lock.items() if k not in ("AwbEnable", "ColourGains")}
            cam.set_controls(lock)
            applied.update(lock)
    return readable(applied)

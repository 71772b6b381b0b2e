"""The camera as the device's main loop sees it: supervised, and what a lost
camera means at the table (the screen, the systemd ``STATUS=`` words, when
to give up).

:func:`open_camera` supervises the configured source
(:class:`vision.supervised_source.SupervisedSource`): a camera (picamera2,
an OpenCV device) that fails, stalls or stops is opened again with backoff;
a video file, an image folder or the simulator is opened again after a
failure, and at its end the device goes on without it (the buttons still
work). :class:`PlainFrames` gives an iterable of frames (what tests and
benchmarks pass) the same interface; it ends the loop at its end.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from device.screens.views import CameraLostView
from vision.supervised_source import CameraHealth, CameraProblem, CameraState, SupervisedSource

LIVE_SOURCES = ("picamera2",)

SCREEN_PROBLEMS = {
    CameraProblem.CANNOT_OPEN: "no_camera",
    CameraProblem.STALLED: "no_frames",
    CameraProblem.STOPPED: "no_frames",
    CameraProblem.ERROR: "failed",
}


def is_live(config) -> bool:
    """A camera that has no natural end (not a video file, a folder or the simulator)."""
    cam = config.camera
    return cam.source in LIVE_SOURCES or (cam.source == "opencv" and not cam.path)


def open_camera(config, report: Callable[[str], None], wrap: Callable[[Any], Any] | None = None,
                game=None) -> SupervisedSource:
    """The configured camera, supervised (opened in its capture thread on the first read);
    ``wrap`` (if given) is put around each source opened; the simulated table plays ``game``."""
    from device.hardware.from_config import open_frame_source

    def opener():
        source = open_frame_source(config, game, report)
        return source if wrap is None else wrap(source)

    return SupervisedSource(opener, live=is_live(config), retry=True, fps=config.camera.fps, report=report)


class PlainFrames:
    """An iterable of frames with the supervised source's interface (always healthy)."""

    supervised = False

    def __init__(self, frames: Iterable[Any]):
        self._frames = frames
        self._iterator = iter(frames)
        self.ended = False
        self.health = CameraHealth(CameraState.OK, 0.0)

    def next_frame(self, timeout: float = 0.0):
        if self.ended:
            return None
        try:
            return next(self._iterator)
        except StopIteration:
            self.ended = True
            return None

    def close(self) -> None:
        close = getattr(self._frames, "close", None)
        if close is not None:
            close()


def as_camera(source) -> Any:
    """``source`` with ``next_frame``/``health``/``ended``/``close``."""
    if isinstance(source, SupervisedSource):
        return source
    return PlainFrames(source)


def lost_view(health: CameraHealth, now: float) -> CameraLostView | None:
    """The camera-lost screen for ``health`` (``None`` while frames arrive)."""
    if health.state == CameraState.ENDED:
        return CameraLostView("ended")
    if not health.lost:
        return None
    return CameraLostView(SCREEN_PROBLEMS.get(health.problem, "failed"), int(health.lost_for(now)))


def camera_status(health: CameraHealth, now: float) -> str:
    """The camera's part of the ``STATUS=`` line ("" while all is well)."""
    if health.state == CameraState.ENDED:
        return "camera: the video or folder has ended (enter cards with the buttons)"
    if not health.lost:
        return ""
    return (f"camera lost for {health.lost_for(now):.0f} s: {health.reason}; retrying "
            f"(attempt {health.attempts}); enter cards with the buttons")


def gives_up(health: CameraHealth, now: float, after_s: float | None) -> bool:
    """``camera.give_up_after_s`` is reached (never when it is ``None``)."""
    return after_s is not None and health.lost and health.lost_for(now) >= after_s

"""Camera supervision: sources that fail, stall or end are opened again with
backoff (live), or end / fail cleanly (finite); a hanging capture never
blocks the caller, and closing returns promptly."""

import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from vision.sources import Frame, FrameSource, SourceError
from vision.supervised_source import CameraState, SupervisedSource

IMAGE = np.zeros((4, 4, 3), np.uint8)
FAST = dict(stall_s=0.4, backoff_s=(0.02, 0.1))


class Script:
    """What each successive opening of the fake camera does."""

    def __init__(self, *plans):
        self.plans = list(plans)
        self.opened = 0
        self.closed = 0
        self.release = threading.Event()  # lets stalled captures go at the end of a test

    def opener(self):
        plan = self.plans[min(self.opened, len(self.plans) - 1)]
        self.opened += 1
        if plan[0] == "refuse":
            raise SourceError("no camera")
        if plan[0] == "hang-open":
            self.release.wait(30)
            raise SourceError("gave up")
        return FakeSource(self, *plan)


class FakeSource(FrameSource):
    def __init__(self, script, kind, frames=3):
        self.script, self.kind, self.count = script, kind, frames

    def __iter__(self):
        for i in range(self.count):
            time.sleep(0.005)
            yield Frame(IMAGE, i / 30, i)
        if self.kind == "fail":
            raise RuntimeError("Camera frontend has timed out!")
        if self.kind == "stall":
            self.script.release.wait(30)  # a capture that never returns
        if self.kind == "forever":
            i = self.count
            while not self.script.release.is_set():
                time.sleep(0.005)
                yield Frame(IMAGE, i / 30, i)
                i += 1
        # "end": the stream just stops

    def close(self):
        self.script.closed += 1


def collect(source, seconds, want=None):
    """Frames (and the health seen) for ``seconds`` or until ``want`` frames."""
    frames, states = [], set()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and (want is None or len(frames) < want):
        frame = source.next_frame(0.05)
        states.add(source.health.state)
        if frame is not None:
            frames.append(frame)
        elif source.ended:
            break
    return frames, states


@pytest.fixture
def script_of():
    scripts = []

    def make(*plans):
        scripts.append(Script(*plans))
        return scripts[-1]

    yield make
    for script in scripts:
        script.release.set()


def test_a_camera_that_fails_is_reopened_and_time_runs_on(script_of):
    script = script_of(("fail", 3), ("fail", 3), ("forever", 3))
    source = SupervisedSource(script.opener, **FAST)
    frames, states = collect(source, 5, want=12)
    source.close()
    assert len(frames) == 12 and script.opened == 3
    assert CameraState.LOST in states and source.health.state == CameraState.CLOSED
    stamps = [f.timestamp for f in frames]
    assert stamps == sorted(stamps) and [f.index for f in frames] == list(range(12))
    assert script.closed == 3


def test_a_camera_that_cannot_be_opened_is_retried_with_growing_delays(script_of):
    script = script_of(("refuse",), ("refuse",), ("refuse",), ("refuse",), ("forever", 3))
    reports = []
    source = SupervisedSource(script.opener, stall_s=5, backoff_s=(0.05, 0.2), report=reports.append)
    started = time.monotonic()
    frames, _ = collect(source, 5, want=1)
    elapsed = time.monotonic() - started
    source.close()
    assert frames and script.opened == 5
    assert elapsed >= 0.05 + 0.1 + 0.2 + 0.2 - 0.02  # 0.05, 0.1, then capped at 0.2
    assert any("cannot open it (no camera)" in r for r in reports)
    assert any(r.startswith("camera: back after") for r in reports)


def test_a_live_camera_that_ends_is_reopened(script_of):
    script = script_of(("end", 2), ("end", 2), ("forever", 2))
    source = SupervisedSource(script.opener, **FAST)
    frames, _ = collect(source, 5, want=8)
    source.close()
    assert len(frames) == 8 and script.opened == 3


def test_a_stalled_capture_is_abandoned_and_a_new_one_opened(script_of):
    script = script_of(("stall", 2), ("forever", 2))
    source = SupervisedSource(script.opener, **FAST)
    seen_lost = []
    frames = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and len(frames) < 6:
        started = time.monotonic()
        frame = source.next_frame(0.1)
        assert time.monotonic() - started < 0.5  # the caller is never blocked by the stuck capture
        if source.health.state == CameraState.LOST:
            seen_lost.append(source.health.reason)
        if frame is not None:
            frames.append(frame)
    source.close()
    assert len(frames) == 6 and script.opened == 2
    assert any("no frame for" in r and "hangs" in r for r in seen_lost)
    assert script.closed >= 1  # the stuck one was closed from another thread


def test_an_opener_that_hangs_counts_as_a_stall(script_of):
    script = script_of(("hang-open",), ("forever", 2))
    source = SupervisedSource(script.opener, **FAST)
    frames, states = collect(source, 5, want=3)
    source.close()
    assert len(frames) == 3 and CameraState.LOST in states


def test_health_says_how_long_the_camera_is_lost(script_of):
    script = script_of(("forever", 2), ("refuse",))
    now = [100.0]
    source = SupervisedSource(script.opener, stall_s=0.3, backoff_s=(0.02, 0.05), clock=lambda: now[0])
    frames, _ = collect(source, 2, want=2)
    assert source.health.state == CameraState.OK and source.health.lost_for(now[0]) == 0
    script.release.set()  # the "forever" stream ends: then every reopening is refused
    deadline = time.monotonic() + 3
    while source.health.state != CameraState.LOST and time.monotonic() < deadline:
        source.next_frame(0.05)
    lost_at = source.health.since
    now[0] += 42.0
    source.next_frame(0.05)
    assert source.health.state == CameraState.LOST and source.health.reason
    assert source.health.lost_for(now[0]) == pytest.approx(now[0] - lost_at)
    assert source.health.lost_for(now[0]) >= 42.0
    source.close()


def test_a_finite_source_ends_normally_with_every_frame(script_of):
    script = script_of(("end", 40))
    source = SupervisedSource(script.opener, live=False, **FAST)
    frames = []
    for frame in source:
        time.sleep(0.002)  # a slower caller loses nothing from a finite source
        frames.append(frame)
    assert [f.index for f in frames] == list(range(40))
    assert source.ended and source.health.state == CameraState.ENDED and script.opened == 1
    source.close()


def test_a_finite_source_that_fails_or_stalls_raises_a_source_error(script_of):
    failing = SupervisedSource(script_of(("fail", 2)).opener, live=False, **FAST)
    with pytest.raises(SourceError, match="Camera frontend has timed out"):
        list(failing)
    stalling = SupervisedSource(script_of(("stall", 2)).opener, live=False, **FAST)
    with pytest.raises(SourceError, match="stalled"):
        list(stalling)
    refused = SupervisedSource(script_of(("refuse",)).opener, live=False, **FAST)
    with pytest.raises(SourceError, match="no camera"):
        list(refused)


def test_close_returns_promptly_while_the_capture_hangs(script_of):
    script = script_of(("stall", 1))
    source = SupervisedSource(script.opener, stall_s=60, backoff_s=(0.02, 0.1))
    collect(source, 0.3)
    started = time.monotonic()
    source.close()
    assert time.monotonic() - started < 1.5
    assert source.next_frame(0.05) is None


STALLED_LOOP = textwrap.dedent(r"""
    import signal, sys, threading, time
    import numpy as np
    from vision.sources import Frame, FrameSource
    from vision.supervised_source import SupervisedSource

    class Stuck(FrameSource):
        def __iter__(self):
            yield Frame(np.zeros((2, 2, 3), np.uint8), 0.0, 0)
            threading.Event().wait()  # the capture hangs for good

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    source = SupervisedSource(Stuck, stall_s=0.5, backoff_s=(0.05, 0.2))
    while not stop.is_set():
        source.next_frame(0.2)
        if source.health.frames:
            print("stalled", flush=True) if not getattr(sys, "_said", False) else None
            sys._said = True
    source.close()
    print("stopped", flush=True)
""")


def test_sigterm_ends_a_process_whose_capture_hangs_within_2_s():
    proc = subprocess.Popen([sys.executable, "-c", STALLED_LOOP], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "stalled"
        time.sleep(1.0)  # well into the stall (and a retry or two)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=5) == 0
        assert time.monotonic() - started < 2.0
        assert proc.stdout.read().strip() == "stopped"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_watch_on_a_folder_still_ends_normally_at_its_end(tmp_path, capsys):
    import cv2

    from device.cli import main

    for i in range(30):
        cv2.imwrite(str(tmp_path / f"{i:03d}.png"), np.full((90, 160, 3), 70, np.uint8))
    assert main(["watch", str(tmp_path)]) == 0
    assert "watch: 30 frames in" in capsys.readouterr().err
    (tmp_path / "015.png").write_bytes(b"not a png")  # a frame damaged on the disk: a clean error
    assert main(["watch", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "cannot read image" in err and "015.png" in err


def test_a_finite_source_with_retry_is_reopened_after_a_failure_and_ends_at_its_end(script_of):
    script = script_of(("fail", 3), ("end", 5))
    source = SupervisedSource(script.opener, live=False, retry=True, **FAST)
    frames = list(source)
    assert [f.index for f in frames] == list(range(8)) and script.opened == 2
    stamps = [f.timestamp for f in frames]
    assert stamps == sorted(stamps) and len(set(stamps)) == 8  # time runs on across the restart
    assert source.ended and source.health.state == CameraState.ENDED
    source.close()

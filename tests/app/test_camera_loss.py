"""``tarotmate run`` without its camera: lost then back (the game goes on from
the buttons, nothing lost, the watchdog never lapses), giving up after
``camera.give_up_after_s`` (non-zero exit: systemd restarts it), picamera2's
RuntimeError (no traceback), and SIGTERM within 2 s in every state."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from device.app.camera import PlainFrames, camera_status, gives_up, lost_view
from device.app.loop import EXIT_CAMERA_LOST, camera_screen
from device.cli import EXIT_ERROR
from device.screens.views import CameraLostView
from vision.supervised_source import CameraHealth, CameraProblem, CameraState

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "SDL_VIDEODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}


def test_lost_view_status_and_give_up_follow_the_health():
    ok = CameraHealth(CameraState.OK, 10.0)
    assert lost_view(ok, 50.0) is None and camera_status(ok, 50.0) == "" and not gives_up(ok, 50.0, 5)
    lost = CameraHealth(CameraState.LOST, 10.0, "cannot open it (no camera)", 3, problem=CameraProblem.CANNOT_OPEN)
    assert lost_view(lost, 52.5) == CameraLostView("no_camera", 42)
    assert "camera lost for 42 s: cannot open it (no camera); retrying (attempt 3)" in camera_status(lost, 52.0)
    assert not gives_up(lost, 52.0, None) and not gives_up(lost, 52.0, 60) and gives_up(lost, 70.0, 60)
    stalled = CameraHealth(CameraState.LOST, 10.0, "no frame for 5 s", 1, problem=CameraProblem.STALLED)
    assert lost_view(stalled, 11.0).problem == "no_frames"
    assert lost_view(CameraHealth(CameraState.ENDED, 3.0), 9.0) == CameraLostView("ended")
    first_failure = CameraHealth(CameraState.STARTING, 0.0)  # still opening: nothing wrong yet
    assert lost_view(first_failure, 30.0) is None


def test_the_lost_screen_and_the_game_take_turns():
    lost = CameraHealth(CameraState.LOST, 100.0, "x", 1, problem=CameraProblem.ERROR)
    shown = [camera_screen(lost, 100.0 + t) is not None for t in (0.1, 3.9, 4.1, 7.9, 8.1)]
    assert shown == [True, True, False, False, True]


def test_plain_frames_end():
    frames = PlainFrames(iter([1, 2]))
    assert [frames.next_frame(), frames.next_frame(), frames.next_frame()] == [1, 2, None] and frames.ended


@pytest.mark.slow
def test_camera_lost_mid_deal_then_back_the_game_goes_on():
    """benchmarks/bench_camera_loss.py with a 3 s outage (the benchmark's default is 60 s)."""
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_camera_loss.py"), "--outage", "3",
                           "--json"], capture_output=True, text=True, env=ENV, timeout=300)
    result = json.loads(done.stdout)
    assert done.returncode == 0, (result, done.stderr[-2000:])
    assert result["nothing_lost"] and result["entered_by_hand"] in result["cards_in_log"]
    assert not result["watchdog_lapsed"] and result["longest_ping_gap_s"] < 2.0
    assert result["camera_lost_screens_shown"] >= 1
    assert any("camera lost for" in line and "Camera frontend has timed out!" in line
               for line in result["status_lines_while_lost"])
    assert "Traceback" not in done.stderr


def _config(tmp_path, camera: str, extra: str = "") -> Path:
    path = tmp_path / "tarotmate.toml"
    path.write_text(f"[camera]\n{camera}\n{extra}\n[display]\nkind = \"dummy\"\n[ui]\nbuzzer = false\n"
                    f"[store]\npath = \"{tmp_path / 'device.db'}\"\n")
    return path


FAKE_PICAMERA2 = textwrap.dedent('''
    """A stand-in for picamera2 whose camera times out as libcamera's does."""

    class _Request:
        def make_array(self, name):
            import numpy
            return numpy.zeros((8, 8, 3), numpy.uint8)

        def get_metadata(self):
            return {}

        def release(self):
            pass

    class Picamera2:
        def __init__(self, camera=0):
            pass

        def create_video_configuration(self, **kwargs):
            return kwargs

        def configure(self, config):
            pass

        def start(self):
            pass

        delivered = 0

        def capture_request(self):
            import os, time
            if Picamera2.delivered < int(os.environ.get("FAKE_GOOD_FRAMES", "0")):
                Picamera2.delivered += 1
                time.sleep(0.03)
                return _Request()
            raise RuntimeError("Camera frontend has timed out!")

        def stop(self):
            pass

        def close(self):
            pass
''')


def test_picamera2_runtime_error_is_a_lost_camera_not_a_traceback(tmp_path):
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "picamera2.py").write_text(FAKE_PICAMERA2)
    config = _config(tmp_path, 'source = "picamera2"\nwidth = 640\nheight = 360', "give_up_after_s = 5")
    done = subprocess.run([sys.executable, "-m", "device.cli", "run", "--config", str(config)], capture_output=True,
                          text=True, env={**ENV, "PYTHONPATH": str(fake)}, timeout=120)
    assert done.returncode == EXIT_CAMERA_LOST, done.stderr
    assert "Pi camera 0: Camera frontend has timed out!" in done.stderr
    assert "Traceback" not in done.stderr


def test_give_up_after_s_exits_non_zero_so_that_systemd_restarts(tmp_path):
    """A camera that worked, then is lost for good: after give_up_after_s the
    service exits non-zero, so that systemd's Restart=on-failure starts it again."""
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "picamera2.py").write_text(FAKE_PICAMERA2)
    config = _config(tmp_path, 'source = "picamera2"\nwidth = 640\nheight = 360', "give_up_after_s = 5")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "device.cli", "run", "--config", str(config)], capture_output=True,
                          text=True, env={**ENV, "PYTHONPATH": str(fake), "FAKE_GOOD_FRAMES": "5"}, timeout=120)
    assert done.returncode == EXIT_CAMERA_LOST, done.stderr
    assert 5 <= time.monotonic() - started < 60
    assert "ready after" in done.stderr and "giving up" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_camera_that_cannot_be_opened_at_start_is_one_line_and_writes_nothing(tmp_path):
    config = _config(tmp_path, f'source = "folder"\npath = "{tmp_path / "gone"}"', "give_up_after_s = 5")
    done = subprocess.run([sys.executable, "-m", "device.cli", "run", "--config", str(config)],
                          capture_output=True, text=True, env=ENV, timeout=120)
    assert done.returncode == EXIT_ERROR, done.stderr  # nothing done: not a camera given up (3)
    errors = [line for line in done.stderr.splitlines() if line.startswith("tarotmate run: error: ")]
    assert len(errors) == 1 and "image folder not found" in errors[0], done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "device.db").exists()


# ---------------------------------------------------------------- SIGTERM within 2 s, whatever the camera does

CHILD = textwrap.dedent(r"""
    import sys, threading, time
    import numpy as np
    from device.app.loop import StopFlag, run_device
    from device.config import config_from_dict
    from device.hardware.outputs import Outputs
    from vision.sources import Frame, FrameSource, SourceError
    from vision.supervised_source import SupervisedSource

    state, db = sys.argv[1], sys.argv[2]
    forever = threading.Event()

    class Camera(FrameSource):
        def __iter__(self):
            i = 0
            while True:
                if state == "stalled" and i == 3:
                    forever.wait()  # the capture hangs for good
                if state == "ended" and i == 3:
                    return
                if state == "lost" and i == 3:
                    raise SourceError("unplugged")
                time.sleep(0.03)
                yield Frame(np.zeros((8, 8, 3), np.uint8), i / 30, i)
                i += 1

    opened = []

    def opener():
        if state == "starting":
            forever.wait()  # opening the camera hangs
        if state == "lost" and opened:
            raise SourceError("no camera")  # unplugged: it cannot be opened again
        opened.append(True)
        return Camera()

    class Tracker:
        def process(self, frame):
            return []

    class Buttons:
        calls = 0

        def drain(self):
            Buttons.calls += 1
            if Buttons.calls == 5:
                print("looping", flush=True)
            return [("ok", "press")] if state == "menu" and Buttons.calls == 2 else []

        def close(self):
            pass

    stop = StopFlag()
    stop.install()
    config = config_from_dict({"display": {"kind": "dummy"}, "ui": {"buzzer": False}, "store": {"path": db}})
    source = SupervisedSource(opener, live=state != "ended", retry=True, stall_s=0.5, backoff_s=(0.2, 1.0))
    rc = run_device(config, stop=stop, source=source, tracker=Tracker(), buttons=Buttons(), outputs=Outputs([]),
                    report=lambda text: print(text, file=sys.stderr, flush=True))
    print(f"exit {rc}", flush=True)
""")


@pytest.mark.parametrize("state", ["ok", "menu", "starting", "lost", "stalled", "ended"])
def test_sigterm_ends_run_within_2_s_in_every_camera_state(tmp_path, state):
    proc = subprocess.Popen([sys.executable, "-c", CHILD, state, str(tmp_path / "device.db")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV, cwd=ROOT)
    try:
        assert proc.stdout.readline().strip() == "looping", proc.stderr.read() if proc.poll() is not None else ""
        time.sleep(1.5)  # into the state: stalled, retrying, menu open...
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
        assert time.monotonic() - started < 2.0, err
        assert proc.returncode == 0 and out.strip() == "exit 0", err
        assert "stopped (SIGTERM)" in err and "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

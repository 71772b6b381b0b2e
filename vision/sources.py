"""Frame sources: the camera, a video file or device, a folder of images, the simulator.

Every source is an iterable of :class:`Frame` (a BGR ``uint8`` image, a
timestamp in seconds from the start, and the frame's index) and a context
manager that releases the camera or file. ``open_source(spec)`` picks one from
a command-line style spec.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from engine.errors import TarotmateError

IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
DEFAULT_SIZE = (1280, 720)
DEFAULT_FPS = 30.0


class SourceError(TarotmateError):
    """A camera, file or folder that cannot be opened or read."""


@dataclass(frozen=True)
class Frame:
    """One image of the table: BGR uint8 (H, W, 3), seconds from the start, index from 0."""

    image: np.ndarray
    timestamp: float
    index: int


class FrameSource:
    """Base of the sources: iterate for frames, ``close()`` (or ``with``) to release."""

    fps: float = DEFAULT_FPS

    def __iter__(self) -> Iterator[Frame]:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file (the base holds nothing)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


PICAMERA2_HELP = (
    "the camera library picamera2 is not installed: on Raspberry Pi OS install the Debian package "
    "python3-picamera2 (sudo apt install python3-picamera2) and use a virtual environment created "
    "with --system-site-packages (python3 -m venv --system-site-packages .venv) so that it can import it"
)


class Picamera2Source(FrameSource):
    """The Raspberry Pi camera through picamera2 (imported only here, when it is opened).

    Frames are BGR (picamera2's "RGB888" format) at ``size`` and ``fps``;
    timestamps come from the sensor (seconds since the first frame). With a
    ``setup`` (:class:`vision.camera_controls.CameraSetup`) the focus, exposure
    and white balance are settled and locked for the table once it has started;
    ``controls`` holds every control set, by name (``report`` logs them).
    """

    def __init__(self, size: tuple[int, int] = DEFAULT_SIZE, fps: float = DEFAULT_FPS, camera: int = 0,
                 setup=None, report=None):
        self.size = tuple(size)
        self.fps = float(fps)
        self.camera = camera
        self.setup = setup
        self.report = report
        self.controls: dict = {}
        self._cam = None
        self._open()

    def _open(self):
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as exc:
            raise SourceError(f"{PICAMERA2_HELP} ({exc})") from None
        from vision.camera_controls import CameraSetup, configure_controls, readable, setup_camera

        setup = self.setup or CameraSetup(focus="continuous", exposure="auto")
        try:
            cam = Picamera2(self.camera)
            controls = configure_controls(self.fps, setup)
            if self.setup is None:
                controls.pop("AeExposureMode", None)  # picamera2's defaults, but the frame rate
            config = cam.create_video_configuration(main={"size": self.size, "format": "RGB888"}, controls=controls)
            cam.configure(config)
            cam.start()
            self.controls = setup_camera(cam, self.setup, self.fps, report=self.report) if self.setup else readable(controls)
        except SourceError:
            raise
        except Exception as exc:  # libcamera raises plain RuntimeError/IndexError
            raise SourceError(f"cannot open Pi camera {self.camera}: {exc}") from None
        if self.report is not None:
            self.report("camera controls: " + ", ".join(f"{k}={v}" for k, v in self.controls.items()))
        self._cam = cam
        return cam

    def __iter__(self) -> Iterator[Frame]:
        cam = self._cam or self._open()
        t0 = None
        index = 0
        while True:
            try:
                request = cam.capture_request()
                try:
                    image = request.make_array("main").copy()
                    stamp = request.get_metadata().get("SensorTimestamp")
                finally:
                    request.release()
            except Exception as exc:  # libcamera: RuntimeError("Camera frontend has timed out!") ...
                raise SourceError(f"Pi camera {self.camera}: {str(exc).strip() or type(exc).__name__}") from None
            seconds = stamp / 1e9 if stamp else time.monotonic()
            t0 = seconds if t0 is None else t0
            yield Frame(image, seconds - t0, index)
            index += 1

    def close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.stop()
                self._cam.close()
            finally:
                self._cam = None


class OpenCVSource(FrameSource):
    """A camera by device index (``0``) or a video file, through ``cv2.VideoCapture``.

    Video files are timed by their frame rate (``fps`` overrides it); live
    devices by the clock.
    """

    def __init__(self, spec: int | str | Path, fps: float | None = None, size: tuple[int, int] | None = None):
        import cv2

        self.live = isinstance(spec, int)
        if not self.live:
            path = Path(spec)
            if not path.is_file():
                raise SourceError(f"video file not found: {path}")
            self._cap = cv2.VideoCapture(str(path))
            what = f"video file {path}"
        else:
            self._cap = cv2.VideoCapture(spec)
            what = f"camera {spec}"
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(f"cannot open {what}" + ("" if not self.live else ": no such camera (try picamera2 on a Pi)"))
        if self.live and size:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        native = self._cap.get(cv2.CAP_PROP_FPS) or 0.0
        self.fps = float(fps or (native if 1.0 <= native <= 240.0 else DEFAULT_FPS))
        self.frame_count = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0) if not self.live else 0

    def __iter__(self) -> Iterator[Frame]:
        t0 = time.monotonic()
        index = 0
        while True:
            ok, image = self._cap.read()
            if not ok or image is None:
                return
            if image.ndim == 2:
                import cv2

                image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
            stamp = time.monotonic() - t0 if self.live else index / self.fps
            yield Frame(image, stamp, index)
            index += 1

    def close(self) -> None:
        self._cap.release()


class FolderSource(FrameSource):
    """The images of a folder in name order, timed at ``fps``."""

    def __init__(self, folder: str | Path, fps: float = DEFAULT_FPS):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"image folder not found: {self.folder}")
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_EXTENSIONS and p.is_file())
        if not self.paths:
            raise SourceError(f"no images in {self.folder} (expected {', '.join(IMAGE_EXTENSIONS)})")
        self.fps = float(fps)

    def __len__(self) -> int:
        return len(self.paths)

    def __iter__(self) -> Iterator[Frame]:
        import cv2

        for index, path in enumerate(self.paths):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise SourceError(f"cannot read image {path}")
            yield Frame(image, index / self.fps, index)


class SimulatorSource(FrameSource):
    """The frames of a :class:`vision.simulator.TableSimulator`, rendered lazily."""

    def __init__(self, simulator):
        self.simulator = simulator
        self.fps = float(simulator.fps)

    def __len__(self) -> int:
        return len(self.simulator)

    def __iter__(self) -> Iterator[Frame]:
        for sim_frame in self.simulator.frames():
            yield Frame(sim_frame.image, sim_frame.timestamp, sim_frame.index)


def is_live(spec: str) -> bool:
    """A camera (``picamera2``, an OpenCV device number) rather than a file,
    a folder or the simulator: it has no natural end."""
    spec = str(spec).strip()
    return spec == "picamera2" or spec.isdigit()


def open_source(
    spec: str,
    *,
    fps: float | None = None,
    size: tuple[int, int] = DEFAULT_SIZE,
    players: int = 4,
    seed: int = 0,
    deck: str | Path | None = None,
) -> FrameSource:
    """The source for ``spec``.

    * ``"picamera2"``: the Pi camera; ``"0"``, ``"1"`` ...: an OpenCV camera device;
    * ``"sim"``: the simulated table playing one trick (``players``, ``seed``, ``deck``);
    * a folder: its images in name order; any other path: a video file.
    """
    spec = str(spec).strip()
    if not spec:
        raise SourceError("no source given: use a video file, an image folder, a camera (picamera2, 0) or sim")
    if spec == "picamera2":
        return Picamera2Source(size=size, fps=fps or DEFAULT_FPS)
    if spec.isdigit():
        return OpenCVSource(int(spec), fps=fps, size=size)
    if spec == "sim":
        from vision.simulator import TableSimulator, trick_script

        script = trick_script(players=players, seed=seed)
        return SimulatorSource(TableSimulator(script, players=players, size=size, fps=fps or DEFAULT_FPS, seed=seed, deck=deck))
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path, fps=fps or DEFAULT_FPS)
    if not path.exists():
        raise SourceError(f"no such file or folder: {path} (a source is a video file, an image folder, picamera2, a camera number or sim)")
    return OpenCVSource(path, fps=fps)

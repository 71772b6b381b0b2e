"""Frame sources: folder, video file, picamera2 message, spec parsing."""

import sys

import cv2
import numpy as np
import pytest

from engine.errors import TarotmateError
from vision.simulator import Idle, TableSimulator
from vision.sources import (
    FolderSource,
    OpenCVSource,
    Picamera2Source,
    SimulatorSource,
    SourceError,
    open_source,
)


def _image(i: int) -> np.ndarray:
    img = np.zeros((48, 64, 3), np.uint8)
    img[:, :, 1] = 40 * i
    return img


def test_folder_source_sorts_by_name_and_times_frames(tmp_path):
    for i, name in enumerate(["b.png", "a.png", "c.jpg"]):
        cv2.imwrite(str(tmp_path / name), _image(i + 1))
    (tmp_path / "notes.txt").write_text("not an image")
    frames = list(FolderSource(tmp_path, fps=10))
    assert [f.index for f in frames] == [0, 1, 2]
    assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.1, 0.2])
    # a.png (green 80) comes first, then b.png (40), then c.jpg (about 120)
    greens = [int(f.image[10, 10, 1]) for f in frames]
    assert greens[0] == 80 and greens[1] == 40 and abs(greens[2] - 120) <= 3
    assert frames[0].image.shape == (48, 64, 3)


def test_folder_source_errors(tmp_path):
    with pytest.raises(SourceError, match="image folder not found"):
        FolderSource(tmp_path / "nope")
    with pytest.raises(SourceError, match="no images"):
        FolderSource(tmp_path)
    (tmp_path / "broken.png").write_bytes(b"not a png")
    with pytest.raises(SourceError, match="cannot read image"):
        list(FolderSource(tmp_path))


def test_video_file_source_reads_every_frame(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 15.0, (64, 48))
    for i in range(6):
        writer.write(_image(i))
    writer.release()
    with open_source(str(path)) as source:
        assert isinstance(source, OpenCVSource)
        frames = list(source)
    assert len(frames) == 6
    assert frames[-1].timestamp == pytest.approx(5 / 15.0)
    assert frames[0].image.shape == (48, 64, 3)
    assert abs(int(frames[3].image[20, 20, 1]) - 120) <= 6


def test_missing_files_and_cameras_are_clear_errors(tmp_path):
    with pytest.raises(SourceError, match="no such file or folder"):
        open_source(str(tmp_path / "missing.mp4"))
    with pytest.raises(SourceError, match="video file not found"):
        OpenCVSource(tmp_path / "missing.mp4")
    with pytest.raises(SourceError, match="cannot open camera 7"):
        open_source("7")
    with pytest.raises(SourceError, match="no source given"):
        open_source("")
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"\0" * 100)
    with pytest.raises(SourceError, match="cannot open video file"):
        open_source(str(junk))


def test_missing_picamera2_names_the_debian_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # makes the import fail
    with pytest.raises(TarotmateError) as info:
        Picamera2Source()
    message = str(info.value)
    assert "python3-picamera2" in message
    assert "sudo apt install python3-picamera2" in message
    assert "--system-site-packages" in message
    with pytest.raises(SourceError, match="python3-picamera2"):
        open_source("picamera2")


def test_simulator_source_yields_the_simulated_frames():
    sim = TableSimulator([Idle(4)], size=(320, 180), fps=10)
    with SimulatorSource(sim) as source:
        frames = list(source)
    assert len(frames) == len(sim) == 5
    assert frames[2].timestamp == pytest.approx(0.2)
    assert frames[0].image.shape == (180, 320, 3)


def test_sim_spec_plays_one_trick():
    source = open_source("sim", size=(640, 360), players=5, seed=2)
    assert isinstance(source, SimulatorSource)
    kinds = [e.type for e in source.simulator.expected]
    assert kinds == ["appeared"] * 5 + ["cleared"]

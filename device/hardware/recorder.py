"""Keeps what the OLED showed, for the demo's animated GIF.

Each distinct screen is written at once as a numbered PNG in a folder (so an
interrupted demo keeps what it had shown and a resumed one carries on after
it); :meth:`ScreenRecorder.write_gif` assembles the folder into one animated
GIF, scaled up so that it is readable on a desktop.
"""

from __future__ import annotations

import os
from pathlib import Path


class ScreenRecorder:
    """Writes each new screen image to ``folder/NNNNNN.png``."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        existing = sorted(self.folder.glob("[0-9]*.png"))
        self._next = int(existing[-1].stem) + 1 if existing else 0
        self._last: bytes | None = None
        self.written = 0

    def show(self, image) -> bool:
        """Record ``image`` (a PIL image) unless it equals the previous one."""
        data = image.tobytes()
        if data == self._last:
            return False
        self._last = data
        final = self.folder / f"{self._next:06d}.png"
        partial = self.folder / f".{self._next:06d}.png.part"
        image.save(partial, format="PNG")
        os.replace(partial, final)  # an interrupted write never leaves a broken frame
        self._next += 1
        self.written += 1
        return True

    def frames(self) -> list[Path]:
        return sorted(self.folder.glob("[0-9]*.png"))

    def write_gif(self, path: str | Path, scale: int = 3, frame_ms: int = 400, max_frames: int = 600) -> int:
        """Assemble the recorded screens into an animated GIF; returns the
        number of frames in it (evenly thinned out beyond ``max_frames``)."""
        from PIL import Image

        files = self.frames()
        if not files:
            return 0
        if len(files) > max_frames:
            step = len(files) / max_frames
            files = [files[int(i * step)] for i in range(max_frames - 1)] + [files[-1]]
        images = []
        for file in files:
            try:
                img = Image.open(file)
                img.load()
            except OSError:  # a frame from an older, interrupted run: skip it
                continue
            with img:
                frame = img.convert("L")
                if scale > 1:
                    frame = frame.resize((frame.width * scale, frame.height * scale), Image.NEAREST)
                images.append(frame.convert("P"))
        if not images:
            return 0
        durations = [frame_ms] * len(images)
        durations[-1] = frame_ms * 8  # linger on the final scores
        images[0].save(
            path, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=False
        )
        return len(images)

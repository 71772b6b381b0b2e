"""The simulator's deck: card faces, from the built-in deck or a folder of scans, scaled on demand."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from engine.cards import CODES
from vision.simulator.errors import SimulatorError


class Deck:
    """Card faces scaled to the simulated card size, loaded on first use.

    ``folder``: ``None`` for the built-in deck (:mod:`vision.builtin_deck`), or a
    folder of scans named ``CODE.jpg`` / ``CODE.png`` (e.g. ``../shared/decks/<name>``).
    """

    def __init__(self, folder: str | Path | None = None):
        self.folder = Path(folder) if folder else None
        self.name = self.folder.name if self.folder else "builtin"
        self._files: dict[str, Path] = {}
        if self.folder is not None:
            if not self.folder.is_dir():
                raise SimulatorError(f"deck folder not found: {self.folder}")
            for p in self.folder.iterdir():
                if p.suffix.lower() in (".jpg", ".jpeg", ".png") and p.stem.upper() in CODES:
                    self._files.setdefault(p.stem.upper(), p)
            missing = [c for c in CODES if c not in self._files]
            if missing:
                raise SimulatorError(
                    f"deck folder {self.folder} lacks {len(missing)} of the 78 cards (e.g. {', '.join(missing[:5])}): "
                    "expected one image per card named CODE.jpg or CODE.png"
                )
        self._scaled: dict[tuple[str, int, int], np.ndarray] = {}

    def face(self, code: str) -> np.ndarray:
        if self.folder is None:
            from vision.builtin_deck import render_card

            return render_card(code)
        img = cv2.imread(str(self._files[code]), cv2.IMREAD_COLOR)
        if img is None:
            raise SimulatorError(f"cannot read card image {self._files[code]}")
        return img

    def scaled(self, code: str, w: int, h: int) -> np.ndarray:
        key = (code, w, h)
        img = self._scaled.get(key)
        if img is None:
            img = cv2.resize(self.face(code), (w, h), interpolation=cv2.INTER_AREA)
            self._scaled[key] = img
        return img

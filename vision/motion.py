"""Motion between two frames, as the tracker sees it: small grey images, brightness matched, differenced.

Pure functions shared by :class:`vision.tracker.Tracker` (step 1 of its loop)
and the benchmarks that replay what the tracker would see.
"""

from __future__ import annotations

import cv2
import numpy as np


def small_grey(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The frame reduced to ``size`` (w, h) and made grey, float32."""
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)


def changed_pixels(prev: np.ndarray, small: np.ndarray, threshold: float) -> np.ndarray:
    """Pixels (bool) that changed by more than ``threshold`` grey levels from ``prev`` to ``small``
    (two :func:`small_grey` images), ``small`` scaled to ``prev``'s median brightness first (a lamp
    dimming is not motion)."""
    ref = float(np.median(prev[::3, ::3]))
    cur = float(np.median(small[::3, ::3]))
    if cur > 1:
        small = small * (ref / cur)
    return cv2.absdiff(small, prev) > threshold

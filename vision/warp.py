"""Straighten one card of a frame into a portrait crop.

A quad is a float32 array of shape (4, 2): the card's corners in image pixels,
clockwise, with corner0 -> corner1 a short edge (see :mod:`vision.localise`).
The crop maps corner0 to its top-left pixel, so a card whose quad starts at its
bottom edge comes out upside down: the classifier knows both orientations.
"""

from __future__ import annotations

import cv2
import numpy as np

CROP_SIZE: tuple[int, int] = (112, 192)
"""(width, height) of a straightened card crop: the classifier's input size."""


def crop_corners(size: tuple[int, int] = CROP_SIZE) -> np.ndarray:
    """The four corners of a crop of ``size`` in the quad order (TL, TR, BR, BL)."""
    w, h = size
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


def as_quad(quad) -> np.ndarray:
    """``quad`` as a float32 (4, 2) array; ValueError when it is not four points."""
    q = np.asarray(quad, np.float32)
    if q.shape != (4, 2) or not np.all(np.isfinite(q)):
        raise ValueError(f"a card quad is 4 (x, y) points, got an array of shape {q.shape}")
    return q


def warp_card(frame_bgr: np.ndarray, quad, size: tuple[int, int] = CROP_SIZE) -> np.ndarray:
    """The card inside ``quad`` warped to a portrait BGR crop of ``size`` (w, h).

    Large cards are first reduced with an area filter, so that a close-up photo
    does not alias when it is shrunk to a small crop.
    """
    q = as_quad(quad)
    w, h = size
    long_side = max(np.linalg.norm(q[1] - q[2]), np.linalg.norm(q[3] - q[0]))
    factor = long_side / h
    src = frame_bgr
    if factor > 2.0:
        # pre-shrink the card's bounding box so that warpPerspective samples ~1:1 or 2:1
        x0, y0 = np.floor(q.min(0)).astype(int)
        x1, y1 = np.ceil(q.max(0)).astype(int)
        x0, y0 = max(x0 - 2, 0), max(y0 - 2, 0)
        x1, y1 = min(x1 + 2, frame_bgr.shape[1]), min(y1 + 2, frame_bgr.shape[0])
        if x1 - x0 >= 2 and y1 - y0 >= 2:
            shrink = 1.5 / factor
            box = frame_bgr[y0:y1, x0:x1]
            src = cv2.resize(box, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
            sx = src.shape[1] / box.shape[1]
            sy = src.shape[0] / box.shape[0]
            q = (q - np.array([x0, y0], np.float32)) * np.array([sx, sy], np.float32)
    m = cv2.getPerspectiveTransform(q, crop_corners(size))
    return cv2.warpPerspective(src, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

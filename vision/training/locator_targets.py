"""Training targets of the card locator, in numpy (no torch): what each output cell should say.

:func:`encode` is the exact inverse of :func:`vision.locator.decode`: a card's
centre cell gets a heat-map peak of 1 (a Gaussian around it), and the cells
near the centre hold the centre's offset, the log sizes and the doubled angle.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.locator import SIZE_UNIT, STRIDE

MIN_VISIBLE = 0.3  # a card at least this uncovered (and inside the frame) is a target
IGNORE_VISIBLE = 0.08  # between the two: neither a target nor a miss


def card_geometry(quad: np.ndarray) -> tuple[float, float, float, float, float]:
    """(cx, cy, long, short, angle of the long axis) of a card quad TL, TR, BR, BL."""
    tl, tr, br, bl = quad
    top, bottom = (tl + tr) / 2, (bl + br) / 2
    left, right = (tl + bl) / 2, (tr + br) / 2
    axis = bottom - top
    c = quad.mean(0)
    return float(c[0]), float(c[1]), float(np.linalg.norm(axis)), float(np.linalg.norm(right - left)), float(np.arctan2(axis[1], axis[0]))


def encode(quads: np.ndarray, visible: np.ndarray, out_hw: tuple[int, int]):
    """Training targets on the (h, w) output grid: heat (h, w), regression (6, h, w),
    regression weight (h, w), heat-loss weight (h, w) (0 where a card is half-there)."""
    h, w = out_hw
    heat = np.zeros((h, w), np.float32)
    reg = np.zeros((6, h, w), np.float32)
    rw = np.zeros((h, w), np.float32)
    hw = np.ones((h, w), np.float32)
    owner = np.full((h, w), -1.0, np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for q, v in zip(quads, visible):
        cx, cy, long, short, ang = card_geometry(q)
        gx, gy = cx / STRIDE - 0.5, cy / STRIDE - 0.5
        ix, iy = int(np.floor(gx + 0.5)), int(np.floor(gy + 0.5))
        if not (0 <= ix < w and 0 <= iy < h) or short < 2:
            continue
        sigma = max(0.6, 0.12 * short / STRIDE)
        g = np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / (2 * sigma * sigma)).astype(np.float32)
        if v < MIN_VISIBLE:
            if v >= IGNORE_VISIBLE:
                hw[g > 0.1] = 0.0
            continue
        heat = np.maximum(heat, g)
        heat[iy, ix] = 1.0
        near = (g >= 0.5) & (g > owner)
        owner = np.where(near, g, owner)
        reg[0][near] = gx - xx[near]
        reg[1][near] = gy - yy[near]
        reg[2][near] = np.log(long / SIZE_UNIT)
        reg[3][near] = np.log(short / SIZE_UNIT)
        reg[4][near] = np.cos(2 * ang)
        reg[5][near] = np.sin(2 * ang)
        rw[near] = g[near]
    return heat, reg, rw, hw


def flip_quads(quads: np.ndarray, w: int, h: int, fx: bool, fy: bool) -> np.ndarray:
    q = quads.copy()
    if fx:
        q[..., 0] = w - q[..., 0]
    if fy:
        q[..., 1] = h - q[..., 1]
    return q


def pad_to(img: np.ndarray, height: int) -> np.ndarray:
    if img.shape[0] == height:
        return img
    out = np.zeros((height, img.shape[1], 3), img.dtype)
    out[: img.shape[0]] = img
    return out


def augment(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Cheap extra variation on a drawn scene: gamma and a little blur or sharpening."""
    if rng.random() < 0.3:
        lut = (np.linspace(0, 1, 256) ** rng.uniform(0.7, 1.4) * 255).astype(np.uint8)
        img = cv2.LUT(img, lut)
    if rng.random() < 0.15:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 0.9))
    return img

"""A card's outline in an image: corner order, side lines fitted to edges, snapping a quad to them.

Shared by both card finders (:mod:`vision.localise`, the classic one, and
:mod:`vision.locator`, the network's); pure NumPy/OpenCV on one image.
"""

from __future__ import annotations

import cv2
import numpy as np


def order_quad(points) -> np.ndarray:
    """Order 4 points clockwise on screen, starting at the left end of the upper short edge."""
    q = np.asarray(points, np.float32).reshape(4, 2)
    c = q.mean(0)
    q = q[np.argsort(np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0]))]  # increasing angle with y down = clockwise on screen
    e = q - q[[1, 2, 3, 0]]  # edge i: q[i] -> q[i+1]
    edges = np.sqrt((e * e).sum(1)).tolist()
    short = (0, 2) if edges[0] + edges[2] <= edges[1] + edges[3] else (1, 3)
    ys = q[:, 1].tolist()
    i, j = short
    start = i if (ys[i] + ys[(i + 1) % 4]) <= (ys[j] + ys[(j + 1) % 4]) else j
    return np.ascontiguousarray(q[[start, (start + 1) % 4, (start + 2) % 4, (start + 3) % 4]])


def _line_intersection(l1, l2):
    (vx1, vy1, x1, y1), (vx2, vy2, x2, y2) = l1, l2
    det = vx1 * (-vy2) - vy1 * (-vx2)
    if abs(det) < 1e-6:
        return None
    t = ((x2 - x1) * (-vy2) - (y2 - y1) * (-vx2)) / det
    return np.array([x1 + t * vx1, y1 + t * vy1], np.float32)


def _side_line(pts: np.ndarray, a: np.ndarray, b: np.ndarray, min_cover: float):
    """Line (vx, vy, x0, y0) fitted to the points of ``pts`` lying along segment a-b, or None
    when they cover less than ``min_cover`` of its middle part."""
    ab = b - a
    length = float(np.linalg.norm(ab))
    if length < 4:
        return None
    d = ab / length
    n = np.array([-d[1], d[0]], np.float32)
    rel = pts - a
    t = rel @ d
    off = np.abs(rel @ n)
    near = (t > 0.1 * length) & (t < 0.9 * length) & (off < max(2.5, 0.03 * length))
    if near.sum() < 5:
        return None
    bins = np.clip((t[near] * (40.0 / length)).astype(np.int32), 0, 40)
    covered = np.count_nonzero(np.bincount(bins, minlength=41)) / 32.0
    if covered < min_cover:
        return None
    return cv2.fitLine(pts[near], cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()


def fit_quad_sides(contour: np.ndarray, corners: np.ndarray, min_cover: float = 0.5) -> np.ndarray:
    """Refine 4 approximate corners: each side well covered by ``contour`` points is
    re-fitted as a line, the others are kept; corners are the sides' intersections."""
    pts = contour.reshape(-1, 2).astype(np.float32)
    corners = np.asarray(corners, np.float32)
    ab = np.roll(corners, -1, axis=0) - corners
    length = np.sqrt((ab**2).sum(1))
    d = ab / np.maximum(length, 1e-6)[:, None]
    nrm = np.stack([-d[:, 1], d[:, 0]], 1)
    # the four sides at once (what _side_line does for one)
    t = (pts @ d.T).T - (corners * d).sum(1)[:, None]  # 4 x N: position along each side
    off = np.abs((pts @ nrm.T).T - (corners * nrm).sum(1)[:, None])  # and distance from it
    near_all = (t > 0.1 * length[:, None]) & (t < 0.9 * length[:, None]) & (off < np.maximum(2.5, 0.03 * length)[:, None])
    lines = []
    for i in range(4):
        line = None
        near = near_all[i]
        if length[i] >= 4 and np.count_nonzero(near) >= 5:
            bins = np.clip((t[i][near] * (40.0 / length[i])).astype(np.int32), 0, 40)
            if np.count_nonzero(np.bincount(bins, minlength=41)) / 32.0 >= min_cover:
                line = cv2.fitLine(pts[near], cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        if line is None:
            line = np.array([d[i, 0], d[i, 1], corners[i, 0], corners[i, 1]], np.float32)
        lines.append(line)
    out = []
    for i in range(4):
        p = _line_intersection(lines[i - 1], lines[i])
        if p is None or np.linalg.norm(p - corners[i]) > 0.15 * np.linalg.norm(corners[i] - corners[i - 2]):
            return corners
        out.append(p)
    return np.array(out, np.float32)


def side_edges(image: np.ndarray, quad: np.ndarray, reach: float = 0.15, samples: int = 10):
    """Where each side of ``quad`` finds the card's outer edge in ``image`` (grey, or BGR whose
    profiles are made grey).

    Along each side, ``samples`` intensity profiles are read across it (``reach``
    times the card's short side inwards and outwards, at 20 % to 80 % of the
    side); the outermost strong step of each profile is an edge point. Returns
    ``(t, shift, ok, normals, r)``: the profiles' positions along the sides
    (``samples``,), each edge point's signed distance outwards from the side (4,
    ``samples``), whether a profile found a strong step (4, ``samples``), the
    outward unit normals (4, 2) and the reach in pixels.
    """
    q = np.asarray(quad, np.float32)
    centre = q.mean(0)
    short = min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1]))
    r = max(2.0, reach * short)
    offsets = np.linspace(-r, r, int(2 * r) + 1, dtype=np.float32)
    t = np.linspace(0.2, 0.8, samples, dtype=np.float32)
    # the four sides' profiles in one remap: (4 * samples) x offsets
    starts, ends = q, np.roll(q, -1, axis=0)
    d = (ends - starts) / np.maximum(np.linalg.norm(ends - starts, axis=1, keepdims=True), 1e-6)
    n = np.stack([d[:, 1], -d[:, 0]], 1)
    inward = np.einsum("ij,ij->i", n, centre - starts) > 0
    n[inward] *= -1  # outward normals
    base = starts[:, None, :] + (ends - starts)[:, None, :] * t[None, :, None]  # 4 x samples x 2
    pts = base[:, :, None, :] + offsets[None, None, :, None] * n[:, None, None, :]
    pts = pts.reshape(4 * samples, len(offsets), 2)
    prof = cv2.remap(image, np.ascontiguousarray(pts[..., 0]), np.ascontiguousarray(pts[..., 1]), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if prof.ndim == 3:  # a colour image: only the profiles are made grey
        prof = cv2.cvtColor(prof, cv2.COLOR_BGR2GRAY)
    prof = prof.astype(np.float32)
    grad = np.abs(np.diff(prof, axis=1)).reshape(4, samples, -1)
    # all four sides at once: the outermost strong step of each profile
    peak = grad.max(axis=2)
    strong = grad >= 0.5 * peak[..., None]
    idx = grad.shape[2] - 1 - np.argmax(strong[..., ::-1], axis=2)
    ok = peak >= 12.0
    shift = (offsets[idx] + offsets[idx + 1]) / 2
    return t, shift, ok, n, r


def refine_quad(gray: np.ndarray, quad: np.ndarray, reach: float = 0.15, samples: int = 10) -> np.ndarray:
    """Snap each side of ``quad`` to the card's outer edge in ``gray`` (full resolution; a BGR
    image is read in colour and its profiles made grey).

    The edge points are those of :func:`side_edges`. A side moves (parallel to
    itself) only when most of its profiles agree (an occluded side of a card in
    a trick stays where it was).
    """
    q = np.asarray(quad, np.float32)
    _, shift, ok, n, r = side_edges(gray, q, reach, samples)
    starts, ends = q, np.roll(q, -1, axis=0)
    d = (ends - starts) / np.maximum(np.linalg.norm(ends - starts, axis=1, keepdims=True), 1e-6)
    count = ok.sum(axis=1)
    mid = _masked_median(shift, ok, count)
    spread = _masked_median(np.abs(shift - mid[:, None]), ok, count)
    move = (count >= 0.6 * samples) & (spread <= 1.5)
    if not move.any():
        return q
    shifted = starts + n * np.where(move, mid, 0.0)[:, None]
    lines = [np.array([d[i, 0], d[i, 1], shifted[i, 0], shifted[i, 1]], np.float32) for i in range(4)]
    return corners_of_sides(lines, q, 2.5 * r)


def corners_of_sides(lines, quad: np.ndarray, max_move: float) -> np.ndarray:
    """The corners where the side lines (vx, vy, x0, y0; side i runs from corner i to i + 1)
    meet; ``quad`` unchanged when two sides are parallel or a corner would move more than
    ``max_move`` pixels."""
    out = []
    for i in range(4):
        p = _line_intersection(lines[i - 1], lines[i])
        if p is None or np.linalg.norm(p - quad[i]) > max_move:
            return quad
        out.append(p)
    return np.array(out, np.float32)


def _masked_median(values: np.ndarray, mask: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Per row of ``values``, the median of the entries where ``mask`` holds (0 for none)."""
    v = np.sort(np.where(mask, values, np.inf), axis=1)
    rows = np.arange(len(v))
    lo, hi = np.maximum(count - 1, 0) // 2, np.maximum(count, 1) // 2
    lo, hi = np.minimum(lo, v.shape[1] - 1), np.minimum(hi, v.shape[1] - 1)
    med = (v[rows, lo] + v[rows, hi]) / 2
    return np.where(count > 0, med, 0.0).astype(np.float32)

"""Card quads as the tracker compares them: distance, area, sides, overlap, a row cut into cards.

A quad is a ``(4, 2)`` float array of corners in frame pixels, clockwise.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

Quad = np.ndarray


def quad_distance(a: Quad, b: Quad) -> float:
    """Mean corner distance of two quads, either way round (a card turned half a turn is the same card)."""
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    d0 = float(np.linalg.norm(a - b, axis=1).mean())
    d2 = float(np.linalg.norm(a - np.roll(b, 2, axis=0), axis=1).mean())
    return min(d0, d2)


def quad_area(q: Quad) -> float:
    return float(abs(cv2.contourArea(np.asarray(q, np.float32))))


def similar_size(a: Quad, b: Quad, ratio: float = 1.25) -> bool:
    """Whether two quads have areas within ``ratio`` of each other (a whole card both times)."""
    x, y = quad_area(a), quad_area(b)
    return min(x, y) > 0 and max(x, y) / min(x, y) <= ratio


def sides(q: Quad) -> tuple[float, float]:
    """(short, long) side of a quad: the means of its opposite sides."""
    q = np.asarray(q, np.float32)
    e = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    x, y = (e[0] + e[2]) / 2, (e[1] + e[3]) / 2
    return float(min(x, y)), float(max(x, y))


def row_pieces(q: Quad, width: float) -> list[Quad]:
    """The ``width``-wide quads of the cards lying side by side along the long side of ``q``:
    as many as fit (at least two), the first and last flush with its ends, the others
    evenly between (clockwise, a short edge first)."""
    q = np.asarray(q, np.float32)
    if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[2] - q[1]):
        q = np.roll(q, -1, axis=0)  # q[0] -> q[1] along the short side, q[1] -> q[2] along the row
    a, b, c, d = q
    length = (float(np.linalg.norm(c - b)) + float(np.linalg.norm(d - a))) / 2
    n = max(2, round(length / (width * 1.08)))
    w = min(1.0, width / length)

    def at(t: float, u: float) -> np.ndarray:
        return (1 - t) * ((1 - u) * a + u * b) + t * ((1 - u) * d + u * c)

    out = []
    for k in range(n):
        t0 = k * (1 - w) / (n - 1)
        t1 = t0 + w
        out.append(np.array([at(t0, 1), at(t1, 1), at(t1, 0), at(t0, 0)], np.float32))
    return out


def covered_fraction(q: Quad, by: Quad) -> float:
    """How much of quad ``q``'s area lies inside quad ``by``."""
    a = quad_area(q)
    if a <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(np.asarray(q, np.float32), np.asarray(by, np.float32))
    return float(inter) / a


def pile_shares(q: Quad, pile: Sequence[Quad], scale: float = 1.0) -> tuple[float, float]:
    """How much of quad ``q``'s area lies on the quads of ``pile``: on their union, and on the
    one it lies on most (rasterised at ``scale`` of the pixels)."""
    union, each = shares_on_each(q, pile, scale)
    return union, max(each, default=0.0)


def shares_on_each(q: Quad, pile: Sequence[Quad], scale: float = 1.0) -> tuple[float, list[float]]:
    """How much of quad ``q``'s area lies on the quads of ``pile``: on their union, and on each of
    them in order (rasterised at ``scale`` of the pixels; nothing for an empty pile or a quad of no area)."""
    if not len(pile):
        return 0.0, []
    q = np.asarray(q, np.float32)
    x0, y0 = np.floor(q.min(0)).astype(int)
    x1, y1 = np.ceil(q.max(0)).astype(int)
    size = (max(1, int((y1 - y0) * scale) + 2), max(1, int((x1 - x0) * scale) + 2))
    mine, union = np.zeros(size, np.uint8), np.zeros(size, np.uint8)
    cv2.fillConvexPoly(mine, np.round((q - (x0, y0)) * scale).astype(np.int32), 1)
    area = int(mine.sum())
    if not area:
        return 0.0, [0.0] * len(pile)
    each = []
    for o in pile:
        one = np.zeros(size, np.uint8)
        cv2.fillConvexPoly(one, np.round((np.asarray(o, np.float32) - (x0, y0)) * scale).astype(np.int32), 1)
        each.append(int((mine & one).sum()) / area)
        union |= one
    return float((mine & union).sum()) / area, each


def moved_away(before: Quad, after: Quad, distance: float) -> bool:
    """Whether a card's centre lies ``distance`` card widths or more from where it was."""
    a, b = np.asarray(before, np.float32), np.asarray(after, np.float32)
    short = min(np.linalg.norm(a[0] - a[1]), np.linalg.norm(a[1] - a[2]), np.linalg.norm(b[0] - b[1]), np.linalg.norm(b[1] - b[2]))
    shift = float(np.linalg.norm(a.mean(0) - b.mean(0)))
    return shift > distance * float(short)

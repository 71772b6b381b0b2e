"""Where a card lies on the table: its four corners from its centre, size and turn
(the synthetic scenes, the trick piles of the real-table conditions, the
locator's training scenes), and a found outline nudged about itself (a card
named from several cuts of it)."""

from __future__ import annotations

import numpy as np


def card_quad(centre, length: float, angle: float, aspect: float, tilt: float = 0.0, rng=None) -> np.ndarray:
    """Corners (TL, TR, BR, BL of the face) of a card of long side ``length`` centred at ``centre``,
    turned by ``angle`` radians; ``tilt`` adds a mild perspective (corner jitter, fraction of the width)."""
    w, h = length / aspect, length
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]], np.float32)
    c, s = np.cos(angle), np.sin(angle)
    rot = np.array([[c, -s], [s, c]], np.float32)
    q = local @ rot.T + np.asarray(centre, np.float32)
    if tilt and rng is not None:
        q += rng.uniform(-tilt, tilt, (4, 2)).astype(np.float32) * w
    return q.astype(np.float32)


def nudged_quads(quad, nudges) -> list[np.ndarray]:
    """``quad`` (4 corners, clockwise from the upper short edge) moved by each of ``nudges``:
    ``(scale about its centre, shift along its short side, shift along its long side)``, the
    shifts as shares of those sides."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    centre = q.mean(0)
    across = (q[1] - q[0] + q[2] - q[3]) / 2  # the short side, corner 0 -> 1
    along = (q[3] - q[0] + q[2] - q[1]) / 2  # the long side, corner 0 -> 3
    return [(centre + (q - centre) * scale + a * across + b * along).astype(np.float32) for scale, a, b in nudges]

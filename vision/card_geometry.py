"""Where a card lies on the table: its four corners from its centre, size and turn
(the synthetic scenes, the trick piles of the real-table conditions, the
locator's training scenes)."""

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

"""A found card quad's error against the card's true corners, in the card's own frame.

Along the card's short side and along its long side, in card widths, so that
the same misplacement reads the same at any angle and any size: what
``vision.training.corner_errors`` measures of the card finder, and what the
training crops of the card model are cut with (:func:`apply_error`).
"""

from __future__ import annotations

import numpy as np

from vision.quad_fit import order_quad


def card_frame_error(found: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """(4, 2) error of ``found``'s corners from ``truth``'s, along the card's short side and its
    long side, in card widths (both ordered by ``order_quad``; ``found`` turned half a turn
    when that fits better)."""
    t = order_quad(truth).astype(np.float64)
    f = order_quad(found).astype(np.float64)
    f = min((f, np.roll(f, 2, axis=0)), key=lambda q: float(np.linalg.norm(q - t, axis=1).mean()))
    width = float(np.linalg.norm(t[1] - t[0]))
    a = (t[1] - t[0]) / max(width, 1e-6)
    b = (t[3] - t[0]) / max(float(np.linalg.norm(t[3] - t[0])), 1e-6)
    e = f - t
    return np.stack([e @ a, e @ b], axis=1) / max(width, 1e-6)


def apply_error(quad: np.ndarray, error: np.ndarray) -> np.ndarray:
    """``quad`` (ordered by ``order_quad``) with ``error`` (as :func:`card_frame_error` gives it) added."""
    q = np.asarray(quad, np.float64)
    width = float(np.linalg.norm(q[1] - q[0]))
    a = (q[1] - q[0]) / max(width, 1e-6)
    b = (q[3] - q[0]) / max(float(np.linalg.norm(q[3] - q[0])), 1e-6)
    return (q + width * (error[:, :1] * a + error[:, 1:] * b)).astype(np.float32)

"""The simulator's ground truth: the events a tracker should report, and where every card is.

:class:`ExpectedEvent` lists come from planning a script
(:attr:`vision.simulator.TableSimulator.expected`); every :class:`SimFrame`
carries a :class:`CardTruth` per card on the table, computed by
:func:`card_truths` from the poses and the hands over the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Sequence

import cv2
import numpy as np

from vision.simulator.hands import hand_mask_points
from vision.simulator.layout import Pose, TableLayout


@dataclass(frozen=True)
class ExpectedEvent:
    """An event the tracker should report: ``frame`` is when the card came to rest
    (``appeared``) or when the zone became empty (``cleared``)."""

    type: str
    frame: int
    zone: str
    card: str | None = None
    action: int = 0  # index of the script action that causes it


class CardTruth(NamedTuple):
    """Where one card is in one frame."""

    code: str
    corners: np.ndarray  # (4, 2) float32, clockwise, corner 0 -> 1 the card's top (short) edge
    moving: bool
    visible: float  # fraction of the card not covered by cards above or by a hand
    corners_visible: int  # how many of its 4 corners are uncovered
    zone: str | None


@dataclass(frozen=True)
class SimFrame:
    image: np.ndarray
    index: int
    timestamp: float
    cards: tuple[CardTruth, ...]
    hands: int  # how many hands are over the table


def card_truths(
    layout: TableLayout,
    resting: Sequence[tuple[str, Pose]],
    moving: Sequence[tuple[str, Pose]],
    hands: Sequence[tuple[int, Pose]],
) -> tuple[CardTruth, ...]:
    """Visibility of every card at quarter resolution, from the top of the pile down.

    ``resting`` and ``moving`` are ``(code, pose)`` from the bottom of the pile up
    (moving cards lie above resting ones); ``hands`` are ``(seat, palm pose)``.
    The result lists the bottom of the pile first.
    """
    w, h = layout.size
    s = 0.25
    occupied = np.zeros((int(h * s) + 1, int(w * s) + 1), np.uint8)
    for seat_no, palm in hands:
        for poly in hand_mask_points(layout, seat_no, palm):
            cv2.fillPoly(occupied, [np.round(poly * s).astype(np.int32)], 1)
    stack = [(code, pose, True) for code, pose in reversed(moving)]
    stack += [(code, pose, False) for code, pose in reversed(resting)]
    out = []
    for code, pose, is_moving in stack:
        corners = layout.corners(pose)
        mask = np.zeros_like(occupied)
        cv2.fillConvexPoly(mask, np.round(corners * s).astype(np.int32), 1)
        area = int(mask.sum())
        covered = int((mask & occupied).sum())
        visible = 1.0 - covered / area if area else 0.0
        centre = corners.mean(0)
        n_vis = 0
        for c in corners:
            inner = c + (centre - c) * 0.06
            xi, yi = int(inner[0] * s), int(inner[1] * s)
            inside = 0 <= xi < occupied.shape[1] and 0 <= yi < occupied.shape[0]
            if inside and not occupied[yi, xi]:
                n_vis += 1
        occupied |= mask
        zone = layout.zone_of(float(centre[0]), float(centre[1]))
        out.append(CardTruth(code, corners, is_moving, visible, n_vis, zone))
    out.reverse()  # bottom of the pile first
    return tuple(out)

"""The hands over the simulated table: where a palm holds a card, the arm's shape, its drawing.

A hand is a palm (an ellipse with four fingers over the card) on a forearm
that reaches in from its seat's edge, in skin and sleeve colours per seat.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.simulator.layout import Pose, Seat, TableLayout

SKIN = ((115, 150, 205), (95, 135, 190), (130, 165, 215), (80, 115, 170), (105, 145, 200))
SLEEVE = ((90, 60, 40), (40, 40, 120), (70, 90, 70), (110, 110, 110), (60, 50, 90))


def palm_pose(pose: Pose, seat: Seat, card_h: float) -> Pose:
    """The palm holding a card at ``pose`` by its end nearest the seat."""
    x, y, angle = pose
    a = math.radians(angle)
    # the card's own "down" (towards its bottom edge) after rotation clockwise by angle
    dx, dy = -math.sin(a), math.cos(a)
    reach = card_h * 0.58
    return (x + dx * reach, y + dy * reach, angle)


def hand_shapes(layout: TableLayout, seat_no: int, palm: Pose) -> tuple[np.ndarray, tuple[float, float], tuple[float, float], float]:
    """(arm polygon, palm centre, palm half-axes, direction of the arm in degrees)."""
    seat = layout.seat(seat_no)
    px, py, angle = palm
    ex, ey = seat.edge
    dx, dy = ex - px, ey - py
    n = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / n, dx / n
    arm_w = layout.card_h * 0.2
    arm = np.array(
        [[px + nx * arm_w, py + ny * arm_w], [ex + nx * arm_w * 1.3, ey + ny * arm_w * 1.3],
         [ex - nx * arm_w * 1.3, ey - ny * arm_w * 1.3], [px - nx * arm_w, py - ny * arm_w]],
        np.float32,
    )
    axes = (layout.card_h * 0.26, layout.card_h * 0.19)
    return arm, (px, py), axes, math.degrees(math.atan2(dy, dx))


def draw_hand(canvas: np.ndarray, alpha: np.ndarray, layout: TableLayout, seat_no: int, palm: Pose, ox: int, oy: int) -> None:
    """Draw a hand on ``canvas`` (origin ``(ox, oy)``) and its coverage into ``alpha``."""
    arm, (px, py), axes, direction = hand_shapes(layout, seat_no, palm)
    skin = SKIN[(seat_no - 1) % len(SKIN)]
    sleeve = SLEEVE[(seat_no - 1) % len(SLEEVE)]
    shift = 4  # sub-pixel drawing
    sc = 1 << shift
    arm_i = np.round((arm - (ox, oy)) * sc).astype(np.int32)
    # forearm in skin, then the sleeve from halfway to the edge
    cv2.fillConvexPoly(canvas, arm_i, skin, cv2.LINE_AA, shift)
    cv2.fillConvexPoly(alpha, arm_i, 1.0, cv2.LINE_AA, shift)
    mid = (arm[0] + arm[1]) / 2, (arm[3] + arm[2]) / 2
    sleeve_poly = np.array([mid[0], arm[1], arm[2], mid[1]], np.float32)
    cv2.fillConvexPoly(canvas, np.round((sleeve_poly - (ox, oy)) * sc).astype(np.int32), sleeve, cv2.LINE_AA, shift)
    centre = (int(round((px - ox) * sc)), int(round((py - oy) * sc)))
    ax = (int(axes[0] * sc), int(axes[1] * sc))
    cv2.ellipse(canvas, centre, ax, direction, 0, 360, skin, -1, cv2.LINE_AA, shift)
    cv2.ellipse(alpha, centre, ax, direction, 0, 360, 1.0, -1, cv2.LINE_AA, shift)
    # fingers over the card: a few short rounded bars pointing away from the arm
    fx, fy = math.cos(math.radians(direction + 180)), math.sin(math.radians(direction + 180))
    nx, ny = -fy, fx
    for k in (-1.5, -0.5, 0.5, 1.5):
        bx = px + nx * k * axes[1] * 0.5 + fx * axes[0] * 0.8
        by = py + ny * k * axes[1] * 0.5 + fy * axes[0] * 0.8
        tip = (bx + fx * axes[0] * 0.45, by + fy * axes[0] * 0.45)
        p0 = (int(round((bx - ox) * sc)), int(round((by - oy) * sc)))
        p1 = (int(round((tip[0] - ox) * sc)), int(round((tip[1] - oy) * sc)))
        thick = max(2, int(axes[1] * 0.42))
        shade = tuple(int(c * 0.92) for c in skin)
        cv2.line(canvas, p0, p1, shade, thick, cv2.LINE_AA, shift)
        cv2.line(alpha, p0, p1, 1.0, thick, cv2.LINE_AA, shift)


def hand_mask_points(layout: TableLayout, seat_no: int, palm: Pose) -> list[np.ndarray]:
    """Polygons covering a hand generously (arm, and the palm with its fingers)."""
    arm, (px, py), axes, direction = hand_shapes(layout, seat_no, palm)
    ell = cv2.ellipse2Poly((int(px), int(py)), (int(axes[0] * 1.5), int(axes[1] * 1.2)), int(direction), 0, 360, 20)
    return [arm, ell.astype(np.float32)]


def hand_extent(layout: TableLayout, seat_no: int, palm: Pose) -> list[np.ndarray]:
    """Points bounding everything a hand draws (for the region to composite)."""
    arm, (px, py), axes, _ = hand_shapes(layout, seat_no, palm)
    r = axes[0] * 1.6
    return [arm, np.array([[px - r, py - r], [px + r, py + r]], np.float32)]

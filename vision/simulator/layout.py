"""The simulated table's layout: seats around the frame, their zones, where cards lie.

Geometry only (no pixels drawn here): a card's pose is ``(x, y, angle)``, its
centre in frame pixels and its rotation in degrees clockwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.simulator.errors import SimulatorError
from vision.zones import MIDDLE, Zone, Zones, rect_zone

DEFAULT_SIZE = (1280, 720)
DEFAULT_FPS = 30.0
CARD_ASPECT = 440 / 800  # width / height of a tarot card
SIDE_MARGIN = 0.6  # card heights between the frame's edge and the cards laid at a side seat

Pose = tuple[float, float, float]


@dataclass(frozen=True)
class Seat:
    number: int  # 1-based, in playing order (counter-clockwise seen from above)
    edge: tuple[float, float]  # where the arm enters the frame (pixels, just outside)
    toward: tuple[float, float]  # unit vector from the middle towards the seat
    angle: float  # degrees clockwise: a card at this angle has its bottom towards the seat
    zone: str


def _seat_specs(players: int) -> list[tuple[float, float, float]]:
    """(x, y, angle) of each seat's position on the frame border, normalised."""
    if players == 3:
        return [(0.5, 1.0, 0.0), (1.0, 0.45, -90.0), (0.0, 0.45, 90.0)]
    if players == 4:
        return [(0.5, 1.0, 0.0), (1.0, 0.5, -90.0), (0.5, 0.0, 180.0), (0.0, 0.5, 90.0)]
    if players == 5:
        return [(0.5, 1.0, 0.0), (1.0, 0.5, -90.0), (0.68, 0.0, 180.0), (0.32, 0.0, 180.0), (0.0, 0.5, 90.0)]
    if players == 2:
        return [(0.5, 1.0, 0.0), (0.5, 0.0, 180.0)]
    raise SimulatorError(f"the simulated table seats 2 to 5 players, not {players}")


def _seat_zone(number: int, x: float, y: float, players: int) -> Zone:
    name = f"seat{number}"
    if y >= 1.0:
        return rect_zone(name, 0.16, 0.74, 0.84, 1.0, number)
    if x >= 1.0:
        return rect_zone(name, 0.76, 0.04, 1.0, 0.96, number)
    if x <= 0.0:
        return rect_zone(name, 0.0, 0.04, 0.24, 0.96, number)
    # top edge: one or two seats share it
    if players == 5:
        return rect_zone(name, 0.5, 0.0, 0.75, 0.26, number) if x > 0.5 else rect_zone(name, 0.25, 0.0, 0.5, 0.26, number)
    return rect_zone(name, 0.16, 0.0, 0.84, 0.26, number)


class TableLayout:
    """Seats around the frame and the zones of the simulated table."""

    def __init__(self, players: int = 4, size: tuple[int, int] = DEFAULT_SIZE, card_height: float | None = None):
        self.players = players
        self.size = (int(size[0]), int(size[1]))
        w, h = self.size
        self.card_h = float(card_height or round(h * 0.22))
        self.card_w = self.card_h * CARD_ASPECT
        self.card_px = (int(round(self.card_w)), int(round(self.card_h)))  # a card's drawn size
        self.centre = (w / 2, h / 2)
        self.seats: list[Seat] = []
        for i, (x, y, angle) in enumerate(_seat_specs(players)):
            px, py = x * w, y * h
            dx, dy = px - w / 2, py - h / 2
            norm = math.hypot(dx, dy)
            margin = self.card_h * 0.9
            edge = (px + dx / norm * margin, py + dy / norm * margin)
            self.seats.append(Seat(i + 1, edge, (dx / norm, dy / norm), angle, f"seat{i + 1}"))
        seat_zones = [_seat_zone(i + 1, x, y, players) for i, (x, y, _) in enumerate(_seat_specs(players))]
        self.zones = Zones([rect_zone(MIDDLE, 0.25, 0.26, 0.75, 0.74), *seat_zones])

    def seat(self, number: int) -> Seat:
        if not 1 <= number <= len(self.seats):
            raise SimulatorError(f"seat {number} does not exist at a table of {self.players} (seats 1..{self.players})")
        return self.seats[number - 1]

    def zone_of(self, x: float, y: float) -> str | None:
        z = self.zones.zone_at(x, y, *self.size)
        return z.name if z else None

    def check_zone(self, zone: str) -> None:
        if zone not in self.zones.names:
            raise SimulatorError(f"no zone {zone!r} on this table (zones: {', '.join(self.zones.names)})")

    def card_matrix(self, pose: Pose, ox: float = 0.0, oy: float = 0.0) -> np.ndarray:
        """The affine map from a card face (``card_px``) to the frame, shifted by ``(ox, oy)``."""
        cw, ch = self.card_px
        x, y, angle = pose
        m = cv2.getRotationMatrix2D((cw / 2, ch / 2), -angle, 1.0)
        m[0, 2] += x - cw / 2 - ox
        m[1, 2] += y - ch / 2 - oy
        return m

    def corners(self, pose: Pose) -> np.ndarray:
        """The four corners of a card at ``pose`` (clockwise from its top-left)."""
        cw, ch = self.card_px
        m = self.card_matrix(pose)
        src = np.array([[0, 0, 1], [cw, 0, 1], [cw, ch, 1], [0, ch, 1]], np.float64)
        return (src @ m.T).astype(np.float32)

    def seat_slots(self, seat: Seat) -> list[Pose]:
        """Card positions (x, y, angle) in a seat's zone, in laying order."""
        zone = self.zones[seat.zone]
        poly = zone.pixel_polygon(*self.size)
        x0, y0 = poly.min(0)
        x1, y1 = poly.max(0)
        along_pitch, across_pitch = self.card_w * 1.2, self.card_h * 1.08
        tx, ty = seat.toward
        horizontal = abs(ty) > abs(tx)  # seat at the top or bottom: cards side by side along x
        length = (x1 - x0) if horizontal else (y1 - y0)
        depth = (y1 - y0) if horizontal else (x1 - x0)
        per_row = max(1, int((length - self.card_w * 0.2) // along_pitch))
        rows = max(1, int(depth // across_pitch))
        slots = []
        for r in range(rows):
            for c in range(per_row):
                a = (c - (per_row - 1) / 2) * along_pitch
                # first row nearest the seat's edge; at a side seat SIDE_MARGIN card heights from the
                # frame's edge, which a tilted camera would otherwise push out of view
                d = depth / 2 - across_pitch * (r + 0.5) - (0 if horizontal else SIDE_MARGIN * self.card_h)
                cx = (x0 + x1) / 2 + (a if horizontal else 0) + (0 if horizontal else tx * d)
                cy = (y0 + y1) / 2 + (ty * d if horizontal else a)
                slots.append((cx, cy, seat.angle))
        return slots

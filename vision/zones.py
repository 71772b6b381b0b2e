"""Zones: named areas of the table, in normalised image coordinates.

The middle is where tricks are played; a seat zone is where a player lays
cards in front of them (Trivium's tercias). A zone file is TOML::

    # x to the right, y downwards, both from 0 to 1 across the image
    [[zone]]
    name = "middle"
    rect = [0.30, 0.25, 0.70, 0.75]          # x0, y0, x1, y1

    [[zone]]
    name = "seat1"
    seat = 1                                 # optional: the seat it belongs to
    polygon = [[0.2, 0.8], [0.8, 0.8], [0.8, 1.0], [0.2, 1.0]]

A card belongs to the first zone (in file order) that contains its centre; a
card whose centre lies in no zone is not reported. With no zone file, the
whole frame is the zone ``middle``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from engine.errors import TarotmateError

MIDDLE = "middle"
SIDE_MIN_OFFSET = 0.15  # a card this close to the middle's centre (in its own lengths) lies on nobody's side
# how much nearer a card's direction must be to one seat's than to the next seat's, as a share of
# the angle between those two seats: about 12 degrees at a 5-player table (seats about 60 degrees
# apart), 18 at 4 (90); a fixed 25 degrees left 30 % of a hard 5-player table's trick cards on
# nobody's side (benchmarks/table_causes.py on a bench_table.py --deals 20 --trace)
SIDE_MARGIN_SHARE = 0.2
_ZONE_KEYS = {"name", "rect", "polygon", "seat"}


class ZoneFileError(TarotmateError):
    """A zone file that cannot be read or does not describe valid zones."""


@dataclass(frozen=True)
class Zone:
    """A named polygon in normalised coordinates (0..1 across the image)."""

    name: str
    polygon: tuple[tuple[float, float], ...]
    seat: int | None = None

    def contains(self, x: float, y: float) -> bool:
        """Whether the normalised point (x, y) lies inside (or on) the polygon."""
        return _point_in_polygon(x, y, self.polygon)

    def pixel_polygon(self, width: int, height: int) -> np.ndarray:
        """The polygon in pixels of a ``width`` x ``height`` image, (N, 2) float32."""
        return np.array([[x * width, y * height] for x, y in self.polygon], np.float32)


def _point_in_polygon(x: float, y: float, polygon: Sequence[tuple[float, float]]) -> bool:
    inside = False
    n = len(polygon)
    for i in range(n):
        x1, y1 = polygon[i]
        x2, y2 = polygon[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            cross = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x <= cross:
                inside = not inside
        # points on a horizontal edge count as inside
        if y1 == y2 == y and min(x1, x2) <= x <= max(x1, x2):
            return True
    return inside


class Zones:
    """An ordered set of zones with unique names."""

    def __init__(self, zones: Iterable[Zone]):
        self.zones: tuple[Zone, ...] = tuple(zones)
        if not self.zones:
            raise ZoneFileError("no zones: at least one [[zone]] is needed")
        names = [z.name for z in self.zones]
        for name in names:
            if names.count(name) > 1:
                raise ZoneFileError(f"zone name {name!r} is used twice")

    def __iter__(self):
        return iter(self.zones)

    def __len__(self) -> int:
        return len(self.zones)

    def __getitem__(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(z.name for z in self.zones)

    def zone_at(self, x: float, y: float, width: int, height: int) -> Zone | None:
        """The first zone containing the pixel point (x, y) of a width x height image."""
        nx, ny = x / width, y / height
        for z in self.zones:
            if z.contains(nx, ny):
                return z
        return None

    def seat_zone(self, seat: int) -> Zone | None:
        """The zone of ``seat`` (1-based), if the file gives one."""
        for z in self.zones:
            if z.seat == seat:
                return z
        return None

    def seat_toward(self, corners: Sequence[Sequence[float]], zone: str, width: int, height: int, *,
                    min_offset: float = SIDE_MIN_OFFSET, margin_share: float = SIDE_MARGIN_SHARE) -> int | None:
        """The seat (1-based) on whose side of zone ``zone`` a card lies: players lay a trick's
        card in front of themselves, so the card's centre lies off the middle's centre towards its
        player. The seat zone whose direction from the zone's centre is nearest the card's, when it
        is nearer than the next one by ``margin_share`` of the angle between those two seats'
        directions (seats crowd closer at a table of five: the bar follows them); ``None`` when the card lies within
        ``min_offset`` of its own length from the centre, in a seat's own zone, in an unknown zone,
        or between two seats. ``corners``: the card's four pixel corners in a ``width`` x
        ``height`` image."""
        try:
            home = self[zone]
        except KeyError:
            return None
        seats = [z for z in self.zones if z.seat is not None and z.name != zone]
        if home.seat is not None or len(seats) < 2:
            return None
        quad = np.asarray(corners, np.float64).reshape(4, 2)
        length = max(np.linalg.norm(quad[1] - quad[2]), np.linalg.norm(quad[0] - quad[1]))
        centre = polygon_centroid(home.pixel_polygon(width, height))
        offset = quad.mean(0) - centre
        if not length > 0 or np.linalg.norm(offset) < min_offset * length:
            return None
        card_angle = np.arctan2(offset[1], offset[0])
        gaps = []
        for z in seats:
            d = polygon_centroid(z.pixel_polygon(width, height)) - centre
            direction = float(np.arctan2(d[1], d[0]))
            gaps.append((_angle_between(direction, card_angle), z.seat, direction))
        gaps.sort()
        (best, seat, first), (second, _, other) = gaps[0], gaps[1]
        return int(seat) if second - best >= margin_share * _angle_between(first, other) else None

    def mask(self, width: int, height: int) -> np.ndarray:
        """A uint8 mask (255 inside any zone) of a width x height image."""
        import cv2

        out = np.zeros((height, width), np.uint8)
        for z in self.zones:
            pts = np.round(z.pixel_polygon(width, height)).astype(np.int32)
            cv2.fillPoly(out, [pts], 255)
        return out

    def to_toml(self) -> str:
        """The zone file text for these zones."""
        lines = ["# Tarotmate zones: normalised image coordinates, x right and y down, 0..1", ""]
        for z in self.zones:
            lines.append("[[zone]]")
            lines.append(f'name = "{z.name}"')
            if z.seat is not None:
                lines.append(f"seat = {z.seat}")
            pts = ", ".join(f"[{x:.4g}, {y:.4g}]" for x, y in z.polygon)
            lines.append(f"polygon = [{pts}]")
            lines.append("")
        return "\n".join(lines)


def _angle_between(a: float, b: float) -> float:
    """The angle in degrees (0-180) between two directions given in radians."""
    return float(np.degrees(abs((a - b + np.pi) % (2 * np.pi) - np.pi)))


def default_zones() -> Zones:
    """The whole frame as one zone, ``middle``."""
    return Zones([Zone(MIDDLE, ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)))])


def rect_zone(name: str, x0: float, y0: float, x1: float, y1: float, seat: int | None = None) -> Zone:
    return Zone(name, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), seat)


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ZoneFileError(f"{where}: expected a number, got {value!r}")
    if not 0.0 <= float(value) <= 1.0:
        raise ZoneFileError(f"{where}: {value!r} is outside 0..1 (coordinates are fractions of the image)")
    return float(value)


def _parse_zone(raw: Any, i: int) -> Zone:
    where = f"zone #{i + 1}"
    if not isinstance(raw, dict):
        raise ZoneFileError(f"{where}: expected a table ([[zone]]), got {raw!r}")
    unknown = sorted(set(raw) - _ZONE_KEYS)
    if unknown:
        raise ZoneFileError(f"{where}: unknown key {unknown[0]!r} (allowed: name, rect, polygon, seat)")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ZoneFileError(f"{where}: 'name' must be a non-empty string")
    name = name.strip()
    where = f"zone {name!r}"
    has_rect, has_poly = "rect" in raw, "polygon" in raw
    if has_rect == has_poly:
        raise ZoneFileError(f"{where}: give exactly one of 'rect' or 'polygon'")
    if has_rect:
        rect = raw["rect"]
        if not isinstance(rect, list) or len(rect) != 4:
            raise ZoneFileError(f"{where}: 'rect' must be [x0, y0, x1, y1]")
        x0, y0, x1, y1 = (_number(v, f"{where}: rect") for v in rect)
        if not (x0 < x1 and y0 < y1):
            raise ZoneFileError(f"{where}: 'rect' needs x0 < x1 and y0 < y1, got {rect}")
        polygon = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    else:
        poly = raw["polygon"]
        if not isinstance(poly, list) or len(poly) < 3:
            raise ZoneFileError(f"{where}: 'polygon' must be a list of at least 3 [x, y] points")
        points = []
        for p in poly:
            if not isinstance(p, list) or len(p) != 2:
                raise ZoneFileError(f"{where}: polygon point {p!r} is not [x, y]")
            points.append((_number(p[0], f"{where}: polygon"), _number(p[1], f"{where}: polygon")))
        if _area(points) < 1e-6:
            raise ZoneFileError(f"{where}: the polygon has no area")
        polygon = tuple(points)
    seat = raw.get("seat")
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or seat < 1):
        raise ZoneFileError(f"{where}: 'seat' must be a whole number from 1, got {seat!r}")
    return Zone(name, polygon, seat)


def polygon_centroid(points: np.ndarray) -> np.ndarray:
    """The centre of mass of a polygon's area, (2,) float64 (its vertices' mean when it has none)."""
    pts = np.asarray(points, np.float64)
    x, y = pts[:, 0], pts[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = cross.sum() / 2
    if abs(area) < 1e-9:
        return pts.mean(0)
    return np.array([((x + xn) * cross).sum(), ((y + yn) * cross).sum()]) / (6 * area)


def _area(points: Sequence[tuple[float, float]]) -> float:
    s = 0.0
    for i in range(len(points)):
        x1, y1 = points[i]
        x2, y2 = points[(i + 1) % len(points)]
        s += x1 * y2 - x2 * y1
    return abs(s) / 2


def parse_zones(text: str, source: str = "zone file") -> Zones:
    """Zones from the text of a zone file; ``source`` names it in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ZoneFileError(f"{source}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"zone"})
    if unknown:
        raise ZoneFileError(f"{source}: unknown key {unknown[0]!r} (a zone file holds only [[zone]] tables)")
    raw = data.get("zone")
    if not isinstance(raw, list) or not raw:
        raise ZoneFileError(f"{source}: no zones: add at least one [[zone]] table")
    try:
        return Zones(_parse_zone(z, i) for i, z in enumerate(raw))
    except ZoneFileError as exc:
        raise ZoneFileError(f"{source}: {exc}") from None


def load_zones(path: str | Path | None) -> Zones:
    """Zones from a TOML file, or the default (whole frame = middle) for ``None``."""
    if path is None:
        return default_zones()
    p = Path(path)
    if not p.is_file():
        raise ZoneFileError(f"zone file not found: {p}")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ZoneFileError(f"cannot read zone file {p}: {exc}") from None
    return parse_zones(text, str(p))


SAMPLES_DIR = Path(__file__).resolve().parent / "zones"


def sample_zone_file(name: str) -> Path:
    """The path of a sample zone file shipped in ``vision/zones`` (e.g. ``four-seats``)."""
    p = SAMPLES_DIR / (name if name.endswith(".toml") else name + ".toml")
    if not p.is_file():
        known = ", ".join(sorted(f.stem for f in SAMPLES_DIR.glob("*.toml")))
        raise ZoneFileError(f"no sample zone file {name!r} (known: {known})")
    return p

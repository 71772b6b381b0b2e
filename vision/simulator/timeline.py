"""Tarotmate's table simulator: frames of a table seen from above, with ground truth.

A script of actions (a card played from a seat into the middle, cards laid in
a seat's zone, a zone swept towards a seat, cards shown, idle time, lighting
changes) is planned once into a timeline; :meth:`TableSimulator.frames` then
renders the frames lazily, one at a time, so a long deal uses flat memory.

Cards are carried by a hand-like blob (palm and arm) from their seat's edge,
blurred while they move, and land with a small random rotation and offset,
overlapping the cards already in the trick. Frames carry ground truth: where
every card is, whether it moves, how much of it is visible. The expected
table events of the whole script are in :attr:`TableSimulator.expected`.

Deck: the built-in deck (:mod:`vision.builtin_deck`) by default, or a folder
of scans named ``CODE.jpg`` / ``CODE.png`` (e.g. ``../shared/decks/<name>``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, NamedTuple, Sequence, Union

import cv2
import numpy as np

from engine.cards import CODES, card as parse_card
from engine.errors import TarotmateError
from vision.zones import MIDDLE, Zone, Zones, rect_zone

DEFAULT_SIZE = (1280, 720)
DEFAULT_FPS = 30.0
CARD_ASPECT = 440 / 800  # width / height of a tarot card
_SKIN = ((115, 150, 205), (95, 135, 190), (130, 165, 215), (80, 115, 170), (105, 145, 200))
_SLEEVE = ((90, 60, 40), (40, 40, 120), (70, 90, 70), (110, 110, 110), (60, 50, 90))


class SimulatorError(TarotmateError):
    """A script or deck the simulator cannot use."""


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class Play:
    """``seat`` plays ``card`` into ``zone``: carried in by a hand, lands on the trick."""

    seat: int
    card: str
    zone: str = MIDDLE


@dataclass(frozen=True)
class Lay:
    """``seat`` lays ``cards`` side by side in its own zone (a Trivium tercia)."""

    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Show:
    """``seat`` lays ``cards`` face up in a row in ``zone`` (e.g. the chien shown)."""

    seat: int
    cards: tuple[str, ...]
    zone: str = MIDDLE


@dataclass(frozen=True)
class Sweep:
    """The cards of ``zone`` are gathered and taken away towards ``seat``."""

    zone: str
    seat: int


@dataclass(frozen=True)
class Hover:
    """``seat`` carries ``card`` over ``zone``, holds it a while, and takes it back: no event."""

    seat: int
    card: str
    zone: str = MIDDLE
    hold: int = 12


@dataclass(frozen=True)
class Move:
    """``seat`` takes ``card`` from where it lies and puts it in ``zone`` (e.g. a tercia stolen
    with El Loco): one ``moved`` event."""

    seat: int
    card: str
    zone: str


@dataclass(frozen=True)
class Take:
    """``seat`` takes ``card`` from the table back to its hand: ``removed`` (``cleared`` if it
    was the last card of its zone)."""

    seat: int
    card: str


@dataclass(frozen=True)
class Idle:
    """Nothing happens for ``frames`` frames."""

    frames: int


@dataclass(frozen=True)
class Light:
    """The light changes to ``gain`` (1.0 = the start) over ``frames`` frames."""

    gain: float
    frames: int = 15


Action = Union[Play, Lay, Show, Sweep, Hover, Move, Take, Idle, Light]


@dataclass(frozen=True)
class Trick:
    """One trick of a deal: the ``leader`` seat plays first, then the next seats in turn."""

    leader: int
    cards: tuple[str, ...]
    winner: int


# --------------------------------------------------------------------------- ground truth


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


# --------------------------------------------------------------------------- layout


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

    def seat_slots(self, seat: Seat) -> list[tuple[float, float, float]]:
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
                # first row nearest the seat's edge
                d = depth / 2 - across_pitch * (r + 0.5)
                cx = (x0 + x1) / 2 + (a if horizontal else 0) + (0 if horizontal else tx * d)
                cy = (y0 + y1) / 2 + (ty * d if horizontal else a)
                slots.append((cx, cy, seat.angle))
        return slots


# --------------------------------------------------------------------------- deck


class Deck:
    """Card faces scaled to the simulated card size, loaded on first use."""

    def __init__(self, folder: str | Path | None = None):
        self.folder = Path(folder) if folder else None
        self.name = self.folder.name if self.folder else "builtin"
        self._files: dict[str, Path] = {}
        if self.folder is not None:
            if not self.folder.is_dir():
                raise SimulatorError(f"deck folder not found: {self.folder}")
            for p in self.folder.iterdir():
                if p.suffix.lower() in (".jpg", ".jpeg", ".png") and p.stem.upper() in CODES:
                    self._files.setdefault(p.stem.upper(), p)
            missing = [c for c in CODES if c not in self._files]
            if missing:
                raise SimulatorError(
                    f"deck folder {self.folder} lacks {len(missing)} of the 78 cards (e.g. {', '.join(missing[:5])}): "
                    "expected one image per card named CODE.jpg or CODE.png"
                )
        self._scaled: dict[tuple[str, int, int], np.ndarray] = {}

    def face(self, code: str) -> np.ndarray:
        if self.folder is None:
            from vision.builtin_deck import render_card

            return render_card(code)
        img = cv2.imread(str(self._files[code]), cv2.IMREAD_COLOR)
        if img is None:
            raise SimulatorError(f"cannot read card image {self._files[code]}")
        return img

    def scaled(self, code: str, w: int, h: int) -> np.ndarray:
        key = (code, w, h)
        img = self._scaled.get(key)
        if img is None:
            img = cv2.resize(self.face(code), (w, h), interpolation=cv2.INTER_AREA)
            self._scaled[key] = img
        return img


# --------------------------------------------------------------------------- timeline


@dataclass
class _Segment:
    start: int
    end: int  # at ``end`` the card is at p1
    p0: tuple[float, float, float]  # x, y, angle
    p1: tuple[float, float, float]
    ease: str = "out"
    tremor: float = 0.0  # pixels of hand tremor while moving


@dataclass
class _CardObj:
    code: str
    segments: list[_Segment] = field(default_factory=list)
    appear: int = 0
    gone: int | None = None  # first frame at which it is off the table
    carrier: list[tuple[int, int, int]] = field(default_factory=list)  # (start, end, seat) a hand holds it
    z: list[tuple[int, int]] = field(default_factory=list)  # (from frame, stacking order)


@dataclass
class _HandMove:
    start: int
    end: int
    seat: int
    p0: tuple[float, float, float]  # palm x, y, angle
    p1: tuple[float, float, float]
    ease: str = "in"


def _ease(t: float, kind: str) -> float:
    t = min(1.0, max(0.0, t))
    if kind == "out":
        return 1 - (1 - t) ** 3
    if kind == "in":
        return t * t
    if kind == "inout":
        return 3 * t * t - 2 * t * t * t
    return t


def _lerp_pose(p0, p1, u: float) -> tuple[float, float, float]:
    da = (p1[2] - p0[2] + 180) % 360 - 180
    return (p0[0] + (p1[0] - p0[0]) * u, p0[1] + (p1[1] - p0[1]) * u, p0[2] + da * u)


def _tremor(frame: int, ident: int, amplitude: float) -> tuple[float, float]:
    if amplitude <= 0:
        return 0.0, 0.0
    r = np.random.default_rng((frame * 7919 + ident * 104729) & 0xFFFFFFFF)
    dx, dy = r.uniform(-amplitude, amplitude, 2)
    return float(dx), float(dy)


class TableSimulator:
    """A simulated table playing ``script``.

    ``players`` seats (2-5) sit around the frame; ``deck`` is a folder of
    scans or ``None`` for the built-in deck; ``background`` an image file (a
    table texture) or ``None`` for a drawn green felt. ``noise`` is the sensor
    noise's standard deviation in grey levels; ``blur`` scales motion blur.
    """

    def __init__(
        self,
        script: Sequence[Action],
        *,
        players: int = 4,
        size: tuple[int, int] = DEFAULT_SIZE,
        fps: float = DEFAULT_FPS,
        seed: int = 0,
        deck: str | Path | Deck | None = None,
        background: str | Path | None = None,
        noise: float = 2.5,
        blur: float = 0.5,
        card_height: float | None = None,
        speed: float = 1.0,
    ):
        self.layout = TableLayout(players, size, card_height)
        self.size = self.layout.size
        self.fps = float(fps)
        self.seed = seed
        self.deck = deck if isinstance(deck, Deck) else Deck(deck)
        self.noise = float(noise)
        self.blur = float(blur)
        self.speed = float(speed)
        self.script = list(script)
        self._rng = np.random.default_rng(seed)
        self._cards: list[_CardObj] = []
        self._hands: list[_HandMove] = []
        self._light: list[tuple[int, int, float, float]] = []  # (start, end, g0, g1)
        self.expected: list[ExpectedEvent] = []
        self._z = 0
        self._gain = 1.0
        self._on_table: dict[str, list[int]] = {}  # zone -> card object ids resting there
        self._slots_used: dict[str, int] = {}
        self._n_frames = self._plan()
        self._background_path = background
        self._background: np.ndarray | None = None
        w, h = self.size
        self._cw, self._ch = int(round(self.layout.card_w)), int(round(self.layout.card_h))
        self._card_alpha = _rounded_alpha(self._cw, self._ch, radius=max(2, self._cw // 14))
        # scale every face the script shows now, so that rendering later allocates nothing lasting
        for code in dict.fromkeys(obj.code for obj in self._cards):
            self.deck.scaled(code, self._cw, self._ch)

    # ----------------------------------------------------------------- planning

    def __len__(self) -> int:
        return self._n_frames

    @property
    def zones(self) -> Zones:
        return self.layout.zones

    def _frames(self, n: float) -> int:
        return max(1, int(round(n / self.speed)))

    def _new_card(self, code: str, start: int) -> int:
        try:
            code = parse_card(code).code
        except TarotmateError as exc:
            raise SimulatorError(str(exc)) from None
        for obj in self._cards:
            if obj.code == code and obj.gone is None:
                raise SimulatorError(f"card {code} is already on the table")
        self._cards.append(_CardObj(code, appear=start))
        return len(self._cards) - 1

    def _raise(self, ident: int, frame: int) -> None:
        self._z += 1
        self._cards[ident].z.append((frame, self._z))

    def _palm(self, pose, seat: Seat) -> tuple[float, float, float]:
        """The palm holding a card at ``pose`` by its end nearest the seat."""
        x, y, angle = pose
        a = math.radians(angle)
        # the card's own "down" (towards its bottom edge) after rotation clockwise by angle
        dx, dy = -math.sin(a), math.cos(a)
        reach = self.layout.card_h * 0.58
        return (x + dx * reach, y + dy * reach, angle)

    def _carry(self, ident: int, seat: Seat, start: int, target, *, frames: int, tremor_hold: int = 0) -> int:
        """Plan a card carried from the seat's edge to ``target``; returns the rest frame."""
        rng = self._rng
        ex, ey = seat.edge
        p0 = (ex + rng.normal(0, 20), ey + rng.normal(0, 20), seat.angle + rng.uniform(-25, 25))
        end = start + frames
        obj = self._cards[ident]
        obj.segments.append(_Segment(start, end, p0, target, "out"))
        obj.carrier.append((start, end, seat.number))
        self._raise(ident, start)
        return end

    def _retreat(self, seat: Seat, start: int, palm_from) -> int:
        frames = self._frames(self._rng.integers(7, 11))
        ex, ey = seat.edge
        self._hands.append(_HandMove(start, start + frames, seat.number, palm_from, (ex, ey, palm_from[2]), "out"))
        return start + frames

    def _land(self, ident: int, zone: str, rest: int, action: int, expect: bool = True) -> None:
        obj = self._cards[ident]
        x, y, _ = obj.segments[-1].p1
        actual = self.layout.zone_of(x, y)
        if actual != zone:
            raise SimulatorError(f"internal: card {obj.code} meant for {zone} landed in {actual}")
        self._on_table.setdefault(zone, []).append(ident)
        if expect:
            self.expected.append(ExpectedEvent("appeared", rest, zone, obj.code, action))

    def _trick_pose(self, seat: Seat, zone: str) -> tuple[float, float, float]:
        rng = self._rng
        poly = self.layout.zones[zone].pixel_polygon(*self.size)
        cx, cy = poly.mean(0)
        off = self.layout.card_h * rng.uniform(0.38, 0.52)
        tx, ty = seat.toward
        x = cx + tx * off + rng.normal(0, self.layout.card_h * 0.05)
        y = cy + ty * off + rng.normal(0, self.layout.card_h * 0.05)
        return (float(x), float(y), float(seat.angle + rng.uniform(-14, 14)))

    def _row_pose(self, index: int, count: int, zone: str) -> tuple[float, float, float]:
        poly = self.layout.zones[zone].pixel_polygon(*self.size)
        cx, cy = poly.mean(0)
        pitch = self.layout.card_w * 1.12
        x = cx + (index - (count - 1) / 2) * pitch + self._rng.normal(0, 2)
        return (float(x), float(cy + self._rng.normal(0, 3)), float(self._rng.uniform(-4, 4)))

    def _plan(self) -> int:
        frame = 0
        for i, action in enumerate(self.script):
            frame = self._plan_action(i, action, frame)
        return frame + 1

    def _plan_action(self, i: int, action: Action, frame: int) -> int:
        rng = self._rng
        if isinstance(action, Idle):
            if action.frames < 0:
                raise SimulatorError("Idle needs a number of frames >= 0")
            return frame + int(action.frames)
        if isinstance(action, Light):
            if not 0.2 <= action.gain <= 3.0:
                raise SimulatorError(f"light gain {action.gain} is outside 0.2..3.0")
            frames = max(1, int(action.frames))
            self._light.append((frame, frame + frames, self._gain, float(action.gain)))
            self._gain = float(action.gain)
            return frame + frames
        if isinstance(action, Play):
            seat = self.layout.seat(action.seat)
            self._check_zone(action.zone)
            ident = self._new_card(action.card, frame)
            target = self._trick_pose(seat, action.zone)
            rest = self._carry(ident, seat, frame, target, frames=self._frames(rng.integers(12, 17)))
            self._land(ident, action.zone, rest, i)
            end = self._retreat(seat, rest + 1, self._palm(target, seat))
            return end + self._frames(rng.integers(4, 12))
        if isinstance(action, (Lay, Show)):
            seat = self.layout.seat(action.seat)
            codes = list(action.cards)
            if not codes:
                raise SimulatorError(f"{type(action).__name__} needs at least one card")
            zone = seat.zone if isinstance(action, Lay) else action.zone
            self._check_zone(zone)
            for k, code in enumerate(codes):
                ident = self._new_card(code, frame)
                if isinstance(action, Lay):
                    slots = self.layout.seat_slots(seat)
                    used = self._slots_used.get(zone, 0)
                    if used >= len(slots):
                        raise SimulatorError(f"seat {seat.number}'s zone is full ({len(slots)} cards)")
                    self._slots_used[zone] = used + 1
                    x, y, a = slots[used]
                    target = (x + rng.normal(0, 2), y + rng.normal(0, 2), a + rng.uniform(-5, 5))
                else:
                    target = self._row_pose(k, len(codes), zone)
                rest = self._carry(ident, seat, frame, target, frames=self._frames(rng.integers(10, 14)))
                self._land(ident, zone, rest, i)
                frame = self._retreat(seat, rest + 1, self._palm(target, seat)) + self._frames(rng.integers(2, 6))
            return frame + self._frames(rng.integers(4, 10))
        if isinstance(action, Sweep):
            return self._plan_sweep(i, action, frame)
        if isinstance(action, (Move, Take)):
            return self._plan_move(i, action, frame)
        if isinstance(action, Hover):
            seat = self.layout.seat(action.seat)
            self._check_zone(action.zone)
            ident = self._new_card(action.card, frame)
            over = self._trick_pose(seat, action.zone)
            over = (over[0] - seat.toward[0] * 40, over[1] - seat.toward[1] * 40, over[2])
            arrive = self._carry(ident, seat, frame, over, frames=self._frames(rng.integers(12, 17)))
            obj = self._cards[ident]
            hold = max(1, int(action.hold))
            # held over the table: the hand trembles
            obj.segments.append(_Segment(arrive, arrive + hold, over, over, "linear", tremor=3.0))
            obj.carrier.append((arrive, arrive + hold, seat.number))
            back = arrive + hold + self._frames(rng.integers(10, 14))
            ex, ey = seat.edge
            obj.segments.append(_Segment(arrive + hold, back, over, (ex, ey, over[2]), "in"))
            obj.carrier.append((arrive + hold, back, seat.number))
            obj.gone = back + 1
            return back + self._frames(rng.integers(4, 10))
        raise SimulatorError(f"unknown simulator action {action!r}")

    def _plan_move(self, i: int, action: Move | Take, frame: int) -> int:
        rng = self._rng
        seat = self.layout.seat(action.seat)
        taking = isinstance(action, Take)
        if not taking:
            self._check_zone(action.zone)
        code = parse_card(action.card).code
        found = [(zone, k) for zone, ids in self._on_table.items() for k in ids if self._cards[k].code == code]
        if not found:
            raise SimulatorError(f"card {code} is not on the table at action {i + 1}")
        old_zone, ident = found[0]
        self._on_table[old_zone].remove(ident)
        obj = self._cards[ident]
        start_pose = obj.segments[-1].p1
        if taking:
            target = (seat.edge[0], seat.edge[1], start_pose[2])
        elif action.zone == MIDDLE:
            target = self._trick_pose(seat, action.zone)
        else:
            owner = next(s_ for s_ in self.layout.seats if s_.zone == action.zone)
            slots = self.layout.seat_slots(owner)
            used = self._slots_used.get(action.zone, 0)
            if used >= len(slots):
                raise SimulatorError(f"zone {action.zone} is full")
            self._slots_used[action.zone] = used + 1
            x, y, a = slots[used]
            target = (x + rng.normal(0, 2), y + rng.normal(0, 2), a + rng.uniform(-5, 5))
        reach = self._frames(rng.integers(8, 12))
        ex, ey = seat.edge
        palm = self._palm(start_pose, seat)
        self._hands.append(_HandMove(frame, frame + reach, seat.number, (ex, ey, palm[2]), palm, "out"))
        carry = self._frames(rng.integers(12, 17))
        rest = frame + reach + carry
        obj.segments.append(_Segment(frame + reach, rest, start_pose, target, "out"))
        obj.carrier.append((frame + reach, rest, seat.number))
        self._raise(ident, frame + reach)
        if taking:
            obj.gone = rest + 1
            left = self._leave_frame(obj.segments[-1], self.layout.zones[old_zone])
            if self._on_table.get(old_zone):
                self.expected.append(ExpectedEvent("removed", left, old_zone, code, i))
            else:
                self.expected.append(ExpectedEvent("cleared", left, old_zone, None, i))
            return rest + 1 + self._frames(rng.integers(4, 12))
        self._on_table.setdefault(action.zone, []).append(ident)
        self.expected.append(ExpectedEvent("moved", rest, action.zone, code, i))
        end = self._retreat(seat, rest + 1, self._palm(target, seat))
        return end + self._frames(rng.integers(4, 12))

    def _leave_frame(self, seg: _Segment, zone: Zone) -> int:
        """The first frame of ``seg`` at which the card's centre is outside ``zone``."""
        w, h = self.size
        for f in range(seg.start, seg.end + 1):
            x, y, _ = _lerp_pose(seg.p0, seg.p1, _ease((f - seg.start) / max(1, seg.end - seg.start), seg.ease))
            if not zone.contains(x / w, y / h):
                return f
        return seg.end

    def _check_zone(self, zone: str) -> None:
        if zone not in self.layout.zones.names:
            raise SimulatorError(f"no zone {zone!r} on this table (zones: {', '.join(self.layout.zones.names)})")

    def _plan_sweep(self, i: int, action: Sweep, frame: int) -> int:
        rng = self._rng
        self._check_zone(action.zone)
        seat = self.layout.seat(action.seat)
        idents = self._on_table.pop(action.zone, [])
        if not idents:
            raise SimulatorError(f"nothing to sweep in zone {action.zone!r} at action {i + 1}")
        if action.zone.startswith("seat"):
            self._slots_used.pop(action.zone, None)
        poses = [self._cards[k].segments[-1].p1 for k in idents]
        px = float(np.mean([p[0] for p in poses]))
        py = float(np.mean([p[1] for p in poses]))
        pile = (px, py, seat.angle + rng.uniform(-10, 10))
        reach = self._frames(rng.integers(8, 12))
        gather = self._frames(rng.integers(5, 8))
        away = self._frames(rng.integers(10, 14))
        # the hand reaches the pile, the cards gather under it, then leave together
        ex, ey = seat.edge
        palm_pile = self._palm(pile, seat)
        self._hands.append(_HandMove(frame, frame + reach, seat.number, (ex, ey, pile[2]), palm_pile, "out"))
        g0 = frame + reach
        g1 = g0 + gather
        out_pose = (ex, ey, pile[2])
        for order, k in enumerate(idents):
            obj = self._cards[k]
            obj.segments.append(_Segment(g0, g1, obj.segments[-1].p1, pile, "inout"))
            obj.segments.append(_Segment(g1, g1 + away, pile, out_pose, "in"))
            obj.carrier.append((g1, g1 + away, seat.number))
            obj.gone = g1 + away + 1
        self._hands.append(_HandMove(g0, g1, seat.number, palm_pile, palm_pile, "linear"))
        # the zone is empty at the first frame where no swept card's centre lies inside it
        emptied = g1 + away
        zone = self.layout.zones[action.zone]
        w, h = self.size
        for f in range(g1, g1 + away + 1):
            u = _ease((f - g1) / away, "in")
            x, y, _ = _lerp_pose(pile, out_pose, u)
            if not zone.contains(x / w, y / h):
                emptied = f
                break
        self.expected.append(ExpectedEvent("cleared", emptied, action.zone, None, i))
        return g1 + away + self._frames(rng.integers(6, 14))

    # ----------------------------------------------------------------- state at a frame

    def _pose(self, obj: _CardObj, f: int, ident: int) -> tuple[tuple[float, float, float], bool] | None:
        if f < obj.appear or (obj.gone is not None and f >= obj.gone):
            return None
        last = None
        for k, seg in enumerate(obj.segments):
            if f < seg.start:
                break
            if f == seg.end and k + 1 < len(obj.segments) and obj.segments[k + 1].start == f:
                last = seg
                continue  # the next movement starts at once
            if f <= seg.end:
                span = max(1, seg.end - seg.start)
                u = _ease((f - seg.start) / span, seg.ease)
                pose = _lerp_pose(seg.p0, seg.p1, u)
                moving = f > seg.start or seg.p0 != seg.p1
                if f == seg.end and seg.tremor == 0:
                    # at rest unless the next segment starts moving it now
                    moving = False
                if seg.tremor:
                    dx, dy = _tremor(f, ident, seg.tremor)
                    pose = (pose[0] + dx, pose[1] + dy, pose[2])
                    moving = True
                return pose, moving
            last = seg
        if last is None:
            return None
        return last.p1, False

    def _z_of(self, obj: _CardObj, f: int) -> int:
        z = 0
        for start, order in obj.z:
            if start <= f:
                z = order
        return z

    def _carried_by(self, obj: _CardObj, f: int) -> int | None:
        for start, end, seat in obj.carrier:
            if start <= f <= end:
                return seat
        return None

    def _gain_at(self, f: int) -> float:
        g = 1.0
        for start, end, g0, g1 in self._light:
            if f >= end:
                g = g1
            elif f >= start:
                g = g0 + (g1 - g0) * (f - start) / max(1, end - start)
        return g

    def _hands_at(self, f: int, carried: list[tuple[int, tuple]]) -> list[tuple[int, tuple[float, float, float]]]:
        """(seat, palm pose) of every hand over the table at frame f."""
        hands = []
        busy = set()
        for seat_no, pose in carried:
            hands.append((seat_no, self._palm(pose, self.layout.seat(seat_no))))
            busy.add(seat_no)
        for hm in self._hands:
            if hm.start <= f <= hm.end and hm.seat not in busy:
                u = _ease((f - hm.start) / max(1, hm.end - hm.start), hm.ease)
                hands.append((hm.seat, _lerp_pose(hm.p0, hm.p1, u)))
                busy.add(hm.seat)
        return hands

    # ----------------------------------------------------------------- rendering

    def background(self) -> np.ndarray:
        if self._background is None:
            self._background = _make_background(self.size, self.seed, self._background_path)
        return self._background

    def _card_matrix(self, pose, ox: float = 0.0, oy: float = 0.0) -> np.ndarray:
        x, y, angle = pose
        m = cv2.getRotationMatrix2D((self._cw / 2, self._ch / 2), -angle, 1.0)
        m[0, 2] += x - self._cw / 2 - ox
        m[1, 2] += y - self._ch / 2 - oy
        return m

    def corners(self, pose) -> np.ndarray:
        """The four corners of a card at ``pose`` (clockwise from its top-left)."""
        m = self._card_matrix(pose)
        src = np.array([[0, 0, 1], [self._cw, 0, 1], [self._cw, self._ch, 1], [0, self._ch, 1]], np.float64)
        return (src @ m.T).astype(np.float32)

    def _draw_card(self, canvas: np.ndarray, alpha: np.ndarray | None, code: str, pose, ox: int, oy: int, shadow: bool) -> None:
        """Composite one card onto ``canvas`` (uint8 BGR whose origin is (ox, oy))."""
        h, w = canvas.shape[:2]
        m = self._card_matrix(pose, ox, oy)
        pts = self.corners(pose) - (ox, oy)
        x0, y0 = np.floor(pts.min(0)).astype(int) - 8
        x1, y1 = np.ceil(pts.max(0)).astype(int) + 8
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            return
        m[0, 2] -= x0
        m[1, 2] -= y0
        face = self.deck.scaled(code, self._cw, self._ch)
        size = (x1 - x0, y1 - y0)
        img = cv2.warpAffine(face, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        a = cv2.warpAffine(self._card_alpha, m, size, flags=cv2.INTER_LINEAR, borderValue=0)
        roi = canvas[y0:y1, x0:x1]
        if shadow:
            ms = m.copy()
            ms[0, 2] += 3
            ms[1, 2] += 4
            sa = cv2.warpAffine(self._card_alpha, ms, size, flags=cv2.INTER_LINEAR, borderValue=0)
            sa = cv2.GaussianBlur(sa, (0, 0), 2.5) * 0.35
            roi[:] = (roi.astype(np.float32) * (1 - sa[..., None])).astype(np.uint8)
        a3 = a[..., None]
        roi[:] = (roi.astype(np.float32) * (1 - a3) + img.astype(np.float32) * a3 + 0.5).astype(np.uint8)
        if alpha is not None:
            np.maximum(alpha[y0:y1, x0:x1], a, out=alpha[y0:y1, x0:x1])

    def _hand_shapes(self, seat_no: int, palm) -> tuple[np.ndarray, tuple[float, float], tuple[float, float], float]:
        seat = self.layout.seat(seat_no)
        px, py, angle = palm
        ex, ey = seat.edge
        dx, dy = ex - px, ey - py
        n = math.hypot(dx, dy) or 1.0
        nx, ny = -dy / n, dx / n
        arm_w = self.layout.card_h * 0.2
        arm = np.array(
            [[px + nx * arm_w, py + ny * arm_w], [ex + nx * arm_w * 1.3, ey + ny * arm_w * 1.3],
             [ex - nx * arm_w * 1.3, ey - ny * arm_w * 1.3], [px - nx * arm_w, py - ny * arm_w]],
            np.float32,
        )
        axes = (self.layout.card_h * 0.26, self.layout.card_h * 0.19)
        return arm, (px, py), axes, math.degrees(math.atan2(dy, dx))

    def _draw_hand(self, canvas: np.ndarray, alpha: np.ndarray, seat_no: int, palm, ox: int, oy: int) -> None:
        arm, (px, py), axes, direction = self._hand_shapes(seat_no, palm)
        skin = _SKIN[(seat_no - 1) % len(_SKIN)]
        sleeve = _SLEEVE[(seat_no - 1) % len(_SLEEVE)]
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

    def _hand_mask_points(self, seat_no: int, palm) -> list[np.ndarray]:
        arm, (px, py), axes, direction = self._hand_shapes(seat_no, palm)
        ell = cv2.ellipse2Poly((int(px), int(py)), (int(axes[0] * 1.5), int(axes[1] * 1.2)), int(direction), 0, 360, 20)
        return [arm, ell.astype(np.float32)]

    def _static_layer(self, resting: list[tuple[int, int, tuple]]) -> np.ndarray:
        img = self.background().copy()
        for _, ident, pose in resting:
            self._draw_card(img, None, self._cards[ident].code, pose, 0, 0, shadow=True)
        return img

    def frames(self) -> Iterator[SimFrame]:
        """Render every frame in order (a generator: nothing is kept but the static layer)."""
        w, h = self.size
        rng = np.random.default_rng(self.seed + 7)
        noise = []
        if self.noise > 0:
            for _ in range(3):
                n = rng.normal(0, self.noise, (h, w, 3)).astype(np.float32)
                noise.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))
        static_key = None
        static = None
        prev_poses: dict[int, tuple] = {}
        for f in range(self._n_frames):
            resting, moving, carried = [], [], []
            for ident, obj in enumerate(self._cards):
                state = self._pose(obj, f, ident)
                if state is None:
                    continue
                pose, is_moving = state
                z = self._z_of(obj, f)
                seat = self._carried_by(obj, f)
                if seat is not None:
                    carried.append((seat, pose))
                if is_moving:
                    moving.append((z, ident, pose))
                else:
                    resting.append((z, ident, pose))
            resting.sort()
            moving.sort()
            key = tuple((ident, pose) for _, ident, pose in resting)
            if key != static_key:
                static = self._static_layer(resting)
                static_key = key
            image = static.copy()
            # one hand per seat: the first carried card of a seat decides the palm
            by_seat: dict[int, tuple] = {}
            for seat_no, pose in carried:
                by_seat.setdefault(seat_no, pose)
            hands = self._hands_at(f, list(by_seat.items()))
            if moving or hands:
                self._composite_moving(image, moving, hands, prev_poses)
            prev_poses = {ident: pose for _, ident, pose in moving}
            g = self._gain_at(f)
            if abs(g - 1.0) > 1e-3:
                image = cv2.convertScaleAbs(image, alpha=g)
            if noise:
                pos, neg = noise[f % len(noise)]
                cv2.add(image, pos, dst=image)
                cv2.subtract(image, neg, dst=image)
            truth = self._truth(resting, moving, hands)
            yield SimFrame(image, f, f / self.fps, truth, len(hands))

    def _composite_moving(self, image, moving, hands, prev_poses) -> None:
        w, h = self.size
        pts = []
        for _, ident, pose in moving:
            pts.append(self.corners(pose))
        for seat_no, palm in hands:
            arm, (px, py), axes, _ = self._hand_shapes(seat_no, palm)
            pts.append(arm)
            r = axes[0] * 1.6
            pts.append(np.array([[px - r, py - r], [px + r, py + r]], np.float32))
        allp = np.concatenate(pts)
        x0, y0 = np.floor(allp.min(0)).astype(int) - 12
        x1, y1 = np.ceil(allp.max(0)).astype(int) + 12
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            return
        layer = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
        alpha = np.zeros((y1 - y0, x1 - x0), np.float32)
        speed = 0.0
        vx = vy = 0.0
        for _, ident, pose in moving:
            self._draw_card(layer, alpha, self._cards[ident].code, pose, x0, y0, shadow=False)
            if ident in prev_poses:
                p = prev_poses[ident]
                dx, dy = pose[0] - p[0], pose[1] - p[1]
                if math.hypot(dx, dy) > speed:
                    speed, vx, vy = math.hypot(dx, dy), dx, dy
        for seat_no, palm in hands:
            self._draw_hand(layer, alpha, seat_no, palm, x0, y0)
        kx = int(abs(vx) * self.blur) | 1
        ky = int(abs(vy) * self.blur) | 1
        lf = layer.astype(np.float32) * alpha[..., None]
        if kx > 1 or ky > 1:
            lf = cv2.blur(lf, (kx, ky))
            alpha = cv2.blur(alpha, (kx, ky))
        roi = image[y0:y1, x0:x1]
        a3 = alpha[..., None]
        roi[:] = np.clip(roi.astype(np.float32) * (1 - a3) + lf + 0.5, 0, 255).astype(np.uint8)

    def _truth(self, resting, moving, hands) -> tuple[CardTruth, ...]:
        """Visibility of every card at quarter resolution, from the top of the pile down."""
        w, h = self.size
        s = 0.25
        occupied = np.zeros((int(h * s) + 1, int(w * s) + 1), np.uint8)
        for seat_no, palm in hands:
            for poly in self._hand_mask_points(seat_no, palm):
                cv2.fillPoly(occupied, [np.round(poly * s).astype(np.int32)], 1)
        stack = [(ident, pose, True) for _, ident, pose in reversed(moving)]
        stack += [(ident, pose, False) for _, ident, pose in reversed(resting)]
        out = []
        for ident, pose, is_moving in stack:
            corners = self.corners(pose)
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
            zone = self.layout.zone_of(float(centre[0]), float(centre[1]))
            out.append(CardTruth(self._cards[ident].code, corners, is_moving, visible, n_vis, zone))
        out.reverse()  # bottom of the pile first
        return tuple(out)


def _rounded_alpha(w: int, h: int, radius: int) -> np.ndarray:
    a = np.zeros((h, w), np.float32)
    cv2.rectangle(a, (radius, 0), (w - 1 - radius, h - 1), 1.0, -1)
    cv2.rectangle(a, (0, radius), (w - 1, h - 1 - radius), 1.0, -1)
    for cx, cy in ((radius, radius), (w - 1 - radius, radius), (radius, h - 1 - radius), (w - 1 - radius, h - 1 - radius)):
        cv2.circle(a, (cx, cy), radius, 1.0, -1, cv2.LINE_AA)
    return a


def _make_background(size: tuple[int, int], seed: int, path: str | Path | None) -> np.ndarray:
    w, h = size
    if path is not None:
        tex = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if tex is None:
            raise SimulatorError(f"cannot read background image {path}")
        if tex.shape[0] < 200:  # a small tile: repeat it
            reps = (h // tex.shape[0] + 1, w // tex.shape[1] + 1, 1)
            tex = np.tile(tex, reps)[:h, :w]
        img = cv2.resize(tex, (w, h), interpolation=cv2.INTER_AREA)
    else:
        rng = np.random.default_rng(seed + 1)
        base = np.array([52, 105, 38], np.float32)
        low = cv2.resize(rng.normal(0, 1, (9, 16)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.2)
        shade = 1 + 0.06 * low + 0.05 * fine
        img = np.clip(base[None, None, :] * shade[..., None], 0, 255)
    # a lamp above the middle: a soft vignette
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r = ((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2
    vignette = 1.08 - 0.5 * r
    return np.clip(img.astype(np.float32) * vignette[..., None], 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------- scripts


def _next_seat(seat: int, players: int) -> int:
    return seat % players + 1


def french_deal_script(
    tricks: Sequence[Trick | tuple[int, Sequence[str], int]],
    *,
    players: int = 4,
    chien: Sequence[str] = (),
    taker: int | None = None,
    idle: int = 10,
) -> list[Action]:
    """The script of a French tarot deal: the chien shown by ``taker`` (if given)
    and taken, then each trick played from its leader in turn order and swept
    to its winner. Tricks are ``Trick`` or ``(leader, cards, winner)``."""
    script: list[Action] = [Idle(idle)]
    if chien:
        if taker is None:
            raise SimulatorError("showing the chien needs the taker's seat")
        script += [Show(taker, tuple(chien)), Idle(idle), Sweep(MIDDLE, taker), Idle(idle)]
    for n, t in enumerate(tricks, 1):
        leader, cards, winner = (t.leader, t.cards, t.winner) if isinstance(t, Trick) else t
        if len(cards) != players:
            raise SimulatorError(f"trick {n} has {len(cards)} cards for {players} players")
        seat = leader
        for code in cards:
            script.append(Play(seat, code))
            seat = _next_seat(seat, players)
        script += [Idle(idle), Sweep(MIDDLE, winner), Idle(idle)]
    return script


def trivium_script(groups: Sequence[tuple[int, Sequence[str]]], *, idle: int = 10) -> list[Action]:
    """The script of tercias laid down: each ``(seat, cards)`` is laid in that seat's zone."""
    script: list[Action] = [Idle(idle)]
    for seat, cards in groups:
        script += [Lay(seat, tuple(cards)), Idle(idle)]
    return script


def random_tricks(n: int, players: int = 4, seed: int = 0) -> list[Trick]:
    """``n`` tricks of distinct random cards with random winners (for tests and benchmarks)."""
    rng = np.random.default_rng(seed)
    if n * players > len(CODES):
        raise SimulatorError(f"{n} tricks of {players} cards need more than 78 cards")
    codes = [CODES[i] for i in rng.permutation(len(CODES))[: n * players]]
    leader = 1
    tricks = []
    for k in range(n):
        winner = int(rng.integers(1, players + 1))
        tricks.append(Trick(leader, tuple(codes[k * players:(k + 1) * players]), winner))
        leader = winner
    return tricks


def trick_script(players: int = 4, seed: int = 0, tricks: int = 1) -> list[Action]:
    """A short scene: ``tricks`` random tricks played and swept (the ``sim`` source)."""
    return french_deal_script(random_tricks(tricks, players, seed), players=players)


# --------------------------------------------------------------------------- ground-truth recognition


class TruthNaming(NamedTuple):
    card: str | None
    confidence: float
    embedding: object = None


class GroundTruthRecogniser:
    """A stand-in for card recognition that reads the simulator's ground truth.

    It lets the tracker's logic be tested and measured apart from the
    recogniser: ``localise`` reports the cards of the frame being rendered
    that a contour-based localiser could see (at least ``min_visible`` of the
    card and three corners uncovered), with ``jitter`` pixels of noise;
    ``crop`` identifies the card under a quad; ``name`` returns it with
    ``confidence`` (or ``low_confidence`` for the codes in ``doubtful``).
    """

    def __init__(self, simulator: TableSimulator, *, confidence: float = 0.97, min_visible: float = 0.6,
                 jitter: float = 0.4, doubtful: Sequence[str] = (), low_confidence: float = 0.35, seed: int = 0):
        self.simulator = simulator
        self.confidence = confidence
        self.min_visible = min_visible
        self.jitter = jitter
        self.doubtful = set(doubtful)
        self.low_confidence = low_confidence
        self.current: SimFrame | None = None
        self.crops_named = 0
        self._rng = np.random.default_rng(seed)

    def frames(self) -> Iterator[SimFrame]:
        """The simulator's frames, remembered so that the other calls can read their truth."""
        for frame in self.simulator.frames():
            self.current = frame
            yield frame

    def localise(self, image: np.ndarray) -> list[np.ndarray]:
        if self.current is None:
            return []
        quads = []
        for t in self.current.cards:
            if t.visible >= self.min_visible and t.corners_visible >= 3:
                q = t.corners + self._rng.normal(0, self.jitter, (4, 2)).astype(np.float32)
                quads.append(q.astype(np.float32))
        return quads

    def crop(self, image: np.ndarray, quad: np.ndarray) -> str | None:
        if self.current is None:
            return None
        centre = np.asarray(quad).mean(0)
        best, dist = None, 1e9
        for t in self.current.cards:
            d = float(np.hypot(*(t.corners.mean(0) - centre)))
            if d < dist:
                best, dist = t.code, d
        return best if dist < self.simulator.layout.card_w * 0.3 else None

    def name(self, crops: Sequence[str | None]) -> list[TruthNaming]:
        self.crops_named += len(crops)
        out = []
        for code in crops:
            if code is None:
                out.append(TruthNaming(None, 0.9))
            elif code in self.doubtful:
                out.append(TruthNaming(code, self.low_confidence))
            else:
                out.append(TruthNaming(code, self.confidence))
        return out


# --------------------------------------------------------------------------- scoring


@dataclass
class EventScore:
    """How a list of table events compares with the simulator's expected events."""

    right: int = 0
    wrong: int = 0  # a card event that named another card
    uncertain: int = 0  # an expected card reported as ``uncertain``: a person is asked
    missed: int = 0
    spurious: int = 0
    cleared_right: int = 0
    cleared_missed: int = 0
    in_order: bool = True
    latencies: list[int] = field(default_factory=list)  # frames from rest to the card event
    cleared_latencies: list[int] = field(default_factory=list)
    details: list[str] = field(default_factory=list)

    @property
    def expected_cards(self) -> int:
        return self.right + self.wrong + self.uncertain + self.missed


def _candidates(e: ExpectedEvent, events: Sequence, used: set[int], window: int) -> list[int]:
    kinds = ("appeared", "uncertain", "moved") if e.type in ("appeared", "moved") else (e.type,)
    return [
        i for i, a in enumerate(events)
        if i not in used and a.type in kinds and a.zone == e.zone and e.frame - 2 <= a.frame <= e.frame + window
    ]


def score_events(expected: Sequence[ExpectedEvent], events: Sequence, window: int = 60) -> EventScore:
    """Match events to expected ones: same kind and zone, from 2 frames before the
    expected frame to ``window`` frames after it. Events naming the expected card
    are matched first; an expected card left over takes the earliest remaining
    event (an ``uncertain`` or a wrong one), or is missed."""
    score = EventScore()
    used: set[int] = set()
    matches: dict[int, int] = {}
    for k, e in enumerate(expected):
        if e.card is not None:
            same = [i for i in _candidates(e, events, used, window) if events[i].card == e.card and events[i].type != "uncertain"]
            if same:
                matches[k] = same[0]
                used.add(same[0])
    for k, e in enumerate(expected):
        if k not in matches:
            rest = _candidates(e, events, used, window)
            if rest:
                matches[k] = rest[0]
                used.add(rest[0])
    order: list[int] = []
    for k, e in enumerate(expected):
        match = matches.get(k)
        if match is None:
            if e.type == "cleared":
                score.cleared_missed += 1
            else:
                score.missed += 1
            score.details.append(f"missed {e.type} {e.card or ''} in {e.zone} (rest at frame {e.frame})")
            continue
        a = events[match]
        if e.type == "cleared":
            score.cleared_right += 1
            score.cleared_latencies.append(a.frame - e.frame)
            continue
        order.append(match)
        if a.type == "uncertain":
            score.uncertain += 1
            score.details.append(f"uncertain for {e.card} at frame {a.frame}")
        elif a.card == e.card and a.type == e.type:
            score.right += 1
            score.latencies.append(a.frame - e.frame)
        else:
            score.wrong += 1
            score.details.append(f"wrong: {a.type} {a.card} for {e.type} {e.card} at frame {a.frame}")
    score.in_order = order == sorted(order)
    for i, a in enumerate(events):
        if i not in used:
            score.spurious += 1
            score.details.append(f"spurious {a.type} {a.card or ''} in {a.zone} at frame {a.frame}")
    return score

"""The simulator's timeline: a script planned once into card and hand movements.

Planning turns each action of a script (:mod:`vision.simulator.actions`) into
segments of movement: a card carried from its seat's edge to where it lands,
gathered with its trick and taken away, a hand reaching in and retreating, the
light changing. It records the events a tracker should report
(:class:`vision.simulator.truth.ExpectedEvent`). :meth:`Timeline.at` then says,
for any frame, where every card is, whether it moves and which seat carries it.

Cards are carried by a hand from their seat's edge and land with a small
random rotation and offset, overlapping the cards already in the trick; all
randomness comes from the one generator given, so a seed fixes the timeline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

import numpy as np

from engine.cards import card as parse_card
from engine.errors import TarotmateError
from vision.simulator.actions import Action, Hover, Idle, Lay, Light, Move, Play, Show, Sweep, Take
from vision.simulator.conditions import EASY, SimConditions
from vision.simulator.errors import SimulatorError
from vision.simulator.hands import palm_pose
from vision.simulator.layout import Pose, Seat, TableLayout
from vision.simulator.truth import ExpectedEvent
from vision.zones import MIDDLE, Zone


@dataclass
class _Segment:
    start: int
    end: int  # at ``end`` the card is at p1
    p0: Pose  # x, y, angle
    p1: Pose
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
    p0: Pose  # palm x, y, angle
    p1: Pose
    ease: str = "in"


class Placed(NamedTuple):
    """A card on the table at one frame: stacking order, identity, code, pose."""

    z: int
    ident: int
    code: str
    pose: Pose


def ease(t: float, kind: str) -> float:
    t = min(1.0, max(0.0, t))
    if kind == "out":
        return 1 - (1 - t) ** 3
    if kind == "in":
        return t * t
    if kind == "inout":
        return 3 * t * t - 2 * t * t * t
    return t


def lerp_pose(p0: Pose, p1: Pose, u: float) -> Pose:
    da = (p1[2] - p0[2] + 180) % 360 - 180
    return (p0[0] + (p1[0] - p0[0]) * u, p0[1] + (p1[1] - p0[1]) * u, p0[2] + da * u)


def _tremor(frame: int, ident: int, amplitude: float) -> tuple[float, float]:
    if amplitude <= 0:
        return 0.0, 0.0
    r = np.random.default_rng((frame * 7919 + ident * 104729) & 0xFFFFFFFF)
    dx, dy = r.uniform(-amplitude, amplitude, 2)
    return float(dx), float(dy)


class Timeline:
    """``script`` planned on ``layout`` with the random generator ``rng``;
    ``speed`` scales how fast the hands move (2.0: twice as fast); ``conditions``
    say how close to the pile's centre cards land and how long hands linger."""

    def __init__(self, script: Sequence[Action], layout: TableLayout, rng: np.random.Generator, speed: float = 1.0,
                 conditions: SimConditions = EASY):
        self.layout = layout
        self.conditions = conditions
        self.size = layout.size
        self.speed = float(speed)
        self._rng = rng
        self._cards: list[_CardObj] = []
        self._hands: list[_HandMove] = []
        self._light: list[tuple[int, int, float, float]] = []  # (start, end, g0, g1)
        self.expected: list[ExpectedEvent] = []
        self._z = 0
        self._gain = 1.0
        self._on_table: dict[str, list[int]] = {}  # zone -> card object ids resting there
        self._slots_used: dict[str, int] = {}
        self.script = list(script)
        self.frames = 0
        for i, action in enumerate(self.script):
            self.frames = self._plan_action(i, action, self.frames)
        self.frames += 1

    def __len__(self) -> int:
        return self.frames

    @property
    def codes(self) -> list[str]:
        """Every card the script puts on the table, in order of first appearance."""
        return list(dict.fromkeys(obj.code for obj in self._cards))

    # ----------------------------------------------------------------- planning

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

    def _palm(self, pose: Pose, seat: Seat) -> Pose:
        return palm_pose(pose, seat, self.layout.card_h)

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

    def _linger(self, seat: Seat, start: int, palm: Pose) -> tuple[int, Pose]:
        """A hand that let go of its card draws back a little and stays over the trick a while
        (``conditions.linger`` frames); returns when and from where it retreats."""
        low, high = self.conditions.linger
        if high <= 0:
            return start, palm
        frames = int(self._rng.integers(low, high + 1))
        draw_back = self.layout.card_h * 0.4
        held = (palm[0] + seat.toward[0] * draw_back, palm[1] + seat.toward[1] * draw_back, palm[2])
        move = self._frames(4)
        self._hands.append(_HandMove(start, start + move, seat.number, palm, held, "out"))
        self._hands.append(_HandMove(start + move, start + move + frames, seat.number, held, held, "linear"))
        return start + move + frames + 1, held

    def _land(self, ident: int, zone: str, rest: int, action: int, expect: bool = True) -> None:
        obj = self._cards[ident]
        x, y, _ = obj.segments[-1].p1
        actual = self.layout.zone_of(x, y)
        if actual != zone:
            raise SimulatorError(f"internal: card {obj.code} meant for {zone} landed in {actual}")
        self._on_table.setdefault(zone, []).append(ident)
        if expect:
            self.expected.append(ExpectedEvent("appeared", rest, zone, obj.code, action))

    def _trick_pose(self, seat: Seat, zone: str) -> Pose:
        rng = self._rng
        poly = self.layout.zones[zone].pixel_polygon(*self.size)
        cx, cy = poly.mean(0)
        off = self.layout.card_h * rng.uniform(*self.conditions.trick_offset)
        tx, ty = seat.toward
        x = cx + tx * off + rng.normal(0, self.layout.card_h * 0.05)
        y = cy + ty * off + rng.normal(0, self.layout.card_h * 0.05)
        return (float(x), float(y), float(seat.angle + rng.uniform(-14, 14)))

    def _row_pose(self, index: int, count: int, zone: str) -> Pose:
        poly = self.layout.zones[zone].pixel_polygon(*self.size)
        cx, cy = poly.mean(0)
        pitch = self.layout.card_w * 1.12
        x = cx + (index - (count - 1) / 2) * pitch + self._rng.normal(0, 2)
        return (float(x), float(cy + self._rng.normal(0, 3)), float(self._rng.uniform(-4, 4)))

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
            self.layout.check_zone(action.zone)
            ident = self._new_card(action.card, frame)
            target = self._trick_pose(seat, action.zone)
            rest = self._carry(ident, seat, frame, target, frames=self._frames(rng.integers(12, 17)))
            self._land(ident, action.zone, rest, i)
            end = self._retreat(seat, *self._linger(seat, rest + 1, self._palm(target, seat)))
            return end + self._frames(rng.integers(4, 12))
        if isinstance(action, (Lay, Show)):
            seat = self.layout.seat(action.seat)
            codes = list(action.cards)
            if not codes:
                raise SimulatorError(f"{type(action).__name__} needs at least one card")
            zone = seat.zone if isinstance(action, Lay) else action.zone
            self.layout.check_zone(zone)
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
            self.layout.check_zone(action.zone)
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
            self.layout.check_zone(action.zone)
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
            x, y, _ = lerp_pose(seg.p0, seg.p1, ease((f - seg.start) / max(1, seg.end - seg.start), seg.ease))
            if not zone.contains(x / w, y / h):
                return f
        return seg.end

    def _plan_sweep(self, i: int, action: Sweep, frame: int) -> int:
        rng = self._rng
        self.layout.check_zone(action.zone)
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
            u = ease((f - g1) / away, "in")
            x, y, _ = lerp_pose(pile, out_pose, u)
            if not zone.contains(x / w, y / h):
                emptied = f
                break
        self.expected.append(ExpectedEvent("cleared", emptied, action.zone, None, i))
        return g1 + away + self._frames(rng.integers(6, 14))

    # ----------------------------------------------------------------- state at a frame

    def at(self, f: int) -> tuple[list[Placed], list[Placed], list[tuple[int, Pose]]]:
        """(resting, moving, carried) at frame ``f``: cards at rest and cards moving, each
        from the bottom of the pile up, and ``(seat, pose)`` of every card a hand holds."""
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
            (moving if is_moving else resting).append(Placed(z, ident, obj.code, pose))
        resting.sort()
        moving.sort()
        return resting, moving, carried

    def _pose(self, obj: _CardObj, f: int, ident: int) -> tuple[Pose, bool] | None:
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
                u = ease((f - seg.start) / span, seg.ease)
                pose = lerp_pose(seg.p0, seg.p1, u)
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

    def gain_at(self, f: int) -> float:
        """The light's gain at frame ``f`` (1.0 at the start)."""
        g = 1.0
        for start, end, g0, g1 in self._light:
            if f >= end:
                g = g1
            elif f >= start:
                g = g0 + (g1 - g0) * (f - start) / max(1, end - start)
        return g

    def hands_at(self, f: int, carried: list[tuple[int, Pose]]) -> list[tuple[int, Pose]]:
        """(seat, palm pose) of every hand over the table at frame f; the first card a
        seat carries decides its palm."""
        hands = []
        busy = set()
        for seat_no, pose in carried:
            if seat_no in busy:
                continue
            hands.append((seat_no, self._palm(pose, self.layout.seat(seat_no))))
            busy.add(seat_no)
        for hm in self._hands:
            if hm.start <= f <= hm.end and hm.seat not in busy:
                u = ease((f - hm.start) / max(1, hm.end - hm.start), hm.ease)
                hands.append((hm.seat, lerp_pose(hm.p0, hm.p1, u)))
                busy.add(hm.seat)
        return hands

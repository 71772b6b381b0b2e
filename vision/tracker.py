"""From a stream of frames to table events: the tracker.

Per frame, in order:

1. **Motion** (always, ~1 ms): the frame is reduced to a small grey image
   (``motion_width`` pixels wide), its brightness matched to the previous one
   (so that a lamp dimming is not motion), and differenced with it; only
   pixels inside the zones count.
2. **Localisation** (only while something moves, for ``quiet_frames`` after,
   and while a card is still being decided): the localiser gives card quads;
   a quad whose centre lies in no zone is dropped.
3. **Association**: quads are matched to tracks by corner distance, nearest
   first (a card at rest keeps its track; a card moved slowly is followed; a
   card whose own quad was not found does not take its neighbour's). Once a
   card is named, its size is known: a quad ``row_area`` times as large and as
   tall as a card is long is a row of cards laid side by side (a chien), cut
   into card-sized pieces snapped to the cards' edges; any other quad
   ``max_area`` times as large spans several cards and is left out.
4. **Naming** (only for a card that is new or has changed, and is still): a
   card is *still* when its quad has stayed within ``jitter`` x
   ``still_tolerance`` and no motion touched it for ``settle_frames``
   localisations. It is then named on each following frame until the votes
   agree (``min_votes`` confident votes for one card, no confident vote for
   another, no view putting another card first with ``rival`` or more, and a
   mean score ``min_margin`` times the next card's; ``piece_margin`` through a
   piece of a row) or ``votes`` are spent; views that all put one card first,
   none confident on its own, name it when its mean score reaches
   ``evidence_score`` and ``evidence_margin`` times the next card's.
   Agreement gives ``appeared``; a split or weak vote gives ``uncertain``
   (never a silent guess); a majority of "not a card face" gives nothing. A
   card that only moved, or was only glimpsed under a hand, is never named,
   so it never makes an event; one hidden while it is being named keeps its
   votes, and lost for good it is named (enough confident views), asked (too
   few) or dropped (no confident view). Cards are laid one at a time: of two
   overlapping quads found at one landing (born within ``landing`` frames),
   the clearer is decided first and the other then dropped; an unclear quad
   lying ``inside_pile`` on the cards already reported, or whose best
   candidate is a card already named that it overlaps, is another view of
   the pile, never a question.
5. **Disappearance**: a named card that is no longer found while its place is
   still, looks different and is not covered by cards laid after it is
   missing; after ``lost_frames`` such localisations, once its zone is quiet
   and no card is being decided, the zone's missing cards are ``cleared``
   together when they were all of it (two or more: one event, no
   ``removed``), otherwise each is ``removed`` after ``removal_wait`` frames.
   A card named again elsewhere while its old place is empty is ``moved``.

The localiser, the cropper and the namer are injectable, so the logic can be
tested with stand-ins; by default they are :func:`vision.localise.find_cards`,
:func:`vision.warp.warp_card` and :meth:`vision.namer.Namer.load`.

**Possible cards.** Whoever knows the game may tell the tracker which cards
can appear now (:attr:`Tracker.possible`, a :class:`vision.possible.PossibleCards`
or ``None`` for any card). The namer's probabilities are then rescored with
those weights before anything else reads them: votes, thresholds and the
candidates of ``uncertain`` work on the rescored scores, the cards lying on
the table stay possible (they may be moved), and a crop whose namer
probability lies mostly on excluded cards (under ``min_support``) is never
named: it becomes ``uncertain`` with possible candidates.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

import cv2
import numpy as np

from vision.events import APPEARED, CLEARED, MOVED, REMOVED, UNCERTAIN, TableEvent, corners_list
from vision.possible import UNKNOWN_LABEL, PossibleCards, spread_naming
from vision.sources import Frame
from vision.zones import Zones, default_zones

Quad = np.ndarray
Localiser = Callable[[np.ndarray], Sequence[Quad]]
Cropper = Callable[[np.ndarray, Quad], Any]


class CardNamer(Protocol):
    """What the tracker needs from a namer: one result (``.card``, ``.confidence``) per crop."""

    def name(self, crops: Sequence[Any]) -> Sequence[Any]: ...


@dataclass(frozen=True)
class TrackerSettings:
    """The tracker's tuning; distances are fractions of the frame width."""

    motion_width: int = 160  # width of the grey image used for frame differencing
    motion_threshold: float = 12.0  # grey-level change (after brightness matching) that is motion
    motion_pixels: int = 2  # changed small pixels that make a region "moving"
    quiet_frames: int = 3  # keep localising this many frames after the last motion
    settle_frames: int = 2  # localisations with an unchanged quad before a card is named
    still_tolerance: float = 0.006  # corner drift allowed for a card at rest (~8 px at 1280)
    jitter: float = 2.5  # times ``still_tolerance``: how far a motionless card's quad may wobble and stay still
    follow_tolerance: float = 0.05  # corner drift between two frames for the same track (~64 px)
    move_distance: float = 1.0  # a named card that comes to rest this many card widths away (same size): moved
    votes: int = 3  # most namings spent on one card
    min_votes: int = 2  # agreeing confident votes that name a card
    min_confidence: float = 0.6  # mean confidence of the winning votes
    min_margin: float = 3.0  # the named card's mean score over the next card's, over the views
    piece_margin: float = 8.0  # the same for a card seen only through a piece cut from a row
    rival: float = 0.3  # a view that puts another card first with this score makes a confident naming a question
    evidence_score: float = 0.45  # without such votes: the mean score of a card every still view puts first...
    evidence_margin: float = 4.0  # ... and how many times the next card's it must be, to name it
    lost_frames: int = 2  # still, uncovered localisations without a named card before it is lost
    occlusion: float = 0.05  # a lost card this much covered by cards laid after it is hidden, not lost
    max_wait: int = 45  # frames a zone's removals may wait for the zone to settle
    removal_wait: int = 24  # frames before a card taken alone is ``removed`` (it may be ``moved``)
    unchanged: float = 0.08  # mean relative grey change under which a card's place "looks the same"
    min_support: float = 0.2  # namer probability on possible cards under which a crop is not named
    row_area: float = 1.7  # a quad this many times a named card's area, as tall as a card is long: a row of cards
    inside_pile: float = 0.85  # an unclear quad this much on the cards named is found across them: not a card
    landing: int = 5  # frames apart within which two overlapping quads come from one card laid
    max_area: float = 1.5  # any other quad this many times a named card's area is several cards: not named


@dataclass
class _Vote:
    card: str | None
    confidence: float
    top: list[tuple[str | None, float]]
    conflict: bool = False  # the namer saw a card that cannot appear (support under min_support)
    unknown: float = 0.0  # the (rescored) probability that the crop is not a card face

    @property
    def not_a_card(self) -> bool:
        """The namer's best guess is "not a card face", or no card stands out and the
        "not a card" class is at least as likely as the best card."""
        card, p = self.top[0]
        return card is None or (p < 0.2 and self.unknown >= p)


NEW, PRESENT, IGNORED = "new", "present", "ignored"


@dataclass
class _Track:
    ident: int
    quad: Quad
    zone: str
    born: int
    state: str = NEW
    anchor: Quad | None = None
    stable: int = 0
    votes: list[_Vote] = field(default_factory=list)
    card: str | None = None  # named card (PRESENT); None for an uncertain one
    confidence: float | None = None
    rest_quad: Quad | None = None  # where it was when last reported
    missing: int = 0  # localisations without it while its place was still and uncovered
    missing_since: int | None = None
    disturbed: bool = False  # unmatched while something moved over its place
    reverify: bool = False  # a present card come to rest elsewhere, being named again
    matched: bool = False
    was_matched: bool = False  # matched at the previous localisation
    seen: bool = False  # matched, or its place looks as when it was reported
    snapshot: np.ndarray | None = None  # the small grey image inside its quad when it was reported
    fresh: bool = False  # created at this frame
    seen_zone: str = ""  # the zone of its latest quad (``zone`` changes only with an event)
    named_sides: tuple[float, float] | None = None  # (short, long) side of its quad when it was named
    piece: bool = False  # its quad was cut from a row of cards found as one (less sure than a card's own)


@dataclass
class StageTimes:
    """Seconds spent per stage, and how often the expensive stages ran."""

    frames: int = 0
    localised: int = 0
    crops: int = 0
    motion: float = 0.0
    localisation: float = 0.0
    classification: float = 0.0
    tracking: float = 0.0

    def total(self) -> float:
        return self.motion + self.localisation + self.classification + self.tracking


def quad_distance(a: Quad, b: Quad) -> float:
    """Mean corner distance of two quads, either way round (a card turned half a turn is the same card)."""
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    d0 = float(np.linalg.norm(a - b, axis=1).mean())
    d2 = float(np.linalg.norm(a - np.roll(b, 2, axis=0), axis=1).mean())
    return min(d0, d2)


def _quad_area(q: Quad) -> float:
    return float(abs(cv2.contourArea(np.asarray(q, np.float32))))


def _similar_size(a: Quad, b: Quad, ratio: float = 1.25) -> bool:
    """Whether two quads have areas within ``ratio`` of each other (a whole card both times)."""
    x, y = _quad_area(a), _quad_area(b)
    return min(x, y) > 0 and max(x, y) / min(x, y) <= ratio


def _sides(q: Quad) -> tuple[float, float]:
    """(short, long) side of a quad: the means of its opposite sides."""
    q = np.asarray(q, np.float32)
    e = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    x, y = (e[0] + e[2]) / 2, (e[1] + e[3]) / 2
    return float(min(x, y)), float(max(x, y))


def _row_pieces(q: Quad, width: float) -> list[Quad]:
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


def _best_score(votes: list[_Vote]) -> float:
    """The mean score of the card the views put first most (0 without views)."""
    if not votes:
        return 0.0
    firsts = Counter(v.top[0][0] for v in votes if v.top)
    if not firsts:
        return 0.0
    card = firsts.most_common(1)[0][0]
    return sum(p for v in votes for c, p in v.top if c == card) / len(votes)


def covered_fraction(q: Quad, by: Quad) -> float:
    """How much of quad ``q``'s area lies inside quad ``by``."""
    a = _quad_area(q)
    if a <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(np.asarray(q, np.float32), np.asarray(by, np.float32))
    return float(inter) / a


class Tracker:
    """Turns frames into :class:`vision.events.TableEvent` lists (see the module doc).

    ``zones``: a :class:`vision.zones.Zones` (default: the whole frame is the
    middle). ``localiser(frame_bgr) -> list of (4, 2) quads``; ``namer`` with
    ``name(crops)``; ``cropper(frame, quad) -> crop``. Missing ones are
    loaded from card recognition on first use.
    """

    def __init__(
        self,
        zones: Zones | None = None,
        localiser: Localiser | None = None,
        namer: CardNamer | None = None,
        settings: TrackerSettings = TrackerSettings(),
        cropper: Cropper | None = None,
        possible: PossibleCards | Mapping[str, float] | Iterable[str] | None = None,
    ):
        self.zones = zones or default_zones()
        self._possible: PossibleCards | None = None
        self.possible = possible
        self.settings = settings
        self._localiser = localiser
        self._namer = namer
        self._cropper = cropper
        self.stats = StageTimes()
        self._tracks: list[_Track] = []
        self._next_id = 1
        self._prev_small: np.ndarray | None = None
        self._zone_mask_small: np.ndarray | None = None
        self._frame_size: tuple[int, int] | None = None
        self._scale = 1.0
        self._since_motion = 0
        self._last: Frame | None = None
        self._zone_masks: dict[str, np.ndarray] = {}
        self._zone_quiet: dict[str, int] = {}  # frames since motion in each zone
        self._pieces: list[Quad] = []  # the quads cut from rows of cards at this frame
        self._lost: list[_Track] = []  # cards being named that were lost with votes in hand
        # for diagnosis: called as ``trace(what, frame_index, track_ident, quad, data)`` for every
        # vote (``what`` = "vote", data: the rescored top cards, support) and verdict ("verdict")
        self.trace: Callable[[str, int, int, Quad, dict], None] | None = None

    # ------------------------------------------------------------ recognition parts

    @property
    def localiser(self) -> Localiser:
        if self._localiser is None:
            from vision.localise import find_cards

            self._localiser = find_cards
        return self._localiser

    @property
    def namer(self) -> CardNamer:
        if self._namer is None:
            from vision.namer import Namer

            self._namer = Namer.load()
        return self._namer

    @property
    def cropper(self) -> Cropper:
        if self._cropper is None:
            from vision.warp import warp_card

            size = getattr(self.namer, "input_size", None)
            self._cropper = (lambda frame, quad: warp_card(frame, quad, size)) if size else warp_card
        return self._cropper

    # ------------------------------------------------------------ public

    @property
    def possible(self) -> PossibleCards | None:
        """The cards that can appear now (``None``: any card the namer knows)."""
        return self._possible

    @possible.setter
    def possible(self, cards: PossibleCards | Mapping[str, float] | Iterable[str] | None) -> None:
        if cards is None or isinstance(cards, PossibleCards):
            self._possible = cards
        elif isinstance(cards, Mapping):
            self._possible = PossibleCards(cards)
        else:
            self._possible = PossibleCards.of(cards)

    @property
    def cards(self) -> list[dict[str, Any]]:
        """The cards the tracker believes are on the table now (named or uncertain)."""
        return [
            {"card": t.card, "zone": t.zone, "corners": corners_list(t.rest_quad if t.rest_quad is not None else t.quad)}
            for t in self._tracks
            if t.state == PRESENT
        ]

    def identify(self, corners, card: str) -> bool:
        """A person named an ``uncertain`` card (the event's ``corners``): the tracker now knows
        it as ``card`` (it stays possible while it lies there, and a second view of it is the
        same card). Returns whether such an unnamed card was found."""
        if corners is None:
            return False
        quad = np.asarray(corners, np.float32).reshape(4, 2)
        reach = self.settings.follow_tolerance * (self._frame_size[0] if self._frame_size else 1280)
        unnamed = [t for t in self._tracks if t.state == PRESENT and t.card is None]
        if not unnamed:
            return False
        best = min(unnamed, key=lambda t: quad_distance(t.rest_quad if t.rest_quad is not None else t.quad, quad))
        ref = best.rest_quad if best.rest_quad is not None else best.quad
        if quad_distance(ref, quad) > reach:
            return False
        best.card = card
        return True

    def process(self, frame: Frame) -> list[TableEvent]:
        """The events decided at ``frame`` (usually none)."""
        s = self.settings
        st = self.stats
        st.frames += 1
        self._last = frame
        t0 = time.perf_counter()
        motion = self._motion(frame.image)
        t1 = time.perf_counter()
        st.motion += t1 - t0
        moving = motion is None or int(np.count_nonzero(motion)) >= s.motion_pixels
        self._since_motion = 0 if moving else self._since_motion + 1
        if not (moving or self._since_motion <= s.quiet_frames or self._undecided()):
            return []
        quads = [np.asarray(q, np.float32).reshape(4, 2) for q in self.localiser(frame.image)]
        quads = self._split_rows(quads, frame.image)
        t2 = time.perf_counter()
        st.localisation += t2 - t1
        st.localised += 1
        events: list[TableEvent] = []
        to_name = self._associate(frame, quads, motion)
        t3 = time.perf_counter()
        if to_name:
            self._name(frame, to_name)
        t4 = time.perf_counter()
        st.classification += t4 - t3
        events += self._decide(frame, to_name)
        while self._lost:  # after the namings of this frame: a card lost may be one just named
            t = self._lost.pop(0)
            events += self._conclude(frame, t, final=True, lost=True)
            t.missing = 0
            if t.state != PRESENT and t in self._tracks:
                self._tracks.remove(t)
        events += self._removals(frame, final=False)
        st.tracking += (t3 - t2) + (time.perf_counter() - t4)
        return events

    def flush(self) -> list[TableEvent]:
        """At the end of the stream: decide what can be decided with the votes in hand."""
        frame = self._last
        if frame is None:
            return []
        events: list[TableEvent] = []
        for t in self._tracks:
            if t.state == NEW and t.votes:
                events += self._conclude(frame, t, final=True)
        events += self._removals(frame, final=True)
        return events

    # ------------------------------------------------------------ motion

    def _motion(self, image: np.ndarray) -> np.ndarray | None:
        """Changed pixels (bool, small scale, zones only) since the previous frame; None for the first."""
        h, w = image.shape[:2]
        if self._frame_size != (w, h):
            self._frame_size = (w, h)
            sw = min(self.settings.motion_width, w)
            sh = max(1, round(h * sw / w))
            self._scale = sw / w
            self._zone_mask_small = self.zones.mask(sw, sh) > 0
            self._zone_masks = {z.name: Zones([z]).mask(sw, sh) > 0 for z in self.zones}
            self._prev_small = None
        sw = self._zone_mask_small.shape[1]
        sh = self._zone_mask_small.shape[0]
        grey = cv2.cvtColor(cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        small = grey.astype(np.float32)
        prev = self._prev_small
        self._prev_small = small
        if prev is None:
            return None
        # match the brightness of the previous frame (a lamp dimming is not motion)
        ref = float(np.median(prev[::3, ::3]))
        cur = float(np.median(small[::3, ::3]))
        if cur > 1:
            small = small * (ref / cur)
        changed = cv2.absdiff(small, prev) > self.settings.motion_threshold
        changed &= self._zone_mask_small
        for name, m in self._zone_masks.items():
            moving = int(np.count_nonzero(changed & m)) >= self.settings.motion_pixels
            self._zone_quiet[name] = 0 if moving else self._zone_quiet.get(name, 0) + 1
        return changed

    def _region_moving(self, quad: Quad, motion: np.ndarray | None) -> bool:
        if motion is None:
            return True
        pts = np.round(np.asarray(quad) * self._scale).astype(np.int32)
        x0, y0 = np.maximum(pts.min(0) - 1, 0)
        x1, y1 = pts.max(0) + 2
        patch = motion[y0:y1, x0:x1]
        if patch.size == 0 or not patch.any():
            return False
        m = np.zeros(patch.shape, np.uint8)
        cv2.fillConvexPoly(m, pts - (x0, y0), 1)
        return int(np.count_nonzero(patch & (m > 0))) >= self.settings.motion_pixels

    # ------------------------------------------------------------ rows of cards

    def _card_shape(self) -> tuple[float, float] | None:
        """(short, long) side of the cards named so far (the median), None before the first."""
        sides = [t.named_sides for t in self._tracks if t.state == PRESENT and t.named_sides is not None]
        if not sides:
            return None
        return float(np.median([a for a, _ in sides])), float(np.median([b for _, b in sides]))

    def _split_rows(self, quads: list[Quad], image: np.ndarray | None = None) -> list[Quad]:
        """Cards laid side by side in a row may be found as one wide quad (a row of three upright
        cards is shaped like one card lying across): a quad ``row_area`` times a named card's
        area or more, whose short side is as long as a card, is replaced by the card-sized quads
        the row holds, each moved onto the card's edges in ``image``; a piece lying on another
        quad found is left out (that one is kept). Any
        other quad ``max_area`` times a named card's area or more spans several cards: it is
        left out (it would be named as none of them)."""
        self._pieces = []
        shape = self._card_shape()
        if shape is None:
            return quads
        short, long = shape
        singles, pieces = [], []
        for q in quads:
            a, b = _sides(q)
            if a * b >= self.settings.row_area * short * long and abs(a - long) <= 0.15 * long and b >= 1.8 * short:
                pieces += _row_pieces(q, short)
            elif a * b < self.settings.max_area * short * long:
                singles.append(q)
        if not pieces:
            return singles
        if image is not None:
            from vision.locator import snap_quads

            pieces = [np.asarray(p, np.float32) for p in snap_quads(image, pieces)]  # onto the cards' own edges
        near = 0.25 * short
        out = list(singles)
        for p in pieces:
            if all(quad_distance(p, o) > near for o in out):
                out.append(p)
                self._pieces.append(p)
        return out

    # ------------------------------------------------------------ association

    def _zone_of(self, quad: Quad) -> str | None:
        w, h = self._frame_size
        cx, cy = np.asarray(quad).mean(0)
        z = self.zones.zone_at(float(cx), float(cy), w, h)
        return z.name if z else None

    def _undecided(self) -> bool:
        return any(
            (t.state == NEW and (t.stable > 0 or t.votes or t.matched)) or t.missing > 0 or t.disturbed or t.reverify
            for t in self._tracks
        )

    def _associate(self, frame: Frame, quads: list[Quad], motion) -> list[_Track]:
        """Match quads to tracks, update stillness; return the tracks to name at this frame."""
        s = self.settings
        w = self._frame_size[0]
        follow = s.follow_tolerance * w
        still = s.still_tolerance * w
        dets = []
        for q in quads:
            zone = self._zone_of(q)
            if zone is not None:
                dets.append((q, zone))
        for t in self._tracks:
            t.was_matched, t.matched = t.matched, False
        free = list(range(len(dets)))
        # each quad to its nearest track (a settled one first at equal distance): a card followed
        # at the previous localisation may have moved up to ``follow``, one found again after
        # being hidden must be where it was; nearest first, so that a card whose own quad was
        # not found does not take the quad of the card being laid beside it
        pairs = []  # (distance, not yet settled, track, quad): a settled track first at equal distance
        for t in self._tracks:
            if t.state not in (PRESENT, IGNORED, NEW):
                continue
            reach = follow if t.was_matched else 2 * still
            for j in free:
                d = quad_distance(t.quad, dets[j][0])
                if d <= reach:
                    pairs.append((d, t.state == NEW, t.ident, j))
        used_t: set[int] = set()
        for _d, _new, tid, j in sorted(pairs):
            if tid in used_t or j not in free:
                continue
            used_t.add(tid)
            free.remove(j)
            t = self._track(tid)
            t.matched = True
            t.quad, t.seen_zone = dets[j]
            t.piece = t.piece or any(t.quad is p for p in self._pieces)
            if t.state == NEW:
                t.zone = t.seen_zone
        for j in free:
            q, zone = dets[j]
            self._tracks.append(_Track(self._next_id, q, zone, frame.index, anchor=q, matched=True, fresh=True,
                                       piece=any(q is p for p in self._pieces)))
            self._next_id += 1

        for t in self._tracks:
            t.seen = t.matched or (t.state == PRESENT and self._looks_unchanged(t))
        to_name = []
        for t in list(self._tracks):
            if not t.matched:
                self._unmatched(frame, t, motion)
                continue
            t.missing = 0
            t.missing_since = None
            t.disturbed = False
            if t.fresh:
                t.fresh = False
                continue
            # still: nothing moved over it and its quad stays near where it came to rest (the
            # quads found for overlapping cards wobble by a few pixels from frame to frame)
            if t.anchor is not None and quad_distance(t.anchor, t.quad) <= s.jitter * still and not self._region_moving(t.quad, motion):
                t.stable += 1
            else:
                t.anchor = t.quad
                t.stable = 0
                if t.state == NEW:
                    t.votes.clear()
            if t.state == NEW and t.stable >= s.settle_frames - 1 and t.stable > 0:
                to_name.append(t)
            elif t.state == PRESENT and t.stable >= s.settle_frames - 1 and t.stable > 0:
                ref = t.rest_quad if t.rest_quad is not None else t.quad
                if self._moved_away(ref, t.quad) and _similar_size(ref, t.quad):
                    t.reverify = True
                    to_name.append(t)
                elif not t.reverify and quad_distance(ref, t.quad) > still:
                    t.rest_quad = t.quad  # nudged or straightened in place: no event
                    self._remember_look(t)
        return to_name

    def _moved_away(self, before: Quad, after: Quad) -> bool:
        """Whether a card's centre lies ``move_distance`` card widths or more from where it was."""
        a, b = np.asarray(before, np.float32), np.asarray(after, np.float32)
        short = min(np.linalg.norm(a[0] - a[1]), np.linalg.norm(a[1] - a[2]), np.linalg.norm(b[0] - b[1]), np.linalg.norm(b[1] - b[2]))
        shift = float(np.linalg.norm(a.mean(0) - b.mean(0)))
        return shift > self.settings.move_distance * float(short)

    def _unmatched(self, frame: Frame, t: _Track, motion) -> None:
        if t.state == NEW:
            if any(v.card is not None for v in t.votes):
                # a card being named, hidden for a moment (a hand, a card laid over it): it keeps
                # its votes; lost for good, it is decided with the votes in hand
                t.missing += 1
                if t.missing > self.settings.lost_frames * 3:
                    self._lost.append(t)
                return
            self._tracks.remove(t)  # a glimpse: never named
            return
        if t.state == IGNORED:
            t.missing += 1
            if t.missing > self.settings.lost_frames * 3:
                self._tracks.remove(t)
            return
        t.reverify = False
        if self._region_moving(t.quad, motion):
            t.disturbed = True
            return
        t.disturbed = False
        # the localiser missed it but its place looks the same, or cards laid later cover it
        covered = sum(covered_fraction(t.quad, o.quad) for o in self._tracks if o.ident > t.ident and o.seen)
        if t.seen or covered >= self.settings.occlusion:
            t.missing = 0
            t.missing_since = None
            return
        if t.missing == 0:
            t.missing_since = frame.index
        t.missing += 1

    def _patch(self, quad: Quad) -> tuple[np.ndarray, np.ndarray] | None:
        """The small grey pixels inside ``quad`` (brightness-normalised) and their mask."""
        small = self._prev_small
        if small is None:
            return None
        pts = np.round(np.asarray(quad) * self._scale).astype(np.int32)
        x0, y0 = np.maximum(pts.min(0), 0)
        x1, y1 = pts.max(0) + 1
        patch = small[y0:y1, x0:x1]
        if patch.size == 0:
            return None
        m = np.zeros(patch.shape, np.uint8)
        cv2.fillConvexPoly(m, pts - (x0, y0), 1)
        inside = m > 0
        if inside.sum() < 6:
            return None
        values = patch[inside]
        return values / max(1.0, float(values.mean())), inside

    def _remember_look(self, t: _Track) -> None:
        got = self._patch(t.quad)
        t.snapshot = None if got is None else got[0]

    def _looks_unchanged(self, t: _Track) -> bool:
        if t.snapshot is None:
            return False
        got = self._patch(t.rest_quad if t.rest_quad is not None else t.quad)
        if got is None or got[0].shape != t.snapshot.shape:
            return False
        return float(np.mean(np.abs(got[0] - t.snapshot))) < self.settings.unchanged

    def _track(self, ident: int) -> _Track:
        for t in self._tracks:
            if t.ident == ident:
                return t
        raise KeyError(ident)

    # ------------------------------------------------------------ naming and decisions

    def _name(self, frame: Frame, tracks: list[_Track]) -> None:
        crops = [self.cropper(frame.image, t.quad) for t in tracks]
        self.stats.crops += len(crops)
        for t, vote in zip(tracks, self._votes(crops)):
            t.votes.append(vote)
            if self.trace is not None:
                self.trace("vote", frame.index, t.ident, t.quad,
                           {"top": vote.top, "card": vote.card, "conflict": vote.conflict, "state": t.state})

    def _votes(self, crops: list[Any]) -> list[_Vote]:
        namer = self.namer
        run, labels = getattr(namer, "run", None), getattr(namer, "labels", None)
        threshold = float(getattr(namer, "threshold", 0.5))
        possible = self._possible
        if callable(run) and labels:
            probs, _ = run(crops)
            labels = [None if lab == UNKNOWN_LABEL else lab for lab in labels]
        elif possible is None:
            return [_Vote(n.card, float(n.confidence), [(n.card, float(n.confidence))], False,
                          float(n.confidence) if n.card is None else 0.0) for n in namer.name(crops)]
        else:
            # a namer that gives only its best answer: the rest of its probability spread evenly
            namings = list(namer.name(crops))
            if labels:
                labels = [None if lab == UNKNOWN_LABEL else lab for lab in labels]
            else:
                labels = list(dict.fromkeys([*possible, *(n.card for n in namings if n.card is not None)])) + [None]
            probs = [spread_naming(labels, n.card, n.confidence) for n in namings]
        if possible is not None:
            possible = possible.with_cards(t.card for t in self._tracks if t.state == PRESENT and t.card)
        out = []
        for p in probs:
            support = 1.0
            if possible is not None:
                p, support = possible.rescore(labels, p)
            order = [k for k in np.argsort(p)[::-1][:3] if p[k] > 0] or [int(np.argmax(p))]
            top = [(labels[k], float(p[k])) for k in order]
            card, conf = top[0]
            conflict = support < self.settings.min_support
            unknown = float(p[labels.index(None)]) if None in labels else 0.0
            out.append(_Vote(card if conf >= threshold and not conflict else None, conf, top, conflict, unknown))
        return out

    def _decide(self, frame: Frame, named: list[_Track]) -> list[TableEvent]:
        events = []
        for t in named:
            if t in self._tracks:
                events += self._conclude(frame, t, final=False)
        return events

    def _verdict(self, votes: list[_Vote], final: bool, piece: bool = False) -> tuple[str, str | None, float]:
        """('card', code, conf) | ('uncertain', None, conf) | ('none', None, 0) | ('wait', None, 0).
        ``piece``: the views are of a quad cut from a row, which needs a wider margin."""
        s = self.settings
        margin = s.piece_margin if piece else s.min_margin
        named = [v for v in votes if v.card is not None]
        counts = Counter(v.card for v in named)
        if counts:
            card, n = counts.most_common(1)[0]
            confs = [v.confidence for v in named if v.card == card]
            mean = float(np.mean(confs))
            # two thirds of the votes, and no confident vote for another card, nor a view that puts
            # another card first with some weight: a split is a question
            agree = n * 3 >= 2 * len(votes) and len(counts) == 1 and not any(
                v.top[0][0] not in (card, None) and v.top[0][1] >= s.rival for v in votes)
            if (n >= min(s.min_votes, len(votes) if final else s.min_votes) and mean >= s.min_confidence and agree
                    and self._margin(votes, card) >= margin):
                return "card", card, mean
        if len(votes) < s.votes and not final:
            return "wait", None, 0.0
        evidence = None if piece else self._evidence(votes)
        if evidence is not None:
            return "card", evidence[0], evidence[1]
        unknown = len(votes) - len(named)
        if sum(v.conflict for v in votes) * 2 >= len(votes):
            return "uncertain", None, 0.0  # a card the rules exclude: ask, never guess a look-alike
        if unknown * 2 > len(votes) and all(v.not_a_card for v in votes if v.card is None):
            return "none", None, 0.0
        return "uncertain", None, 0.0

    @staticmethod
    def _scores(votes: list[_Vote]) -> dict[str | None, float]:
        """Each card's mean (rescored) score over the views (its best three in each)."""
        score: dict[str | None, float] = {}
        for v in votes:
            for c, p in v.top:
                score[c] = score.get(c, 0.0) + p / len(votes)
        return score

    def _margin(self, votes: list[_Vote], card: str) -> float:
        """How many times the next card's mean score ``card``'s is, over the views."""
        score = self._scores(votes)
        mine = score.pop(card, 0.0)
        return mine / max(0.01, max((p for c, p in score.items() if c is not None), default=0.0))

    def _evidence(self, votes: list[_Vote]) -> tuple[str, float] | None:
        """(card, mean score) when the still views, none of them confident enough on its own,
        together leave no doubt: every view's best is the same card, its mean (rescored) score is
        at least ``evidence_score`` and ``evidence_margin`` times the next card's. None otherwise."""
        s = self.settings
        if len(votes) < s.votes or any(v.conflict for v in votes):
            return None
        best = {v.top[0][0] for v in votes}
        if len(best) != 1 or None in best:
            return None
        card = best.pop()
        score = self._scores(votes)
        mean = score.pop(card)
        other = max((p for c, p in score.items() if c is not None), default=0.0)
        if mean >= s.evidence_score and mean >= s.evidence_margin * max(other, 0.01) and mean > score.get(None, 0.0):
            return card, mean
        return None

    def _candidates(self, votes: list[_Vote]) -> list[tuple[str | None, float]]:
        score: dict[str | None, float] = {}
        for v in votes:
            for card, p in v.top:
                score[card] = score.get(card, 0.0) + p / len(votes)
        return sorted(score.items(), key=lambda kv: -kv[1])[:3]

    def _conclude(self, frame: Frame, t: _Track, final: bool, lost: bool = False) -> list[TableEvent]:
        verdict, card, conf = self._verdict(t.votes, final, t.piece)
        if verdict == "wait":
            return []
        if lost:
            # a card lost while being named: only a confident naming counts; seen too few times
            # to be named, it is asked (unless it is a card already lying on the table)
            if verdict != "card" or any(o is not t and o.state == PRESENT and o.card == card for o in self._tracks):
                verdict = "none"
            elif sum(v.card == card for v in t.votes) < self.settings.min_votes:
                verdict = "uncertain"
        if verdict in ("card", "uncertain") and not t.reverify:
            # cards are laid one at a time: of two overlapping quads found at the same moment, one
            # is false (found across the pile); the clearer one is decided first, the other then
            # dropped (a card seen as the same card is left to the twin rules below)
            twin = self._landing_twin(t)
            if (twin is not None and twin.state == NEW and not final and len(t.votes) < 2 * self.settings.votes
                    and (verdict == "uncertain" or not twin.votes or _best_score(twin.votes) > _best_score(t.votes))):
                return []  # wait for it
            if (twin is not None and twin.state == PRESENT and twin.card is not None
                    and (verdict == "uncertain" or card != twin.card)):
                verdict = "none"
            elif verdict == "uncertain" and self._inside_pile(t) >= self.settings.inside_pile:
                verdict = "none"  # a quad found across the cards reported (a new card lies on top of them)
        if self.trace is not None:
            self.trace("verdict", frame.index, t.ident, t.quad,
                       {"verdict": verdict, "card": card, "confidence": conf, "votes": len(t.votes),
                        "reverify": t.reverify})
        votes, t.votes = t.votes, []
        if t.reverify:
            t.reverify = False
            t.rest_quad = t.quad
            self._remember_look(t)
            if verdict == "card" and card == t.card:
                t.zone = t.seen_zone or t.zone
                return [self._event(MOVED, frame, t, card=card, confidence=conf)]
            # not confirmed: a partly hidden card seen differently; it stays where it was
            return []
        if verdict == "none":
            t.state = IGNORED
            return []
        if verdict == "card":
            twin = next((o for o in self._tracks if o is not t and o.state == PRESENT and o.card == card), None)
            if twin is not None:
                same_place = not self._moved_away(twin.rest_quad, t.quad)
                if twin.seen and not same_place:
                    t.state = IGNORED  # a second view of a card already on the table
                    return []
                # the same card: found again where it was (no event), or elsewhere while its old place emptied (moved)
                self._tracks.remove(twin)
                t.ident, t.born = twin.ident, twin.born  # keeps its place in the stacking order, and when it came
                t.state, t.card, t.confidence, t.rest_quad = PRESENT, card, conf, t.quad
                self._remember_look(t)
                if same_place:
                    t.zone = twin.zone
                    return []
                return [self._event(MOVED, frame, t, card=card, confidence=conf)]
            t.state, t.card, t.confidence, t.rest_quad = PRESENT, card, conf, t.quad
            t.named_sides = _sides(t.quad)
            self._remember_look(t)
            return [self._event(APPEARED, frame, t, card=card, confidence=conf)]
        cands = self._candidates(votes)
        if self._second_view(t, cands):
            t.state = IGNORED  # a quad across a card already named, mostly seen as that card
            return []
        t.state, t.card, t.confidence, t.rest_quad = PRESENT, None, None, t.quad
        self._remember_look(t)
        best = cands[0][1] if cands else None
        return [self._event(UNCERTAIN, frame, t, confidence=best, candidates=cands)]

    def _inside_pile(self, t: _Track) -> float:
        """How much of ``t``'s quad lies on the cards reported so far (named or asked; their union)."""
        named = [o.rest_quad if o.rest_quad is not None else o.quad for o in self._tracks if o is not t and o.state == PRESENT]
        if not named:
            return 0.0
        k = 0.25
        q = np.asarray(t.quad, np.float32)
        x0, y0 = np.floor(q.min(0)).astype(int)
        x1, y1 = np.ceil(q.max(0)).astype(int)
        size = (max(1, int((y1 - y0) * k) + 2), max(1, int((x1 - x0) * k) + 2))
        mine, pile = np.zeros(size, np.uint8), np.zeros(size, np.uint8)
        cv2.fillConvexPoly(mine, np.round((q - (x0, y0)) * k).astype(np.int32), 1)
        for o in named:
            cv2.fillConvexPoly(pile, np.round((np.asarray(o, np.float32) - (x0, y0)) * k).astype(np.int32), 1)
        area = int(mine.sum())
        return float((mine & pile).sum()) / area if area else 0.0

    def _landing_twin(self, t: _Track) -> _Track | None:
        """Another card found at the same moment (born within ``landing`` frames) that overlaps
        ``t``: cards are laid one at a time, so of two such quads one is a false one found across
        the pile. A named one first, else one still being named."""
        twins = [o for o in self._tracks if o is not t and o.state in (PRESENT, NEW)
                 and abs(o.born - t.born) <= self.settings.landing
                 and max(covered_fraction(t.quad, o.quad), covered_fraction(o.quad, t.quad)) >= 0.25]
        twins.sort(key=lambda o: o.state != PRESENT)
        return twins[0] if twins else None

    def _second_view(self, t: _Track, cands: list[tuple[str | None, float]]) -> bool:
        """Whether an unclear quad is another view of a card already named: the best of its
        candidates is a card lying on the table that overlaps it (a quad found across two cards
        of a pile, or half off a card, is named mostly as one of them)."""
        best = next((c for c, _ in cands if c is not None), None)
        if best is None:
            return False
        for o in self._tracks:
            if o is not t and o.state == PRESENT and o.card == best:
                ref = o.rest_quad if o.rest_quad is not None else o.quad
                if max(covered_fraction(t.quad, ref), covered_fraction(ref, t.quad)) >= 0.25:
                    return True
        return False

    def _event(self, kind, frame: Frame, t: _Track, *, card=None, confidence=None, candidates=(), corners="quad") -> TableEvent:
        quad = t.quad if corners == "quad" else None
        return TableEvent(
            kind, frame.index, float(frame.timestamp), t.zone, card,
            None if quad is None else corners_list(quad), confidence, list(candidates),
        )

    # ------------------------------------------------------------ removals

    def _removals(self, frame: Frame, final: bool) -> list[TableEvent]:
        """Lost cards, a zone at a time, once nothing in the zone is in doubt."""
        s = self.settings
        events = []
        present = [t for t in self._tracks if t.state == PRESENT]
        for zone in dict.fromkeys(t.zone for t in present):
            in_zone = [t for t in present if t.zone == zone]
            lost = [t for t in in_zone if t.missing >= s.lost_frames or (final and (t.missing or t.disturbed))]
            if not lost:
                continue
            doubtful = [t for t in in_zone if t not in lost and (t.missing > 0 or t.disturbed)]
            doubtful += [t for t in in_zone if t not in lost and t.matched and t.stable == 0]
            # a card being named anywhere may be one of these, moved: wait for it
            doubtful += [t for t in self._tracks if t.state == NEW and (t.stable > 0 or t.votes or t.matched)]
            waited = frame.index - min(t.missing_since or frame.index for t in lost)
            unsettled = self._zone_quiet.get(zone, 0) < s.lost_frames
            if (doubtful or unsettled) and waited < s.max_wait and not final:
                continue
            whole = len(lost) == len(in_zone)
            if not (whole and len(lost) >= 2) and waited < s.removal_wait and not final:
                continue  # one card taken: it may turn up elsewhere (moved)
            if whole:
                events.append(TableEvent(CLEARED, frame.index, float(frame.timestamp), zone))
            else:
                for t in lost:
                    events.append(TableEvent(REMOVED, frame.index, float(frame.timestamp), zone, t.card))
            for t in lost:
                self._tracks.remove(t)
        return events

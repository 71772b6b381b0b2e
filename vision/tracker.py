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
   votes, and lost for good it is named (enough confident views, or its only
   view named at ``lost_single``), asked (too few) or dropped (no confident
   view). Cards are laid one at a time: of two
   overlapping quads found at one landing (born within ``landing`` frames),
   the clearer is decided first and the other then dropped; an unclear quad
   lying ``inside_pile`` on the cards already reported (``faceless_pile`` when
   its views' best candidate is "not a card face"), or whose best
   candidate is a card already named that it overlaps, is another view of
   the pile, never a question.
5. **Disappearance**: a named card that is no longer found while its place is
   still, looks different and is not covered by cards laid after it is
   missing; after ``lost_frames`` such localisations, once its zone is quiet
   and no card is being decided, the zone's missing cards are ``cleared``
   together when they were all of it (two or more: one event, no
   ``removed``), otherwise each is ``removed`` after ``removal_wait`` frames.
   A card named again elsewhere while its old place is empty is ``moved``.

The association of quads to tracks (step 3) lives in :mod:`vision.association`,
the naming by votes (step 4's verdict) in :mod:`vision.votes`, the card followed
in :mod:`vision.tracks`, the quad arithmetic in :mod:`vision.track_geometry` and
the tuning in :mod:`vision.tracker_settings`; this module runs the steps in
order and decides what each verdict does to the table.

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
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

import cv2
import numpy as np

from vision import votes as voting
from vision.association import card_shape, match_nearest, split_rows
from vision.change_outline import StillBackground, change_around, change_inside, outline_from_change
from vision.deck_reading import DeckReading, best_reading
from vision.landings import TableAudit
from vision.events import APPEARED, CLEARED, MOVED, REMOVED, RENAMED, UNCERTAIN, TableEvent, corners_list
from vision.motion import changed_pixels, small_grey
from vision.possible import PossibleCards
from vision.sources import Frame
from vision.track_geometry import (Quad, covered_fraction, moved_away, pile_shares, quad_distance, shares_on_each, sides,
                                   similar_size)
from vision.tracker_settings import (ACROSS_ONE, BURIED_PILE, LAID_OVER_CONFIDENCE, NEW_CHANGE_ON, NEW_CHANGE_PILE,
                                     PATCHY_CONFIDENCE, RENAMED_BELOW, RESTACK_CLEAR, SIZE_CONFIDENCE, STRIP_PILE,
                                     TABLE_VIEW_WIDTH, TrackerSettings, with_bars)
from vision.tracks import IGNORED, NEW, PRESENT, Track
from vision.zones import Zones, default_zones

__all__ = ["CardNamer", "StageTimes", "Tracker", "TrackerSettings", "covered_fraction", "quad_distance"]
Localiser = Callable[[np.ndarray], Sequence[Quad]]
Cropper = Callable[[np.ndarray, Quad], Any]


class CardNamer(Protocol):
    """What the tracker needs from a namer: one result (``.card``, ``.confidence``) per crop."""

    def name(self, crops: Sequence[Any]) -> Sequence[Any]: ...


@dataclass
class StageTimes:
    """Seconds spent per stage, and how often the expensive stages ran."""

    frames: int = 0
    localised: int = 0
    crops: int = 0
    outlined: int = 0  # crops cut from a new card's outline from the change (``outline``)
    dropped: int = 0  # votes dropped: a later view of the card looked different (``look_change``)
    waited: int = 0  # namings put off while the table around a new card had changed (``hand_clear``)
    audits: int = 0  # still tables compared with the last one (``audit``)
    unseen: int = 0  # cards laid unseen found by those audits, and asked
    motion: float = 0.0
    localisation: float = 0.0
    classification: float = 0.0
    tracking: float = 0.0

    def total(self) -> float:
        return self.motion + self.localisation + self.classification + self.tracking


def settings_for(namer) -> TrackerSettings:
    """The tracker's settings for ``namer``: the defaults with the bars the namer carries
    (``tracker_bars``: those its card model was measured with, ``Namer.tracker_bars``; the deck
    memory's; an enrolled deck's prototypes', ``vision.enroll.TABLE_BARS``). A namer without bars
    (the simulator's truth) gets the defaults."""
    bars = getattr(namer, "tracker_bars", None)
    return with_bars(TrackerSettings(), bars) if isinstance(bars, dict) and bars else TrackerSettings()


def kept_reading(namer) -> DeckReading | None:
    """The gauge of the deck's reading a namer keeps (the deck memory's), else None."""
    kept = getattr(namer, "reading", None)
    return kept if isinstance(kept, DeckReading) else None


class Tracker:
    """Turns frames into :class:`vision.events.TableEvent` lists (see the module doc).

    ``zones``: a :class:`vision.zones.Zones` (default: the whole frame is the
    middle). ``localiser(frame_bgr) -> list of (4, 2) quads``; ``namer`` with
    ``name(crops)``; ``cropper(frame, quad) -> crop``. Missing ones are
    loaded from card recognition on first use. ``settings``: the tracker's
    tuning (default: :func:`settings_for` the namer, the defaults with the card
    model's own bars on top).
    """

    def __init__(
        self,
        zones: Zones | None = None,
        localiser: Localiser | None = None,
        namer: CardNamer | None = None,
        settings: TrackerSettings | None = None,
        cropper: Cropper | None = None,
        possible: PossibleCards | Mapping[str, float] | Iterable[str] | None = None,
        reading: DeckReading | None = None,
    ):
        self.zones = zones or default_zones()
        # how surely the card model reads the deck in play (``unread_deck``): shared by the trackers of
        # one evening when given (the demo's scenes), else the one the namer keeps with the table's deck
        # memory (vision.deck_memory.KeptReading: it outlives a restart), else this tracker's own
        self.reading = reading if reading is not None else kept_reading(namer) or DeckReading()
        self._possible: PossibleCards | None = None
        self.possible = possible
        self.settings = settings if settings is not None else settings_for(namer)
        self._without_red = None  # (the settings, the same without the red_ink bar): _judged_with
        self._localiser = localiser
        self._namer = namer
        self._cropper = cropper
        self.stats = StageTimes()
        self._tracks: list[Track] = []
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
        self._lost: list[Track] = []  # cards being named that were lost with votes in hand
        # the table as it last lay still (a new card's outline, what changed around it)
        s = self.settings
        self._background = StillBackground() if s.outline or s.hand_clear > 0 or s.restack else None
        # the table as it lay at the last audit, and the cards reported then (``audit``)
        self._audit = TableAudit() if self.settings.audit else None
        self._audit_due = True
        self._audit_cards: dict[int, Quad] = {}
        self._view: tuple[int, np.ndarray, float] | None = None  # (frame, the frame small, its scale) (``new_change``)
        self._still_frame: Frame | None = None  # the latest frame without motion (``new_change``, ``patchy_laid``) ...
        self._still_view: tuple[int, np.ndarray] | None = None  # ... and the table, small, before the latest motion
        self._card_sides: tuple[float, float] | None = None  # the cards' size, kept once the table is swept
        # for diagnosis: called as ``trace(what, frame_index, track_ident, quad, data)`` for every
        # vote (``what`` = "vote", data: the rescored top cards, support), verdict ("verdict") and
        # naming put off while the table around a new card had changed ("around", ``hand_clear``)
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

    @namer.setter
    def namer(self, namer: CardNamer) -> None:
        """Another namer from now on (e.g. the shipped one weighed by the table's deck memory, whose
        gauge of the deck's reading the tracker then keeps: judged before a restart, judged still)."""
        self._namer = namer
        kept = kept_reading(namer)
        if kept is not None:
            self.reading = kept

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
        unnamed = [t for t in self._tracks if t.state == PRESENT and t.card is None]
        if not unnamed:
            return False
        best = min(unnamed, key=lambda t: quad_distance(self._place(t), quad))
        if quad_distance(self._place(best), quad) > self._reach():
            return False
        best.card = card
        return True

    def fixed(self, corners, was: str, card: str) -> bool:
        """A person fixed the card the tracker reported as ``was`` at ``corners`` (its event's):
        it is ``card``. The card lying there as ``was`` is now known as ``card`` (its place, look
        and size kept, named as surely as an answer), so that ``was`` itself, laid later, is a card
        of its own and not a second view of this one. Returns whether such a card lay there."""
        if corners is None or was == card:
            return False
        quad = np.asarray(corners, np.float32).reshape(4, 2)
        t = next((t for t in self._tracks if t.state == PRESENT and t.card == was
                  and quad_distance(self._place(t), quad) <= self._reach()), None)
        if t is None:
            return False
        t.card, t.confidence = card, 1.0
        t.rivals = tuple(c for c in t.rivals if c != card)
        return True

    def _reach(self) -> float:
        """How far (pixels, mean corner distance) a person's card may lie from where the tracker keeps it."""
        return self.settings.follow_tolerance * (self._frame_size[0] if self._frame_size else 1280)

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
        if self._background is not None:
            self._background.update(frame.image, motion)
        moving = motion is None or int(np.count_nonzero(motion)) >= s.motion_pixels
        self._since_motion = 0 if moving else self._since_motion + 1
        if s.new_change > 0 or s.patchy_laid > 0:
            self._keep_still_view(frame, moving)
        if self._audit is not None:
            if moving:
                self._audit_due = True
            elif self._audit_due and self._since_motion >= s.audit_frames and not self._undecided():
                self._audit_due = False
                audited = self._audit_table(frame)
                st.tracking += time.perf_counter() - t1
                return audited
        if not (moving or self._since_motion <= s.quiet_frames or self._undecided()):
            return []
        quads = [np.asarray(q, np.float32).reshape(4, 2) for q in self.localiser(frame.image)]
        quads, self._pieces = split_rows(quads, card_shape(self._tracks), s, frame.image)
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
        small = small_grey(image, (sw, sh))
        prev = self._prev_small
        self._prev_small = small
        if prev is None:
            return None
        changed = changed_pixels(prev, small, self.settings.motion_threshold)
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

    def _associate(self, frame: Frame, quads: list[Quad], motion) -> list[Track]:
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
        matches, free = match_nearest(self._tracks, [q for q, _ in dets], follow, still)
        for t, j in matches:
            t.matched = True
            t.quad, t.seen_zone = dets[j]
            t.piece = t.piece or any(t.quad is p for p in self._pieces)
            if t.state == NEW:
                t.zone = t.seen_zone
        for j in free:
            q, zone = dets[j]
            before = None if self._background is None else self._background.snapshot()
            self._tracks.append(Track(self._next_id, q, zone, frame.index, anchor=q, matched=True, fresh=True,
                                       piece=any(q is p for p in self._pieces), before=before,
                                       still_before=self._still_table()))
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
                if t.state == NEW or t.recheck:
                    t.cleared += len(t.votes)
                    t.votes.clear()
            if t.state == NEW and t.stable >= s.settle_frames - 1 and t.stable > 0:
                if not self._hand_by(frame, t):
                    to_name.append(t)
            elif t.state == PRESENT and t.stable >= s.settle_frames - 1 and t.stable > 0:
                ref = t.rest_quad if t.rest_quad is not None else t.quad
                if self._moved(ref, t.quad) and similar_size(ref, t.quad):
                    t.reverify = True
                    to_name.append(t)
                elif s.nudge_rename > 0 and t.rivals and moved_away(ref, t.quad, s.nudge_rename):
                    t.reverify = True  # nudged far: named again (another card laid over it may have been taken for it)
                    to_name.append(t)
                elif t.reverify:
                    # back at rest where it was reported before it was named again (its quad wobbled
                    # away and back): nothing to decide, and no reason to keep the card finder running
                    t.reverify = False
                    t.votes.clear()
                elif quad_distance(ref, t.quad) > still:
                    t.rest_quad = t.quad  # nudged or straightened in place: no event
                    self._remember_look(t)
                elif s.restack and t.look_before is not None:
                    self._settle_look(frame, t)
                elif s.restack and (t.recheck or self._restacked(t)):
                    t.recheck = True
                    to_name.append(t)
        return to_name

    def _hand_by(self, frame: Frame, t: Track) -> bool:
        """Whether a new card at rest is still not to be named: the table around it changed since
        before it came (a hand lingering by it, or its shadow), and it has not waited long enough."""
        s = self.settings
        if s.hand_clear <= 0 or t.before is None or t.waited >= s.hand_wait:
            return False
        around = change_around(t.before, frame.image, t.quad)
        if self.trace is not None:
            self.trace("around", frame.index, t.ident, t.quad, {"changed": round(around, 3), "waited": t.waited})
        if around <= s.hand_clear:
            return False
        t.waited += 1
        self.stats.waited += 1
        return True

    def _named_by_hand(self, frame: Frame, t: Track, before: np.ndarray | None) -> None:
        """With ``restack``: a card reported while the table around it had changed since before it
        came (a hand lingering by it) keeps the look of its place only once that has cleared: the
        hand leaving changes its place's look, and the card read again then is not a card laid on it."""
        if self.settings.restack and before is not None and change_around(before, frame.image, t.quad) > RESTACK_CLEAR:
            t.look_before, t.look_waited = before, 0

    def _settle_look(self, frame: Frame, t: Track) -> None:
        """A card reported with a hand by it, its place still: once the table around it is clear
        again (or it has waited ``hand_wait`` still localisations: a neighbour nudged for good),
        the look of its place is kept, and what changes after is weighed by ``restack``."""
        t.look_waited += 1
        if t.look_waited >= self.settings.hand_wait or change_around(t.look_before, frame.image, t.quad) <= RESTACK_CLEAR:
            t.look_before = None
            self._remember_look(t)

    def _restack(self, frame: Frame, t: Track, verdict: str, card: str | None, conf: float, votes) -> list[TableEvent]:
        """A reported card's place named again (``_restacked``). The same card (the light changed,
        a shadow), or one of the cards its views hesitated with when it was named (the same card
        seen better, a hand no longer by it): nothing. A card reported beneath it: the card on top was taken (removed).
        Another card, lying nowhere else: it was laid squarely on this one (appeared, a card of
        its own, on top). An unclear naming, or a card lying elsewhere: nothing."""
        t.recheck = False
        if verdict == "card":
            renamed = self._renamed(frame, t, card, conf, votes)
            if renamed:
                return renamed
        if verdict != "card" or card == t.card or card in t.rivals:
            # the same card, or seen better than when it was named (a hand by it then): not a new card
            self._remember_look(t)
            return []
        below = next((o for o in self._tracks if o is not t and o.state == PRESENT and o.card == card
                      and o.ident < t.ident and covered_fraction(o.quad, t.quad) >= 0.5), None)
        if below is not None:
            self._tracks.remove(t)
            return [TableEvent(REMOVED, frame.index, float(frame.timestamp), t.zone, t.card)]
        if self._lying(card, t) is not None:
            self._remember_look(t)
            return []
        top = Track(self._next_id, t.quad, t.zone, frame.index, PRESENT, anchor=t.quad, card=card, confidence=conf,
                    rest_quad=t.quad, matched=True, seen=True, seen_zone=t.seen_zone)
        self._next_id += 1
        self._tracks.append(top)
        self._remember_look(top)  # the card beneath keeps its look: seen again once the top card is taken
        return [self._event(APPEARED, frame, top, card=card, confidence=conf, view=voting.best_vote(votes, card))]

    def _laid_where_followed(self, frame: Frame, t: Track, card: str, conf: float, votes) -> list[TableEvent]:
        """A reported card followed to a new place and named there as another card ``card``: the
        card finder lost it under a card being laid (the new card, carried over it, was taken for
        it and followed to where it came to rest). Unless ``card`` is one its own views hesitated
        with when it was named (the same card seen better), lies elsewhere on the table, the quad
        is the card's own part still showing (:meth:`_own_part`), lies across several cards
        reported or where nothing changed (:meth:`_nothing_new`), ``card`` is a card of its own (appeared) and the
        card it was taken for lies where it was reported, when named at :data:`LAID_OVER_CONFIDENCE`
        or more (the quad may be the card below, half hidden by the new one, and misread), or less
        surely on a quad lying mostly off the card's place (:meth:`_off_its_place`). Nothing
        otherwise, nor for a card that was asked about rather than named (no ``rivals``): its views
        were unclear already, and another name for it is no proof of another card."""
        if (t.rest_quad is None or not t.rivals or card in t.rivals or self._lying(card, t) is not None
                or (conf < LAID_OVER_CONFIDENCE and not self._off_its_place(t)) or self._own_part(t)):
            return []
        new = Track(self._next_id, t.quad, t.seen_zone or t.zone, frame.index, PRESENT, anchor=t.quad, card=card,
                    confidence=conf, rest_quad=t.quad, matched=True, seen=True, seen_zone=t.seen_zone,
                    still_before=self._still_table())
        if self._across_cards(new, card, conf) or self._nothing_new(frame, new, card):
            return []
        self._next_id += 1
        new.named_sides = sides(new.quad) if conf >= SIZE_CONFIDENCE else None
        new.rivals = tuple(c for c, _ in voting.candidates(votes, 3))
        self._tracks.append(new)
        self._remember_look(new)
        t.quad = t.anchor = t.rest_quad  # it lies where it was reported, under or beside the new card
        t.stable = 0
        return [self._event(APPEARED, frame, new, card=card, confidence=conf, view=voting.best_vote(votes, card))]

    def _off_its_place(self, t: Track) -> bool:
        """Whether a reported card's quad, followed and named again, now lies under ``laid_off``
        on the place where the card was reported: the card finder lost the card under one laid
        beside or over it and followed that one (a quad nudged, or the card seen again where it
        lies, stays mostly on its place)."""
        bar = self.settings.laid_off
        return bar > 0 and t.rest_quad is not None and self._on_rest(t) < bar

    @staticmethod
    def _on_rest(t: Track) -> float:
        """The share of a reported card's quad now lying on the place where it was reported."""
        return covered_fraction(t.quad, t.rest_quad)

    def _renamed(self, frame: Frame, t: Track, card: str, conf: float, votes) -> list[TableEvent]:
        """A reported card named under :data:`RENAMED_BELOW` and now named ``card``, one of the
        cards its views hesitated with when it was named, at ``sure_rename`` or more and lying
        nowhere else: its first views were a worse look at it (a hand over it, a quad half off
        it), and it is ``card`` (``renamed``, where it lies now). Nothing otherwise."""
        bar = self.settings.sure_rename
        if (bar <= 0 or card == t.card or card not in t.rivals or conf < bar
                or t.confidence is None or t.confidence >= RENAMED_BELOW or self._lying(card, t) is not None):
            return []
        was = t.card
        t.card, t.confidence, t.rest_quad = card, conf, t.quad
        t.zone = t.seen_zone or t.zone
        t.named_sides = sides(t.quad)
        self._remember_look(t)
        return [self._event(RENAMED, frame, t, card=card, confidence=conf, view=voting.best_vote(votes, card), was=was)]

    def _restacked(self, t: Track) -> bool:
        """Whether a reported card's place, still, looks different from when it was reported, and
        no card seen lies on it: a card laid squarely on it (found where it lies, so taken for it),
        or the card on top of it taken away."""
        if self._looks_unchanged(t):
            return False
        return not any(o.ident > t.ident and o.seen and o.state in (PRESENT, NEW)
                       and covered_fraction(t.quad, o.quad) >= self.settings.occlusion for o in self._tracks)

    def _moved(self, before: Quad, after: Quad) -> bool:
        return moved_away(before, after, self.settings.move_distance)

    def _unmatched(self, frame: Frame, t: Track, motion) -> None:
        if t.state == NEW:
            if any(v.card is not None for v in t.votes):
                # a card being named, hidden for a moment (a hand, a card laid over it): it keeps
                # its votes; lost for good, it is decided with the votes in hand
                t.missing += 1
                if t.missing > self.settings.lost_frames * 3:
                    self._lost.append(t)
                return
            if t.missing < self.settings.glimpse_frames and not self._region_moving(t.quad, motion):
                t.missing += 1  # a still quad the card finder finds only now and then: kept a while
                t.patchy = True
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

    @staticmethod
    def _place(t: Track) -> Quad:
        """Where ``t``'s look is kept and compared: where it was reported (else its quad). Kept at the
        quad of the frame and compared there, a quad found a few pixels off (under a nudge) made the
        place look changed at every still frame, and ``restack`` named the card again and again."""
        return t.rest_quad if t.rest_quad is not None else t.quad

    def _remember_look(self, t: Track) -> None:
        got = self._patch(self._place(t))
        t.snapshot = None if got is None else got[0]

    def _looks_unchanged(self, t: Track) -> bool:
        if t.snapshot is None:
            return False
        got = self._patch(self._place(t))
        if got is None or got[0].shape != t.snapshot.shape:
            return False
        return float(np.mean(np.abs(got[0] - t.snapshot))) < self.settings.unchanged

    # ------------------------------------------------------------ naming and decisions

    def _crop_quad(self, frame: Frame, t: Track) -> Quad:
        """Where to cut ``t``'s crop: its outline from what changed since the table last lay still
        (a new card, ``outline`` on, when one is found), else its quad."""
        if not self.settings.outline or t.before is None or t.state != NEW or t.piece:
            return t.quad
        found = outline_from_change(t.before, frame.image, t.quad)
        if found is None:
            return t.quad
        self.stats.outlined += 1
        return found

    def _name(self, frame: Frame, tracks: list[Track]) -> None:
        s = self.settings
        quads = [self._crop_quad(frame, t) for t in tracks]
        crops = [self.cropper(frame.image, q) for q in quads]
        namer = self._reader()
        named_crops = crops
        if s.view_spread > 0 and callable(getattr(namer, "run", None)) and getattr(namer, "labels", None):
            # each view named from its quad, grown and shrunk, as one (vision.votes.SpreadViews)
            spread = [voting.spread_quads(q, s.view_spread) for q in quads]
            named_crops = [c if k == 0 else self.cropper(frame.image, sq)
                           for c, qs in zip(crops, spread) for k, sq in enumerate(qs)]
            namer = voting.SpreadViews(namer, len(spread[0]) if spread else 1)
        self.stats.crops += len(named_crops)
        possible = self._possible_now()
        if s.new_change > 0:
            for t in tracks:
                if t.state == NEW and t.first_view is None:  # the table as it was when it was first named at rest
                    t.first_view, t.first_view_at = self._table_view(frame), frame.index
        for t, crop, vote in zip(tracks, crops, voting.namer_votes(namer, named_crops, possible, s.min_support)):
            dropped = 0
            if s.red_ink > 0 or self.trace is not None:
                vote.red = voting.red_ink(crop)
            if s.look_change > 0 and t.state == NEW:
                vote.look = voting.look_of(crop)
                if t.views < 2 * s.votes:  # a card whose look never settles is decided with its views
                    kept = voting.same_look(t.votes, vote, s.look_change)
                    dropped = len(t.votes) + 1 - len(kept)
                    t.votes = kept
                    self.stats.dropped += dropped
                else:
                    t.votes.append(vote)
                t.views += 1
            else:
                t.votes.append(vote)
            dropped, t.cleared = dropped + t.cleared, 0  # the views cleared since the last one (the quad moved) too
            if self.trace is not None:
                extra = {} if vote.model_top is None else {"model": [[c, round(p, 3)] for c, p in vote.model_top]}
                if vote.red is not None:
                    extra["red"] = round(vote.red, 1)
                if vote.alone:
                    extra["alone"] = True
                self.trace("vote", frame.index, t.ident, t.quad,
                           {"top": vote.top, "card": vote.card, "conflict": vote.conflict, "state": t.state,
                            "dropped": dropped, **extra})

    def _decide(self, frame: Frame, named: list[Track]) -> list[TableEvent]:
        events = []
        for t in named:
            if t in self._tracks:
                events += self._conclude(frame, t, final=False)
        return events

    def _conclude(self, frame: Frame, t: Track, final: bool, lost: bool = False) -> list[TableEvent]:
        verdict, card, conf = voting.verdict(t.votes, self._judged_with(), final, t.piece)
        withheld = False  # an uncertain whose views are not the card's own for sure: asked without a view
        gave_way = False  # the card below showing, dropped for the new card found with it (from_under)
        if verdict == "wait":
            return []
        if lost:
            # a card lost while being named: only a confident naming counts; seen too few times
            # to be named, it is asked (unless it is a card already lying on the table), but for
            # a single view named at ``lost_single`` or more (covered by the next card at once)
            if verdict != "card" or self._lying(card, t) is not None:
                verdict = "none"
            elif sum(v.card == card for v in t.votes) < self.settings.min_votes and not self._one_sure_view(t.votes):
                verdict = "uncertain"
        if t.patchy and t.state == NEW and not lost and (
                (verdict == "uncertain" and voting.best_score(t.votes) < PATCHY_CONFIDENCE)
                or (verdict == "card" and conf < PATCHY_CONFIDENCE and not self._laid_in_the_dark(frame, t))):
            # found only now and then, and named neither surely nor clearly: what a glimpse would have
            # been (a card its views name clearly, short of a bar, is a card: it is asked; a naming lying
            # beside the cards reported, where the table changed, a card laid in dim light: patchy_laid)
            verdict = "none"
        if verdict in ("card", "uncertain") and not (t.reverify or t.recheck):
            # cards are laid one at a time: of two overlapping quads found at the same moment, one
            # is false (found across the pile); the clearer one is decided first, the other then
            # dropped (a card seen as the same card is left to the twin rules below)
            twin = self._landing_twin(t)
            under = verdict == "card" and self._from_under(t, card)
            # a new card found with it, itself the part of a card below showing, is not waited for
            twin_new = twin is not None and twin.state == NEW and not final and not self._twin_from_under(twin)
            if under and twin_new:
                return []  # the part of a card below showing: the quad found with it is the new card
            if (twin_new and len(t.votes) < 2 * self.settings.votes
                    and (verdict == "uncertain" or not twin.votes or voting.best_score(twin.votes) > voting.best_score(t.votes))):
                return []  # wait for it
            if (twin is not None and twin.state == PRESENT and twin.card is not None
                    and (verdict == "uncertain" or card != twin.card)):
                verdict = "none"
            elif verdict == "uncertain" and self._across_pile(t, t.votes):
                verdict = "none"  # a quad found across the cards reported (a new card lies on top of them)
            elif verdict == "card" and self._across_cards(t, card, conf):
                verdict = "none"  # named, but it lies on several cards reported: no card lies there alone
            elif self._nothing_new(frame, t, card):
                verdict = "none"  # where it lies the table looks as it did before: no card came there
            elif under and twin is not None and twin.state == PRESENT:
                verdict, gave_way = "none", True  # the new card found with it is reported: the card below showing
            elif under:
                verdict, withheld = "uncertain", True  # asked; its views may be the card below: not learned from
        if self.trace is not None:
            union, most = self._pile_shares(t)  # for diagnosis: how it lay on the cards reported
            changed = {}  # ... and how much of it changed since (a new card's)
            if self.settings.new_change > 0 and not t.reverify and t.state == NEW:
                changed = {"changed": self._change_since_below(frame, t), "changed_still": self._change_since_still(frame, t)}
                changed = {k: round(v, 3) for k, v in changed.items() if v is not None}
            elif t.reverify and t.rest_quad is not None and (still := self._still_table()) is not None:
                changed = {"on_rest": round(self._on_rest(t), 3), "changed_now": round(self._changed_from(still, frame, t), 3)}
            self.trace("verdict", frame.index, t.ident, t.quad,
                       {"verdict": verdict, "card": card, "confidence": conf, "votes": len(t.votes),
                        "reverify": t.reverify, "patchy": t.patchy, "pile": round(union, 3), "on_one": round(most, 3),
                        "from_under": "asked" if withheld else "gave way" if gave_way else None,
                        "read": self.reading.sure_share(), **changed})
        votes, t.votes = t.votes, []
        before, t.before = t.before, None  # decided: the table before it is no longer needed (but by _named_by_hand)
        unread = self.deck_unread()  # no card named without a question (but what the memory names alone: _recalled)
        if t.recheck:
            return self._restack(frame, t, "uncertain" if unread and verdict == "card" else verdict,
                                 card, conf, votes)
        if t.reverify:
            t.reverify = False
            if verdict == "card" and card != t.card and not unread:
                laid = self._laid_where_followed(frame, t, card, conf, votes) or self._renamed(frame, t, card, conf, votes)
                if laid:
                    return laid
            moved = t.rest_quad is None or self._moved(t.rest_quad, t.quad)  # else named again after a nudge
            t.rest_quad = t.quad
            self._remember_look(t)
            if verdict == "card" and card == t.card and moved:
                t.zone = t.seen_zone or t.zone
                return [self._event(MOVED, frame, t, card=card, confidence=conf)]
            # a nudge, or not confirmed (a partly hidden card seen differently): it stays where it was
            return []
        if verdict == "none":
            t.state = IGNORED
            return []
        if verdict == "card":
            twin = self._lying(card, t)
            if twin is not None:
                same_place = not self._moved(twin.rest_quad, t.quad)
                if twin.seen and not same_place:
                    t.state = IGNORED  # a second view of a card already on the table
                    return []
                # the same card: found again where it was (no event), or elsewhere while its old place emptied (moved)
                self._tracks.remove(twin)
                t.ident, t.born = twin.ident, twin.born  # keeps its place in the stacking order, and when it came
                if twin.first_view is not None:  # ... and the table as it was when it was first named
                    t.first_view, t.first_view_at = twin.first_view, twin.first_view_at
                t.state, t.card, t.confidence, t.rest_quad = PRESENT, card, conf, t.quad
                t.named_sides = twin.named_sides  # its size, which the card finder's other quads are weighed by
                self._remember_look(t)
                if same_place:
                    t.zone = twin.zone
                    return []
                return [self._event(MOVED, frame, t, card=card, confidence=conf)]
        if verdict == "card" and (not unread or self._recalled(votes, card, conf)) and not self._unjudged_unsure(votes, card):
            self._decided(votes)
            t.state, t.card, t.confidence, t.rest_quad = PRESENT, card, conf, t.quad
            t.named_sides = sides(t.quad) if conf >= SIZE_CONFIDENCE else None
            t.rivals = tuple(c for c, _ in voting.candidates(votes, 3))
            self._remember_look(t)
            self._named_by_hand(frame, t, before)
            best = voting.best_vote(votes, card)
            return [self._event(APPEARED, frame, t, card=card, confidence=conf, view=best)]
        # unclear, or named on a deck the card model cannot read: asked
        cands = voting.candidates(votes)
        if self._second_view(t, cands):
            t.state = IGNORED  # a quad across a card already named, mostly seen as that card
            return []
        self._decided(votes)
        t.state, t.card, t.confidence, t.rest_quad = PRESENT, None, None, t.quad
        t.first_view = None  # unclear: maybe a quad across other cards, or a card found late, under a card laid since
        self._remember_look(t)
        self._named_by_hand(frame, t, before)
        best = cands[0][1] if cands else None
        excluded = voting.excluded_card(votes, getattr(self.namer, "labels", None), self._possible_now())
        return [self._event(UNCERTAIN, frame, t, confidence=best, candidates=cands,
                            view=None if withheld else voting.best_vote(votes), excluded=excluded,
                            unread=self.deck_unread())]

    def _judged_with(self):
        """The settings a card's views are judged with: the tracker's, without the ``red_ink`` bar on a
        deck that does not print its hearts' and diamonds' pip cards in red ink, as the namer knows
        it (``red_pips``: an enrolled deck's faces, the views the table's deck memory kept): there a
        red pip card's views show no red ink half the time, and no black card would be held by it."""
        s = self.settings
        red_pips = getattr(self.namer, "red_pips", None)
        if s.red_ink <= 0 or not callable(red_pips) or red_pips(s.red_ink) is not False:
            return s
        if self._without_red is None or self._without_red[0] is not s:
            self._without_red = (s, replace(s, red_ink=0.0))
        return self._without_red[1]

    def _gauged(self) -> bool:
        """Whether the deck's reading is gauged (``unread_deck`` set) and the namer gives the card
        model's probabilities (the model, the deck memory weighing them), which the gauge is read
        on; an enrolled deck's prototypes and the simulator's truth name on other scales."""
        namer = self.namer
        return (self.settings.unread_deck > 0 and callable(getattr(namer, "run", None))
                and bool(getattr(namer, "labels", None)) and getattr(namer, "reads_with_model", True))

    def _reader(self):
        """The namer the views are named with: on a deck the card model cannot read, the table's deck
        memory alone (``unread_memory``: the namer's :meth:`~vision.deck_memory.MemoryNamer.alone`),
        else the namer."""
        namer = self.namer
        alone = getattr(namer, "alone", None)
        if self.settings.unread_memory and callable(alone) and self.deck_unread():
            return alone()
        return namer

    def _recalled(self, votes, card: str, conf: float) -> bool:
        """Whether ``card``, named on a deck the card model cannot read, was named by the deck memory
        alone, every view, at ``memory_alone`` or more, or first on every view and at
        ``alone_sure_view`` or more on one (its kept views' keypoints settle a view at 0.999):
        committed without a question."""
        s = self.settings
        if s.memory_alone <= 0 or not votes or not all(v.alone for v in votes):
            return False
        return conf >= s.memory_alone or voting.one_view_settles(votes, card, s.alone_sure_view)

    def _unjudged_unsure(self, votes, card: str) -> bool:
        """Whether the deck in play is not judged yet (fewer than ``READ_CARDS`` cards decided) and the
        card model alone named none of these views at ``unjudged_sure`` or more, or named ``card``
        under ``unjudged_mean`` on average over them all: asked, not committed."""
        s = self.settings
        if not self._gauged() or self.reading.sure_share() is not None:
            return False  # (a bar at 0 holds for every card)
        return best_reading(votes) < s.unjudged_sure or voting.scores(votes, model=True).get(card, 0.0) < s.unjudged_mean

    def deck_unread(self) -> bool:
        """Whether the deck in play is one the card model cannot read (``unread_deck``, :mod:`vision.deck_reading`):
        every card is then asked, none named without a question."""
        return self._gauged() and self.reading.unread(self.settings.unread_deck)

    def _decided(self, votes) -> None:
        """A new card decided (reported or asked): its best view's reading told to the deck's gauge."""
        if self._gauged():
            self.reading.decided(best_reading(votes))

    def _one_sure_view(self, votes) -> bool:
        """Whether a lost card's only view named it at ``lost_single`` or more (0: never)."""
        bar = self.settings.lost_single
        return len(votes) == 1 and votes[0].card is not None and 0 < bar <= votes[0].confidence

    def _across_pile(self, t: Track, votes) -> bool:
        """An unclear quad found across the cards reported, not a card to ask about: it lies
        ``inside_pile`` on them, or ``faceless_pile`` when its views' best candidate is "not a
        card face" (the card finder's quad spans parts of several cards), or ``weak_pile`` when
        it scores under ``weak_best``; or it is a strip of one of them (``strip_area``)."""
        s = self.settings
        share = self._inside_pile(t)
        if share >= s.inside_pile:
            return True
        if self._a_strip(t, share):
            return True
        best = voting.candidates(votes, 1)
        if 0 < s.weak_pile <= share and (not best or best[0][1] < s.weak_best):
            return True
        if s.faceless_pile <= 0 or share < s.faceless_pile:
            return False
        return bool(best) and best[0][0] is None

    def _across_cards(self, t: Track, card: str | None = None, conf: float = 1.0) -> bool:
        """A quad named as a card that lies ``across_cards`` on the cards reported, but no more
        than :data:`ACROSS_ONE` on any one of them: the card finder's quad across several cards
        of a pile (a card laid on a trick lies on at most four fifths of the pile below it; a
        card laid squarely on another, as on a discard pile, lies on that one). Or a quad under
        ``strip_area`` of a card's area lying :data:`STRIP_PILE` on them: a strip of a card
        reported (the part showing from under the cards laid on it), found as a card. Or a card
        ``card`` named under ``weak_named`` (mean confidence ``conf``) on a quad lying
        ``inside_pile`` on them, as an unclear quad found across them would, or under
        ``buried_named`` on a quad lying :data:`BURIED_PILE` on them, buried in the pile (none of
        them named ``card``: that is the card found again)."""
        s = self.settings
        if s.across_cards <= 0 and s.strip_area <= 0 and s.weak_named <= 0 and s.buried_named <= 0:
            return False
        union, most = self._pile_shares(t)
        if self._a_strip(t, union):
            return True
        weak = conf < s.weak_named and union >= s.inside_pile
        buried = conf < s.buried_named and union >= BURIED_PILE
        if (weak or buried) and self._lying(card, t) is None:
            return True
        return 0 < s.across_cards <= union and most <= ACROSS_ONE

    def _a_strip(self, t: Track, on_pile: float) -> bool:
        """Whether ``t``'s quad, lying ``on_pile`` on the cards reported, is a strip of one of them
        (the part showing from under the cards laid on it): :data:`STRIP_PILE` on them and under
        ``strip_area`` of the named cards' area (never before a card is named)."""
        bar = self.settings.strip_area
        if bar <= 0 or on_pile < STRIP_PILE:
            return False
        shape = card_shape(self._tracks)  # the named cards' sides: asked only of a quad on the pile
        if shape is None:
            return False
        a, b = sides(t.quad)
        return a * b < bar * shape[0] * shape[1]

    def _from_under(self, t: Track, card: str | None) -> bool:
        """Whether ``t``'s quad, named ``card``, lies ``from_under`` or more on one card reported
        that is not ``card``: a card laid on a trick lies on a fifth to a half of the card below,
        the card finder's quad on the part of that card still showing lies on it almost wholly
        (and a misreading of that part is a card the player did not play)."""
        bar = self.settings.from_under
        if bar <= 0 or card is None:
            return False
        reported = [o for o in self._tracks if o is not t and o.state == PRESENT]
        _, each = shares_on_each(t.quad, [self._place(o) for o in reported], 0.25)
        if not each or max(each) < bar:
            return False
        return reported[int(np.argmax(each))].card != card

    def _own_part(self, t: Track) -> bool:
        """Whether a reported card's quad, followed to where it rests, lies ``from_under`` or more
        on the card's own place: the part of it still showing from under a card laid on it (a
        card laid over it lies on it as a trick's cards do, a fifth to a half)."""
        bar = self.settings.from_under
        return bar > 0 and t.rest_quad is not None and pile_shares(t.quad, [t.rest_quad], 0.25)[1] >= bar

    def _twin_from_under(self, twin: Track) -> bool:
        """Whether a card still being named is, by its views so far, :meth:`_from_under` (the
        quad found with it then waits for it no longer)."""
        best = voting.candidates(twin.votes, 1)
        return bool(best) and self._from_under(twin, best[0][0])

    def _inside_pile(self, t: Track) -> float:
        """How much of ``t``'s quad lies on the cards reported so far (named or asked; their union)."""
        return self._pile_shares(t)[0]

    def _table_view(self, frame: Frame) -> np.ndarray:
        """The whole frame, small (:data:`TABLE_VIEW_WIDTH` wide), made once per frame."""
        if self._view is None or self._view[0] != frame.index:
            self._view = (frame.index, self._small(frame.image), TABLE_VIEW_WIDTH / frame.image.shape[1])
        return self._view[1]

    def _small(self, image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        return cv2.resize(image, (TABLE_VIEW_WIDTH, max(1, round(h * TABLE_VIEW_WIDTH / w))), interpolation=cv2.INTER_AREA)

    def _keep_still_view(self, frame: Frame, moving: bool) -> None:
        """Keeps the table as it lay just before the latest motion began (small): the frame
        before the first moving one, shrunk once per motion (``new_change``, ``patchy_laid``)."""
        if not moving:
            self._still_frame = frame
        elif self._still_frame is not None and (self._still_view is None or self._still_view[0] != self._still_frame.index):
            self._still_view = (self._still_frame.index, self._small(self._still_frame.image))

    def _still_table(self) -> np.ndarray | None:
        """The table, small, as it lay just before the latest motion began (None before one)."""
        return None if self._still_view is None else self._still_view[1]

    def _laid_in_the_dark(self, frame: Frame, t: Track) -> bool:
        """Whether a new quad the card finder found only now and then (``patchy``), named under
        :data:`PATCHY_CONFIDENCE`, is a card laid all the same: it lies mostly beside the cards
        reported (under :data:`NEW_CHANGE_PILE` on them) and ``patchy_laid`` or more of it changed
        since the table lay still before the motion it was found in. The strips of cards and
        the quads across the pile that such a rule drops lie on the cards reported; a card laid
        in dim light, which the card finder finds one frame in three, changed its place."""
        bar = self.settings.patchy_laid
        if bar <= 0 or self._inside_pile(t) >= NEW_CHANGE_PILE:
            return False
        changed = self._change_since_still(frame, t)
        return changed is not None and changed >= bar

    def _change_since_still(self, frame: Frame, t: Track) -> float | None:
        """The share of a new card's quad that changed since the table lay still just before
        the motion it was found in (None without that view)."""
        return None if t.still_before is None else self._changed_from(t.still_before, frame, t)

    def _changed_from(self, view: np.ndarray, frame: Frame, t: Track) -> float:
        """The share of ``t``'s quad that changed from ``view`` (a small view of the table) to ``frame``."""
        now = self._table_view(frame)
        return change_inside(view, now, np.asarray(t.quad, np.float32) * self._view[2])

    def _change_since_below(self, frame: Frame, t: Track) -> float | None:
        """The share of a new card's quad that changed since the table was seen as the latest of
        the reported cards it lies on was first named at rest (that card, and every card under
        it, already lay there then: a card laid since changed its place; a quad found across
        them, nothing but a hand's shadow). Only cards the camera named count (an unclear quad
        asked about may be found late, a card laid since already in its view). None when the
        quad lies on no such card, or under ``NEW_CHANGE_PILE`` on the cards reported."""
        reported = [o for o in self._tracks if o is not t and o.state == PRESENT]
        union, each = shares_on_each(t.quad, [self._place(o) for o in reported], 0.25)
        under = [o for o, share in zip(reported, each) if o.first_view is not None and share >= NEW_CHANGE_ON]
        if not under or union < NEW_CHANGE_PILE:
            return None
        ref = max(under, key=lambda o: o.first_view_at)
        return self._changed_from(ref.first_view, frame, t)

    def _nothing_new(self, frame: Frame, t: Track, card: str | None) -> bool:
        """Whether a new quad, named ``card`` (no card of that name lying on the table) or unclear
        (None), is no new card: under ``new_change`` of it changed since the cards reported under
        it were seen (:meth:`_change_since_below`) and since the table lay still before the motion
        it was found in (:meth:`_change_since_still`): a quad the card finder found across cards
        already there (a card laid changes most of its place, over other cards too)."""
        bar = self.settings.new_change
        if bar <= 0 or (card is not None and self._lying(card, t) is not None):
            return False
        below = self._change_since_below(frame, t)
        if below is None or below >= bar:
            return False
        still = self._change_since_still(frame, t)
        return still is None or still < bar

    def _pile_shares(self, t: Track) -> tuple[float, float]:
        """How much of ``t``'s quad lies on the cards reported so far (named or asked): on their
        union, and on the one it lies on most."""
        named = [self._place(o) for o in self._tracks if o is not t and o.state == PRESENT]
        return pile_shares(t.quad, named, 0.25)

    def _lying(self, card: str | None, besides: Track) -> Track | None:
        """The track of ``card`` lying on the table (reported), other than ``besides``; None: none."""
        return next((o for o in self._tracks if o is not besides and o.state == PRESENT and o.card == card), None)

    def _landing_twin(self, t: Track) -> Track | None:
        """Another card found at the same moment (born within ``landing`` frames) that overlaps
        ``t``: cards are laid one at a time, so of two such quads one is a false one found across
        the pile. A named one first, else one still being named."""
        twins = [o for o in self._tracks if o is not t and o.state in (PRESENT, NEW)
                 and abs(o.born - t.born) <= self.settings.landing
                 and max(covered_fraction(t.quad, o.quad), covered_fraction(o.quad, t.quad)) >= 0.25]
        twins.sort(key=lambda o: o.state != PRESENT)
        return twins[0] if twins else None

    def _second_view(self, t: Track, cands: list[tuple[str | None, float]]) -> bool:
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

    def _event(self, kind, frame: Frame, t: Track, *, card=None, confidence=None, candidates=(), corners="quad",
               view: voting.Vote | None = None, excluded: tuple[str, float] | None = None,
               was: str | None = None, unread: bool = False) -> TableEvent:
        quad = t.quad if corners == "quad" else None
        toward = None
        if quad is not None and t.zone is not None and self._frame_size is not None:
            toward = self.zones.seat_toward(quad, t.zone, *self._frame_size)
        return TableEvent(
            kind, frame.index, float(frame.timestamp), t.zone, card,
            None if quad is None else corners_list(quad), confidence, list(candidates),
            None if view is None else view.embedding, None if view is None else view.probs,
            view_red=None if view is None else view.red, toward=toward,
            excluded=excluded, was=was, unread=unread,
        )

    # ------------------------------------------------------------ nothing vanishes

    def _possible_now(self) -> PossibleCards | None:
        """The possible cards, with the cards lying on the table (they may be moved)."""
        if self._possible is None:
            return None
        return self._possible.with_cards(t.card for t in self._tracks if t.state == PRESENT and t.card)

    def _present_quads(self) -> dict[int, Quad]:
        """Each reported card's quad where it was reported (or last nudged)."""
        return {t.ident: (t.rest_quad if t.rest_quad is not None else t.quad) for t in self._tracks if t.state == PRESENT}

    def _audit_table(self, frame: Frame) -> list[TableEvent]:
        """The table settled with nothing in doubt: a card-shaped change since the last audit
        that no card reported, moved or taken explains is a card laid unseen, asked now
        (``uncertain``, the namer's candidates for it), before the next card is played."""
        s = self.settings
        still = s.still_tolerance * self._frame_size[0]
        now = self._present_quads()
        explaining: list[Quad] = []
        for ident, quad in now.items():
            old = self._audit_cards.get(ident)
            if old is None:
                explaining.append(quad)
            elif quad_distance(old, quad) > still:
                explaining += [old, quad]
        explaining += [q for ident, q in self._audit_cards.items() if ident not in now]
        self.stats.audits += 1
        self._card_sides = card_shape(self._tracks) or self._card_sides
        regions = self._audit.audit(frame.image, self._zone_mask_small, explaining, self._card_sides)
        events: list[TableEvent] = []
        possible = self._possible_now()  # the cards asked here are unnamed: it holds for them all
        for region in regions:
            zone = self._zone_of(region.quad)
            if zone is None:
                continue
            t = Track(self._next_id, region.quad, zone, frame.index, anchor=region.quad)
            crop = self.cropper(frame.image, region.quad)
            self.stats.crops += 1
            vote = voting.namer_votes(self.namer, [crop], possible, s.min_support)[0]
            cands = voting.candidates([vote])
            asked = bool(cands) and cands[0][0] is not None and not self._second_view(t, cands)
            if self.trace is not None:
                self.trace("audit", frame.index, t.ident, t.quad,
                           {"top": vote.top, "area": round(region.area, 2), "aspect": round(region.aspect, 2),
                            "fill": round(region.fill, 2), "asked": asked})
            if not asked:
                continue  # not a card face (a hand, a sleeve), or a card already named seen again
            self._next_id += 1
            t.state, t.rest_quad = PRESENT, region.quad
            self._tracks.append(t)
            self._remember_look(t)
            self.stats.unseen += 1
            events.append(self._event(UNCERTAIN, frame, t, confidence=cands[0][1], candidates=cands, view=vote))
        self._audit_cards = self._present_quads()
        return events

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

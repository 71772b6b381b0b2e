"""One card the tracker follows (:class:`Track`) and the states it goes through.

``NEW``: found, not yet decided (being named); ``PRESENT``: reported (named, or
asked as ``uncertain``); ``IGNORED``: decided to be no card of its own (a
second view, a false quad), followed only so that it is not found again as new.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from vision.track_geometry import Quad
from vision.votes import Vote


class TrackState(StrEnum):
    NEW = "new"
    PRESENT = "present"
    IGNORED = "ignored"


NEW, PRESENT, IGNORED = TrackState.NEW, TrackState.PRESENT, TrackState.IGNORED


@dataclass
class Track:
    """A card followed from frame to frame: where it is, how still, its votes, what was reported."""

    ident: int
    quad: Quad
    zone: str
    born: int
    state: TrackState = NEW
    anchor: Quad | None = None
    stable: int = 0
    votes: list[Vote] = field(default_factory=list)
    card: str | None = None  # named card (PRESENT); None for an uncertain one
    confidence: float | None = None
    rest_quad: Quad | None = None  # where it was when last reported
    missing: int = 0  # localisations without it while its place was still and uncovered
    missing_since: int | None = None
    patchy: bool = False  # new, and kept through localisations that did not find it (``glimpse_frames``)
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
    before: np.ndarray | None = None  # the table as it last lay still when it was found (``outline``, ``hand_clear``)
    first_view: np.ndarray | None = None  # with ``new_change``: the whole table, small, when it was first named at rest
    first_view_at: int = -1  # ... and the frame of that view
    still_before: np.ndarray | None = None  # with ``new_change``, ``patchy_laid``: the whole table, small, just
    # before the motion it came in
    views: int = 0  # namings spent on it while new (the votes kept, and those a later look dropped)
    cleared: int = 0  # votes cleared since its last view because its quad moved (told to the trace)
    waited: int = 0  # still localisations it was not named at because the table around it had changed
    recheck: bool = False  # a reported card whose place looks different, nothing tracked on it: being named again
    rivals: tuple[str | None, ...] = ()  # the best cards of its views when it was named (the card itself among them)
    look_before: np.ndarray | None = None  # named with a hand by it (``restack``): the table before it, until its ring clears
    look_waited: int = 0  # still localisations spent waiting for that

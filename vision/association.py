"""Which quad found at this frame is which card followed: rows cut into cards, then nearest first.

Two steps, both pure functions of the tracks and the quads:

* :func:`split_rows`: once a card is named its size is known; a quad
  ``row_area`` times as large and as tall as a card is long is a row of cards
  laid side by side (a chien), cut into card-sized pieces snapped to the
  cards' edges; any other quad ``max_area`` times as large spans several cards
  and is left out, and so is a quad under ``min_area`` times a card's area (a
  strip of a card showing from under others, found as a card of its own).
* :func:`match_nearest`: each quad goes to its nearest track by corner
  distance, nearest first and a settled track first at equal distance. A card
  followed at the previous localisation may have moved up to ``follow``; one
  found again after being hidden must be where it was (``2 × still``). So a
  card at rest keeps its track, a card moved slowly is followed, and a card
  whose own quad was not found does not take its neighbour's.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from vision.track_geometry import Quad, quad_distance, row_pieces, sides
from vision.tracker_settings import NEAR_ROW_CARDS, NEAR_ROW_SCALE, ROW_HEIGHT, TrackerSettings
from vision.tracks import IGNORED, NEW, PRESENT, Track


def card_shape(tracks: Sequence[Track]) -> tuple[float, float] | None:
    """(short, long) side of the cards named so far (the median), None before the first."""
    named = [t.named_sides for t in tracks if t.state == PRESENT and t.named_sides is not None]
    if not named:
        return None
    return float(np.median([a for a, _ in named])), float(np.median([b for _, b in named]))


def split_rows(quads: list[Quad], shape: tuple[float, float] | None, s: TrackerSettings,
               image: np.ndarray | None = None) -> tuple[list[Quad], list[Quad]]:
    """(the quads to associate, the pieces among them that were cut from rows).

    Cards laid side by side in a row may be found as one wide quad (a row of three upright
    cards is shaped like one card lying across): a quad ``row_area`` times a card's area
    (``shape``: the named cards' sides) or more, whose short side is as long as a card, is
    replaced by the card-sized quads the row holds; so is a quad up to :data:`NEAR_ROW_SCALE`
    times as tall, at least :data:`NEAR_ROW_CARDS` of its cards long, cut into cards of its own
    height (under a tilted camera a row at the seat nearest it looks larger). Each piece is
    moved onto the card's edges in ``image``; a piece lying on another quad found is left out
    (that one is kept). Any other quad ``max_area`` times a card's area or more spans several
    cards: it is left out (it would be named as none of them); so is one under ``min_area``
    times a card's area, a strip of a card (named, it reads as whatever its few pips look
    like). Before any card is named, the quads are kept as found."""
    if shape is None:
        return quads, []
    short, long = shape
    singles, pieces = [], []
    for q in quads:
        a, b = sides(q)
        if a * b >= s.row_area * short * long and abs(a - long) <= ROW_HEIGHT * long and b >= 1.8 * short:
            pieces += row_pieces(q, short)
        elif (1 + ROW_HEIGHT) * long < a <= NEAR_ROW_SCALE * long and b >= NEAR_ROW_CARDS * short * a / long:
            pieces += row_pieces(q, short * a / long)  # a row nearer a tilted camera: cards of its own height
        elif s.min_area * short * long <= a * b < s.max_area * short * long:
            singles.append(q)
    if not pieces:
        return singles, []
    if image is not None:
        from vision.locator import snap_quads

        pieces = [np.asarray(p, np.float32) for p in snap_quads(image, pieces)]  # onto the cards' own edges
    near = 0.25 * short
    out, kept = list(singles), []
    for p in pieces:
        if all(quad_distance(p, o) > near for o in out):
            out.append(p)
            kept.append(p)
    return out, kept


def match_nearest(tracks: Sequence[Track], quads: Sequence[Quad], follow: float, still: float) -> tuple[list[tuple[Track, int]], list[int]]:
    """([(track, index of its quad)], indices of the quads no track took), nearest first.

    A track matched at the previous localisation (``was_matched``) reaches ``follow``; any
    other ``2 × still``. At equal distance a settled track (not ``NEW``) goes first."""
    free = list(range(len(quads)))
    pairs = []  # (distance, not yet settled, track ident, quad index)
    by_ident = {}
    for t in tracks:
        if t.state not in (PRESENT, IGNORED, NEW):
            continue
        by_ident[t.ident] = t
        reach = follow if t.was_matched else 2 * still
        for j in free:
            d = quad_distance(t.quad, quads[j])
            if d <= reach:
                pairs.append((d, t.state == NEW, t.ident, j))
    matches, used = [], set()
    for _d, _new, ident, j in sorted(pairs):
        if ident in used or j not in free:
            continue
        used.add(ident)
        free.remove(j)
        matches.append((by_ident[ident], j))
    return matches, free

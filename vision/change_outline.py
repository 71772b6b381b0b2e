"""A new card's outline from what changed: the table as it last lay still, against the frame now.

At a table the card just laid is on top and is exactly what changed since the
table was last still. :func:`outline_from_change` compares the two frames
around the card finder's quad for that card (its *hint*): the tones of the
earlier frame are matched to the later one's on what lies around the card
(:func:`tone_map`: a lamp dimming or the camera's exposure drifting is no
change), and each side of the hint is fitted to the outermost strong step of
the change across it (:func:`fit_sides`: the new card's edge, whatever lies
beneath it; a side whose steps do not line up stays where it was). The result
is the card's outline only when it looks like one: the change fills it, it has
a card's shape and about the hint's size, and lies near the hint; otherwise
None, and the hint stays the card's quad. :func:`change_around` says how much
changed just around a card (a hand or its shadow still by it, so that the card
is named only once the table around it is clear). :class:`StillBackground` keeps the
table as it last lay still, cell by cell, from the tracker's motion masks.

Pure functions of numpy images; the tracker keeps the frames
(:class:`vision.tracker.Tracker`, setting ``outline``), and
``benchmarks/bench_outline.py`` measures the outline's corner error against the
card finder's on the simulated table, per condition.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.quad_fit import corners_of_sides, side_edges
from vision.track_geometry import Quad, quad_area, sides


@dataclass(frozen=True)
class OutlineSettings:
    """When a changed region is taken for the new card."""

    margin: float = 0.35  # the frames compared: the hint's box grown by this much of its size on each side
    min_change: float = 22.0  # grey levels (0-255, brightness matched) that are a change, at least ...
    noise_times: float = 4.0  # ... and this many times the median change around the card
    area: tuple[float, float] = (0.8, 1.25)  # the outline's area over the hint's
    aspect: float = 0.12  # its long side over short side within this much (relative) of the hint's
    card_aspect: tuple[float, float] = (1.4, 2.3)  # ... and within these (a card's, seen from above)
    on_card: float = 0.35  # the changed pixels inside the hint, over its area (a dark print on a dark table is no change)
    fill: float = 0.5  # the changed pixels inside the outline, over its area
    shift: float = 0.2  # its mean corner distance from the hint, in short sides of the hint
    search: float = 0.3  # how far each side looks for the change's edge, in short sides
    rounds: int = 3  # snapping rounds (until the outline settles)
    reach: float = 0.25  # the change counted: within this many short sides of the hint


def tone_map(before: np.ndarray, after: np.ndarray, unchanged: np.ndarray | None = None) -> np.ndarray:
    """Per channel, the 256-entry table that maps ``before``'s tones to ``after``'s (their
    histograms matched over the ``unchanged`` pixels, default all): a lamp dimming, the camera's
    exposure or white balance drifting is not a change, even when it is no simple gain.
    Shape (channels, 256), uint8; both images uint8, grey or BGR."""
    b = before if before.ndim == 3 else before[..., None]
    a = after if after.ndim == 3 else after[..., None]
    keep = np.ones(a.shape[:2], bool) if unchanged is None else unchanged
    if np.count_nonzero(keep) < 50:
        keep = np.ones(a.shape[:2], bool)
    levels = np.arange(256, dtype=np.float64)
    tables = []
    for c in range(a.shape[2]):
        nb = np.bincount(b[..., c][keep], minlength=256).astype(np.float64)
        na = np.bincount(a[..., c][keep], minlength=256).astype(np.float64)
        # each tone of ``before`` goes to the tone of ``after`` at the same rank (mid-rank)
        cb = (np.cumsum(nb) - nb / 2) / nb.sum()
        ca = (np.cumsum(na) - na / 2) / na.sum()
        seen_b, seen_a = nb > 0, na > 0
        to = np.interp(cb[seen_b], ca[seen_a], levels[seen_a])
        lo, hi = levels[seen_b][0], levels[seen_b][-1]
        # tones not seen around the card (the card's own, often) keep their distance to the nearest seen one
        table = np.interp(levels, levels[seen_b], to)
        table = np.where(levels < lo, to[0] - (lo - levels), np.where(levels > hi, to[-1] + (levels - hi), table))
        tables.append(np.clip(np.round(table), 0, 255))
    return np.stack(tables).astype(np.uint8)


def change_image(before: np.ndarray, after: np.ndarray, tables: np.ndarray | None = None,
                 smooth: int = 0) -> np.ndarray:
    """How much each pixel changed (uint8 grey levels, the largest over the channels) from
    ``before`` (its tones mapped by ``tables``, :func:`tone_map`; none: as it is) to ``after``,
    two same-sized uint8 images. ``smooth``: the size of a Gaussian kernel both are smoothed
    with first (the sensor's noise is no change)."""
    if smooth:
        after, before = cv2.GaussianBlur(after, (smooth, smooth), 0), cv2.GaussianBlur(before, (smooth, smooth), 0)
    b = before if before.ndim == 3 else before[..., None]
    a = after if after.ndim == 3 else after[..., None]
    out = None
    for c in range(a.shape[2]):
        bc = np.ascontiguousarray(b[..., c])
        if tables is not None:
            bc = cv2.LUT(bc, tables[c])
        d = cv2.absdiff(np.ascontiguousarray(a[..., c]), bc)
        out = d if out is None else cv2.max(out, d)
    return out


def change_region(change: np.ndarray, s: OutlineSettings = OutlineSettings()) -> np.ndarray:
    """The changed pixels (bool) of a :func:`change_image`, over the noise and cleaned of specks."""
    step = max(1, round((change.size / 4000) ** 0.5))
    bar = max(s.min_change, s.noise_times * float(np.median(change[::step, ::step])))
    mask = (change > bar).astype(np.uint8)
    k = max(1, round(min(mask.shape) / 120))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2 * k + 1, 2 * k + 1), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((4 * k + 1, 4 * k + 1), np.uint8))
    return mask > 0


def fit_sides(edges: np.ndarray, quad: np.ndarray, reach: float, samples: int = 12, min_share: float = 0.7,
              tolerance: float = 1.5) -> np.ndarray:
    """Each side of ``quad`` fitted to the outermost strong steps of ``edges`` across it (a line
    through them: it may turn as well as shift); a side with too few steps on one line (under
    ``min_share`` of its profiles within ``tolerance`` px of the fit) stays where it was."""
    q = np.asarray(quad, np.float32)
    t, shift, ok, n, r = side_edges(edges, q, reach, samples)
    starts, ends = q, np.roll(q, -1, axis=0)
    length = np.linalg.norm(ends - starts, axis=1)
    d = (ends - starts) / np.maximum(length[:, None], 1e-6)
    lines = []
    for i in range(4):
        good = ok[i].copy()
        line = None
        for _ in range(2):  # fit, drop the profiles off the line (a hand, a shadow), fit again
            if good.sum() < max(3, min_share * samples):
                line = None
                break
            a, b = np.polyfit(t[good], shift[i][good], 1)
            fit = a * t + b
            line = (a, b)
            good = ok[i] & (np.abs(shift[i] - fit) <= tolerance)
        if line is None or good.sum() < max(3, min_share * samples):
            lines.append(np.array([d[i, 0], d[i, 1], starts[i, 0], starts[i, 1]], np.float32))
            continue
        a, b = line
        p0 = starts[i] + n[i] * b  # the fitted line at t = 0 and t = 1
        p1 = ends[i] + n[i] * (a + b)
        v = (p1 - p0) / max(float(np.linalg.norm(p1 - p0)), 1e-6)
        lines.append(np.array([v[0], v[1], p0[0], p0[1]], np.float32))
    return corners_of_sides(lines, q, 2.5 * r)


def outline_from_change(before: np.ndarray, after: np.ndarray, hint: Quad,
                        s: OutlineSettings = OutlineSettings()) -> np.ndarray | None:
    """The new card's (4, 2) outline in ``after``'s pixels (corners in ``hint``'s order), from the
    change since ``before`` (the table still, before the card came) around ``hint`` (the card
    finder's quad for it); None when the change does not look like that one card."""
    return explain_outline(before, after, hint, s)[0]


def _around(hint: np.ndarray, shape: tuple[int, ...], s: OutlineSettings):
    """The box compared around ``hint`` (grown by ``s.margin`` of its size, inside an image of
    ``shape``), the hint's mask in it and the mask of what lies near it (within ``s.reach``
    short sides): ``((x0, y0, x1, y1), inside, near)``; None for a box under 8 pixels."""
    h, w = shape[:2]
    x0, y0 = hint.min(0)
    x1, y1 = hint.max(0)
    mx, my = (x1 - x0) * s.margin, (y1 - y0) * s.margin
    bx0, by0 = int(max(0, np.floor(x0 - mx))), int(max(0, np.floor(y0 - my)))
    bx1, by1 = int(min(w, np.ceil(x1 + mx))), int(min(h, np.ceil(y1 + my)))
    if bx1 - bx0 < 8 or by1 - by0 < 8:
        return None
    inside = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
    cv2.fillConvexPoly(inside, np.round(hint - (bx0, by0)).astype(np.int32), 1)
    short = sides(hint)[0]
    near = cv2.dilate(inside, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * int(s.reach * short) + 1,) * 2))
    return (bx0, by0, bx1, by1), inside, near


def change_inside(before: np.ndarray, after: np.ndarray, quad: Quad, s: OutlineSettings = OutlineSettings()) -> float:
    """The share of ``quad`` that changed from ``before`` (the table as it was seen earlier) to
    ``after``: a card laid there since changes most of it, even over other cards (their prints
    and its own differ); a quad the card finder found across cards that were already there,
    almost none. The light's change is taken out by the line that takes the tones around the
    quad from one to the other (:func:`line_tables`: other cards laid since near it, less
    than half of what lies around it, do not sway it), and a change is ``s.min_change`` grey
    levels or more, whatever else changed nearby (:func:`change_region`'s bar, a multiple of
    the box's median change, would rise with every card laid since). 1.0 when it cannot be
    told (frames of different sizes, a quad too small)."""
    hint = np.asarray(quad, np.float32).reshape(4, 2)
    if before.shape != after.shape:
        return 1.0
    found = _around(hint, after.shape, s)
    if found is None:
        return 1.0
    (bx0, by0, bx1, by1), inside, near = found
    n = int(np.count_nonzero(inside))
    if not n:
        return 1.0
    b, a = before[by0:by1, bx0:bx1], after[by0:by1, bx0:bx1]
    change = change_image(b, a, line_tables(b, a, near == 0), smooth=3)
    mask = cv2.morphologyEx((change > s.min_change).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return float(np.count_nonzero(mask & inside)) / n


def explain_outline(before: np.ndarray, after: np.ndarray, hint: Quad,
                    s: OutlineSettings = OutlineSettings()) -> tuple[np.ndarray | None, str]:
    """:func:`outline_from_change` and why: ``(outline, "found")`` or ``(None, reason)``."""
    hint = np.asarray(hint, np.float32).reshape(4, 2)
    if before.shape != after.shape:
        return None, "frames of different sizes"
    found = _around(hint, after.shape, s)
    if found is None:
        return None, "region too small"
    (bx0, by0, bx1, by1), inside, near = found
    b, a = before[by0:by1, bx0:bx1], after[by0:by1, bx0:bx1]
    tables = tone_map(b, a, unchanged=near == 0)  # the tones matched on what lies around the card
    change = change_image(b, a, tables)  # sharp: its edges are the card's
    mask = change_region(change_image(b, a, tables, smooth=5), s)  # smoothed: what changed
    if not mask.any():
        return None, "nothing changed"
    on_card = np.count_nonzero(mask & (inside > 0)) / max(1, np.count_nonzero(inside))
    if on_card < s.on_card:
        return None, "no change on the card"
    # each side of the hint snapped to the change's edge: the new card's outline, whatever lies
    # beneath it (the cards there did not change); a hand or a shadow joined to it covers only
    # some of a side's profiles, and a side whose profiles disagree stays where it was
    edges = change
    q = hint - np.float32((bx0, by0))
    for _ in range(s.rounds):
        new = fit_sides(edges, q, reach=s.search)
        if float(np.abs(new - q).max()) < 0.5:
            q = new
            break
        q = new
    box = q + np.float32((bx0, by0))
    area_hint, area_box = quad_area(hint), quad_area(box)
    if area_hint <= 0 or not s.area[0] <= area_box / area_hint <= s.area[1]:
        return None, "area unlike the card's"
    (hs, hl), (bs, bl) = sides(hint), sides(box)
    if bs <= 0 or abs((bl / bs) / (hl / hs) - 1) > s.aspect or not s.card_aspect[0] <= bl / bs <= s.card_aspect[1]:
        return None, "shape unlike the card's"
    outline = np.zeros(mask.shape, np.uint8)
    cv2.fillConvexPoly(outline, np.round(q).astype(np.int32), 1)
    if np.count_nonzero(mask & (outline > 0)) < s.fill * max(1, np.count_nonzero(outline)):
        return None, "change does not fill it"
    if float(np.linalg.norm(box - hint, axis=1).mean()) > s.shift * hs:
        return None, "too far from the card's quad"
    return box, "found"


def change_around(before: np.ndarray, after: np.ndarray, quad: Quad, ring: float = 0.5, gap: float = 0.12,
                  s: OutlineSettings = OutlineSettings()) -> float:
    """The fraction of a ring around ``quad`` (from ``gap`` to ``ring`` of its short side outside
    it) that changed from ``before`` (the table still, before the card came) to ``after``: a
    hand lingering by a card just laid, or its shadow, changes what lies around the card; the
    card alone, a lamp dimming or the exposure drifting (:func:`gain_tables`) does not. Parts of the ring outside the frame are left out; 0.0 when none is inside."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    if before.shape != after.shape:
        return 0.0
    h, w = after.shape[:2]
    short = sides(q)[0]
    reach = max(2.0, ring * short)
    x0, y0 = q.min(0) - reach - 2
    x1, y1 = q.max(0) + reach + 2
    bx0, by0 = int(max(0, np.floor(x0))), int(max(0, np.floor(y0)))
    bx1, by1 = int(min(w, np.ceil(x1))), int(min(h, np.ceil(y1)))
    if bx1 - bx0 < 8 or by1 - by0 < 8:
        return 0.0
    card = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
    cv2.fillConvexPoly(card, np.round(q - (bx0, by0)).astype(np.int32), 1)

    def grown(px: float) -> np.ndarray:
        k = 2 * max(1, int(round(px))) + 1
        return cv2.dilate(card, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0

    band = grown(reach) & ~grown(gap * short)
    if not band.any():
        return 0.0
    b, a = before[by0:by1, bx0:bx1], after[by0:by1, bx0:bx1]
    mask = change_region(change_image(b, a, gain_tables(b, a, card == 0), smooth=5), s)
    return float(np.count_nonzero(mask & band)) / float(np.count_nonzero(band))


def gain_tables(before: np.ndarray, after: np.ndarray, where: np.ndarray) -> np.ndarray:
    """Per channel, the 256-entry table of the gain that takes ``before``'s median tone to
    ``after``'s over ``where``: the light's change, robust to anything (a hand) covering less
    than half of ``where``, where matching whole histograms (:func:`tone_map`) would smear the
    hand's tones over the table's. Shape (channels, 256), uint8."""
    tables = []
    for x, y in _channel_pairs(before, after, where):
        gain = (float(np.median(y)) + 1.0) / (float(np.median(x)) + 1.0)
        tables.append(np.clip(np.round(LEVELS * gain), 0, 255))
    return np.stack(tables).astype(np.uint8)


LEVELS = np.arange(256, dtype=np.float64)  # the grey levels a tone table maps


def _channel_pairs(before: np.ndarray, after: np.ndarray, where: np.ndarray):
    """Per channel, ``before``'s and ``after``'s tones over ``where`` (all pixels when it holds
    under 50), as float arrays."""
    b = before if before.ndim == 3 else before[..., None]
    a = after if after.ndim == 3 else after[..., None]
    keep = where if np.count_nonzero(where) >= 50 else np.ones(a.shape[:2], bool)
    return [(b[..., c][keep].astype(np.float64), a[..., c][keep].astype(np.float64)) for c in range(a.shape[2])]


def line_tables(before: np.ndarray, after: np.ndarray, where: np.ndarray, rounds: int = 3, keep: float = 20.0) -> np.ndarray:
    """Per channel, the 256-entry table of the line (gain and offset) that takes ``before``'s
    tones to ``after``'s over ``where``, fitted again on the pixels it fits within ``keep``
    grey levels (``rounds`` fits): a lamp dimming or the exposure drifting, robust to what
    changed on less than half of ``where`` (cards laid since), where one median gain
    (:func:`gain_tables`) misses the offset and swings with which of the table's and the
    cards' tones the median falls on. Shape (channels, 256), uint8."""
    tables = []
    for x, y in _channel_pairs(before, after, where):
        gain, offset = 1.0, float(np.median(y - x))
        use = np.ones(x.shape, bool)
        for _ in range(rounds):
            if use.sum() < 20 or np.ptp(x[use]) < 8:  # one tone only: its shift is all that can be told
                gain, offset = 1.0, float(np.median(y[use] - x[use])) if use.any() else 0.0
            else:
                gain, offset = np.polyfit(x[use], y[use], 1)
            fit = np.abs(y - (gain * x + offset)) <= keep
            if fit.sum() * 2 < x.size:  # the line fits less than half: keep it as it is
                break
            use = fit
        tables.append(np.clip(np.round(LEVELS * gain + offset), 0, 255))
    return np.stack(tables).astype(np.uint8)


class StillBackground:
    """The table as it last lay still, cell by cell: what :func:`outline_from_change` compares with.

    Fed every frame with the frame and its motion mask (a small bool image, as the tracker's),
    it copies a cell of the frame into the background once that cell has been quiet for
    ``quiet`` frames (a card laid there becomes background only once it, and the hand that laid
    it, have been still that long). :meth:`snapshot` gives the background as it is now and
    stays unchanged (the next update copies first): a card's "before" is the snapshot taken
    when the card was first seen, while it was still in the hand.
    """

    def __init__(self, quiet: int = 6, grow: int = 1):
        self.quiet = quiet
        self.grow = grow  # motion pixels the motion is grown by (a moving card's plain middle changes little)
        self._image: np.ndarray | None = None
        self._still: np.ndarray | None = None  # frames each motion pixel has been quiet
        self._shared = False

    def update(self, image: np.ndarray, motion: np.ndarray | None) -> None:
        if self._image is None or self._image.shape != image.shape or motion is None:
            self._image = image.copy()
            self._still = None if motion is None else np.zeros(motion.shape, np.int32)
            self._shared = False
            return
        if self._still is None or self._still.shape != motion.shape:
            self._still = np.zeros(motion.shape, np.int32)
        moving = motion.astype(np.uint8)
        if self.grow:
            moving = cv2.dilate(moving, np.ones((2 * self.grow + 1,) * 2, np.uint8))
        self._still = np.where(moving > 0, 0, self._still + 1)
        ready = self._still == self.quiet
        if not ready.any():
            return
        ys, xs = np.nonzero(ready)
        mh, mw = motion.shape
        h, w = image.shape[:2]
        sy, sx = h / mh, w / mw
        y0, y1 = int(ys.min() * sy), min(h, int(np.ceil((ys.max() + 1) * sy)))
        x0, x1 = int(xs.min() * sx), min(w, int(np.ceil((xs.max() + 1) * sx)))
        cells = cv2.resize(ready.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST)[y0:y1, x0:x1] > 0
        if self._shared:  # a snapshot holds the old one: it stays as it was
            self._image = self._image.copy()
            self._shared = False
        np.copyto(self._image[y0:y1, x0:x1], image[y0:y1, x0:x1], where=cells[..., None] if image.ndim == 3 else cells)

    def snapshot(self) -> np.ndarray | None:
        """The background now (never changed afterwards); None before the first frame."""
        self._shared = self._image is not None
        return self._image

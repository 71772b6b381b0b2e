"""Nothing vanishes: what changed on the table since it last lay still that no event explains.

At a table every card laid is a change of the still table: once the table lies
still again, the card is on it where it was not before. The tracker reports
the cards it found and named; a card the card finder never found (a quad
merged with the card under it, a card lost in a dim pile) leaves no event,
and the game then takes the next card played for the missing card's seat's.
:class:`TableAudit` keeps the table as it lay at the last audit and, at the
next one, finds the card-shaped regions that changed and that no change the
tracker knows of (a card reported, moved or taken since) explains: each is a
card laid unseen, to be asked about before the next card comes.

Pure numpy/OpenCV on frames shrunk to ``width`` pixels; the tracker calls
:meth:`TableAudit.audit` once the table has settled after a motion and no card
is being decided (``TrackerSettings(audit=True)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from vision.change_outline import change_image, gain_tables
from vision.quad_fit import order_quad
from vision.track_geometry import Quad


@dataclass(frozen=True)
class AuditSettings:
    """When a changed region of the still table is taken for a card laid unseen."""

    width: int = 320  # the frames compared are shrunk to this width
    smooth: int = 5  # Gaussian kernel both are smoothed with (the sensor's noise is no change)
    min_change: float = 30.0  # grey levels (0-255, the light matched) that are a change, at least ...
    noise_times: float = 4.0  # ... and this many times the median change over the zones
    area: tuple[float, float] = (0.6, 1.7)  # the region's rectangle over a card's area
    aspect: tuple[float, float] = (1.25, 2.6)  # its long side over its short side
    fill: float = 0.6  # the changed pixels over its rectangle's area
    grow: float = 0.06  # explaining quads grown by this much of a card's short side (their quads are a few pixels off)
    thin: float = 0.2  # a change thinner than this many of a card's short side is no card (opened away)
    wide: float = 0.8  # ... and in a region no card's shape, what is narrower than this (a forearm) is cut off
    keep_out: int = 3  # audits a changed region not like a card stays out of the reference (a hand lingering)


@dataclass(frozen=True)
class Region:
    """A changed region of the table: its rectangle (full-frame corners) and its shape against a card's."""

    quad: Quad
    area: float  # the rectangle's area over a card's
    aspect: float
    fill: float
    card_like: bool


def _disc(diameter: float) -> np.ndarray:
    k = max(3, int(round(diameter)) | 1)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))


def _mask_of(quads: Sequence[Quad], shape: tuple[int, int], scale: float, grow_px: float) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    for q in quads:
        pts = np.round(np.asarray(q, np.float32) * scale).astype(np.int32)
        cv2.fillConvexPoly(mask, pts, 1)
    if grow_px >= 1 and mask.any():
        k = int(round(grow_px))
        mask = cv2.dilate(mask, np.ones((2 * k + 1, 2 * k + 1), np.uint8))
    return mask > 0


def changed_mask(before: np.ndarray, after: np.ndarray, where: np.ndarray,
                 s: AuditSettings = AuditSettings()) -> np.ndarray:
    """The pixels (bool) of two same-sized small BGR frames that changed inside ``where``:
    a gain matched on the median over ``where`` (a lamp dimming is no change; a card laid does not move it), over the noise, cleaned of specks."""
    tables = gain_tables(before, after, where)
    change = change_image(before, after, tables, smooth=s.smooth)
    inside = change[where] if where.any() else change.ravel()
    bar = max(s.min_change, s.noise_times * float(np.median(inside)))
    mask = ((change > bar) & where).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    return mask > 0


def regions_of(mask: np.ndarray, card: tuple[float, float], scale: float,
               s: AuditSettings = AuditSettings()) -> list[tuple[Region, np.ndarray]]:
    """The connected regions of ``mask`` (small scale) at least a third of a card
    (``card``: its short and long side, full-frame pixels), each with its own pixels."""
    short, long = card[0] * scale, card[1] * scale
    card_area = max(1.0, short * long)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    out = []
    for k in range(1, count):
        if stats[k, cv2.CC_STAT_AREA] < card_area / 3:
            continue
        pixels = labels == k
        ys, xs = np.nonzero(pixels)
        rect = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32))
        w, h = rect[1]
        a, b = sorted((max(w, 1.0), max(h, 1.0)))
        area = a * b / card_area
        aspect = b / a
        fill = float(stats[k, cv2.CC_STAT_AREA]) / (a * b)
        like = s.area[0] <= area <= s.area[1] and s.aspect[0] <= aspect <= s.aspect[1] and fill >= s.fill
        # its corners in the order every quad keeps (clockwise, a short edge first), whichever corner this
        # OpenCV's boxPoints starts at (4.x and 5.x start at different ones): the card found there later is then
        # this region's, as it is compared corner by corner
        quad = order_quad(cv2.boxPoints(rect) / scale)
        out.append((Region(quad, float(area), float(aspect), fill, bool(like)), pixels))
    return out


class TableAudit:
    """The table as it lay at the last audit, and the card-shaped changes no event explains.

    :meth:`audit` compares a still frame with that reference: changes inside the
    ``explaining`` quads (the cards reported, moved or taken since, at their old
    and new places) are the tracker's; the rest that is shaped like a card
    (``card``'s sides) is returned, full-frame quads. The reference then becomes
    the frame, except where a change not like a card lies (a hand still over
    the table, its shadow): there the old table stays for ``keep_out`` audits,
    so that a card under that hand is found alone once the hand has gone.
    """

    def __init__(self, settings: AuditSettings = AuditSettings()):
        self.settings = settings
        self._reference: np.ndarray | None = None
        self._age: np.ndarray | None = None
        self.audits = 0

    @property
    def ready(self) -> bool:
        return self._reference is not None

    def _small(self, image: np.ndarray) -> tuple[np.ndarray, float]:
        h, w = image.shape[:2]
        width = min(self.settings.width, w)
        scale = width / w
        small = cv2.resize(image, (width, max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        if small.ndim == 2:
            small = cv2.cvtColor(small, cv2.COLOR_GRAY2BGR)
        return small, scale

    def reset(self, image: np.ndarray) -> None:
        """Take ``image`` (a still frame) as the table from now on."""
        self._reference, _ = self._small(image)
        self._age = np.zeros(self._reference.shape[:2], np.int32)

    def audit(self, image: np.ndarray, where: np.ndarray, explaining: Sequence[Quad],
              card: tuple[float, float] | None) -> list[Region]:
        """The card-like regions of ``image`` (a still frame) changed since the reference that
        ``explaining`` does not cover; ``where``: the zones (bool, any size, resized here);
        ``card``: a card's (short, long) sides in full-frame pixels (None: nothing is returned,
        the reference is taken again)."""
        s = self.settings
        small, scale = self._small(image)
        if self._reference is None or self._reference.shape != small.shape or card is None:
            self.reset(image)
            return []
        self.audits += 1
        zone = cv2.resize(where.astype(np.uint8), (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST) > 0
        changed = changed_mask(self._reference, small, zone, s)
        known = _mask_of(explaining, changed.shape, scale, s.grow * card[0] * scale)
        # what is thinner than a fifth of a card (a neighbour's edges, nudged; a pen) is no card laid
        k = max(3, int(round(s.thin * card[0] * scale)) | 1)
        unexplained = cv2.morphologyEx((changed & ~known).astype(np.uint8), cv2.MORPH_OPEN,
                                       np.ones((k, k), np.uint8)) > 0
        found, keep_out = [], np.zeros(changed.shape, bool)
        for region, pixels in regions_of(unexplained, card, scale, s):
            if region.card_like:
                found.append(region)
                continue
            keep_out |= pixels
            # a card joined to a forearm lingering by it, or to a shadow: what of it is as wide as a card
            core = cv2.morphologyEx(pixels.astype(np.uint8), cv2.MORPH_OPEN, _disc(s.wide * card[0] * scale)) > 0
            found += [r for r, _ in regions_of(core, card, scale, s) if r.card_like]
        if keep_out.any():
            keep_out = cv2.dilate(keep_out.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        hold = keep_out & (self._age < s.keep_out)
        self._reference = np.where(hold[..., None], self._reference, small)
        self._age = np.where(hold, self._age + 1, 0)
        return found

"""Find the cards in a camera frame: classical OpenCV, no learning.

The frame is reduced (integer factor) to about ``work_width`` pixels wide. The
table colour is a smooth (quadratic) Lab surface fitted robustly to the
majority of the frame, which absorbs uneven light; every pixel far enough from
it (Otsu threshold with a floor set by the table's own texture) is foreground.
Edges (Canny) add the cards whose colour matches the table: the edge-free
region just inside a card's outline is card-shaped. Each foreground blob is
then either

* one card: it fills its minimum-area rectangle and has a card's proportions;
  its four sides are fitted as lines to the contour and intersected (the card's
  rounded corners do not pull the corners inward, mild perspective is kept); or
* several touching or overlapping cards: every convex, roughly square corner
  of the blob's outline proposes card rectangles (card proportions, sizes from
  the corner's own edges and from the single cards of the frame); proposals
  that lie inside the blob are scored by how much of their outline is backed
  by the blob boundary or an image edge and kept greedily while they explain
  new area.

Quads are returned in full-frame pixels, clockwise, corner0 -> corner1 a short
edge (the top one of the two, left end first). What this cannot do is
described in ``docs/recognition.md``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.quad_fit import fit_quad_sides, order_quad, refine_quad

CARD_ASPECT = 800 / 440
"""Long side over short side of a tarot card (about 1.6 to 1.9 across decks)."""


def refine_in_frame(frame_bgr: np.ndarray, quad: np.ndarray, rounds: int = 2) -> np.ndarray:
    """:func:`refine_quad` on the quad's neighbourhood only, repeated up to ``rounds`` times
    until the quad settles."""
    h, w = frame_bgr.shape[:2]
    short = min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
    margin = int(0.35 * short) + 4
    x0, y0 = np.floor(quad.min(0)).astype(int) - margin
    x1, y1 = np.ceil(quad.max(0)).astype(int) + margin
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return quad
    roi = frame_bgr[y0:y1, x0:x1]  # read in colour, the profiles made grey (cheaper than a grey ROI)
    off = np.array([x0, y0], np.float32)
    q = quad - off
    for _ in range(rounds):
        new = refine_quad(roi, q)
        if new is q or float(np.abs(new - q).max()) < 0.5:  # settled
            q = new
            break
        q = new
    return q + off


def table_model(img: np.ndarray, grid: int = 48, rounds: int = 3) -> tuple[np.ndarray, float]:
    """Smooth table colour (quadratic in x, y per Lab channel) fitted robustly to the
    majority of a frame, and the table's noise level (median distance to the fit).

    Cards and other objects are outliers: each round refits on the pixels closest
    to the previous fit, so uneven light (a ramp, a vignette) is absorbed.
    """
    h, w = img.shape[:2]
    gw, gh = grid, max(4, round(grid * h / w))
    tiny = cv2.resize(img, (gw, gh), interpolation=cv2.INTER_AREA).reshape(-1, 3)
    basis = _quadratic_basis(gw, gh)
    keep = np.ones(len(tiny), bool)
    for _ in range(rounds):
        coef, *_ = np.linalg.lstsq(basis[keep], tiny[keep], rcond=None)
        resid = np.sqrt(0.5 * (tiny[:, 0] - basis @ coef[:, 0]) ** 2 + ((tiny[:, 1:] - basis @ coef[:, 1:]) ** 2).sum(1))
        keep = resid <= np.percentile(resid, 55)
    noise = float(np.median(resid[keep]))
    smooth = (basis @ coef).reshape(gh, gw, 3).astype(np.float32)
    return cv2.resize(smooth, (w, h), interpolation=cv2.INTER_LINEAR), noise


@functools.lru_cache(maxsize=8)
def _quadratic_basis(gw: int, gh: int) -> np.ndarray:
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    xx, yy = xx.ravel() / gw - 0.5, yy.ravel() / gh - 0.5
    return np.stack([np.ones_like(xx), xx, yy, xx * xx, yy * yy, xx * yy], 1)


_GRID = np.stack(np.meshgrid(np.linspace(0.06, 0.94, 6), np.linspace(0.04, 0.96, 10)), -1).reshape(-1, 2).astype(np.float32)


def _sample(mask: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """mask values (bool) at integer points (..., 2); outside the mask counts as False."""
    p = np.round(pts).astype(np.int32)
    h, w = mask.shape
    ok = (p[..., 0] >= 0) & (p[..., 0] < w) & (p[..., 1] >= 0) & (p[..., 1] < h)
    out = np.zeros(p.shape[:-1], bool)
    out[ok] = mask[p[..., 1][ok], p[..., 0][ok]] > 0
    return out


def _inside_fractions(quads: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """For (K, 4, 2) quads: fraction of a grid of points over each quad that fall on ``mask``."""
    u, v = _GRID[None, :, :1], _GRID[None, :, 1:]
    a, b, c, d = (quads[:, None, i] for i in range(4))
    pts = (1 - v) * ((1 - u) * a + u * b) + v * ((1 - u) * d + u * c)
    return _sample(mask, pts).mean(axis=1)


_EDGE_T = np.linspace(0, 1, 24, endpoint=False, dtype=np.float32)[None, :, None]


def _outline_supports(quads: np.ndarray, support_map: np.ndarray) -> np.ndarray:
    """For (K, 4, 2) quads: fraction of points along the outline that lie on ``support_map``."""
    pts = [quads[:, None, i] + (quads[:, None, (i + 1) % 4] - quads[:, None, i]) * _EDGE_T for i in range(4)]
    return _sample(support_map, np.concatenate(pts, axis=1)).mean(axis=1)


def suppress_nested(quads: list[np.ndarray], shape=None) -> list[np.ndarray]:
    """Drop quads mostly inside a larger one (a card's inner frame, a duplicate outline);
    keep partly overlapping ones (the cards of a trick). Quads are convex: their overlap is
    computed exactly (``shape``, the image's, is not needed and kept for callers)."""
    if len(quads) < 2:
        return quads
    hulls = [cv2.convexHull(np.asarray(q, np.float32)) for q in quads]
    areas = [abs(cv2.contourArea(hh)) for hh in hulls]
    order = sorted(range(len(quads)), key=lambda i: -areas[i])
    kept = []
    for i in order:
        area = max(areas[i], 1.0)
        if any(cv2.intersectConvexConvex(hulls[i], hulls[k])[0] > 0.55 * area for k in kept):
            continue
        kept.append(i)
    return [quads[i] for i in kept]


def _polygon_mask(shape, poly) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.round(poly).astype(np.int32)], 255)
    return m


@dataclass
class Localiser:
    """Card finder; calling it on a BGR frame returns the card quads (see module doc).

    Parameters are fractions of the frame so they survive a change of camera
    resolution: ``min_area`` / ``max_area`` bound one card's area, ``aspect``
    bounds a card's long/short ratio.
    """

    work_width: int = 480
    min_area: float = 0.004
    max_area: float = 0.6
    aspect: tuple[float, float] = (1.35, 2.3)
    min_contrast: float = 14.0
    max_threshold: float = 35.0
    min_fill: float = 0.86
    refine: bool = True

    def __call__(self, frame_bgr: np.ndarray) -> list[np.ndarray]:
        if frame_bgr is None or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
            raise ValueError("a frame is a BGR image of shape (height, width, 3)")
        h, w = frame_bgr.shape[:2]
        factor = max(1, int(np.ceil(w / self.work_width - 0.05)))  # an integer factor: fast area averaging
        small = cv2.resize(frame_bgr, (w // factor, h // factor), interpolation=cv2.INTER_AREA) if factor > 1 else frame_bgr
        scale = np.array([small.shape[1] / w, small.shape[0] / h], np.float32)
        mask = self.foreground(small)
        quads, edges = self.quads_in_mask(mask, small, with_edges=True)
        if not quads:
            return []
        out = []
        for q, outline_visible in quads:
            q = order_quad(q / scale)
            if self.refine:
                r = order_quad(refine_in_frame(frame_bgr, q))
                # a card split from a group may be the top card of a trick, whose sides over the
                # other cards are only roughly found in the blob, or a covered card, whose sides
                # could snap to the card above: its refinement is kept when the refined outline
                # is at least as well backed by the image's edges
                if outline_visible:
                    q = r
                else:
                    refined, rough = _outline_supports(np.stack([r, q]) * scale, edges)
                    if refined >= rough:
                        q = r
            out.append(q)
        return out

    # -- foreground -------------------------------------------------------
    def foreground(self, small: np.ndarray) -> np.ndarray:
        """Binary mask (uint8 0/255) of what differs from the (smoothly lit) table."""
        lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
        table, noise = table_model(lab)
        diff = lab - table
        dist = cv2.blur(np.sqrt(0.5 * diff[..., 0] ** 2 + diff[..., 1] ** 2 + diff[..., 2] ** 2), (3, 3))
        d8 = np.clip(dist, 0, 255).astype(np.uint8)
        otsu, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        # the floor follows the table's pixel-level texture (the median pixel is table)
        floor = max(self.min_contrast, 3.0 * noise, 2.5 * float(np.median(dist[::3, ::3])))
        thr = float(np.clip(otsu, floor, max(floor, self.max_threshold)))
        mask = (dist > thr).astype(np.uint8) * 255
        k3 = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, k3)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, k3, iterations=2)
        # fill holes: a card's picture may match the table colour in places
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        filled = np.zeros_like(mask)
        cv2.drawContours(filled, contours, -1, 255, -1)
        return filled

    # -- blobs to quads ---------------------------------------------------
    def quads_in_mask(self, mask: np.ndarray, small: np.ndarray, with_edges: bool = False):
        """Card quads (work-image pixels) from the foreground mask and the image's edges,
        each with whether the card's whole outline is visible (not split from a group);
        ``with_edges``: also the (dilated) edge map, as ``(quads, edges)``."""
        h, w = mask.shape
        area_total = h * w
        min_px = self.min_area * area_total
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        contours = [c for c in contours if cv2.contourArea(c) >= min_px]
        found, groups = [], []
        for c in contours:
            quad = self.single_card(c, area_total)
            if quad is not None:
                found.append(quad)
            else:
                groups.append(c)
        separate = len(found)  # cards that stand alone in the foreground: the table's card size
        gray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0)
        edges = cv2.dilate(cv2.Canny(gray, 30, 90), np.ones((3, 3), np.uint8))
        found.extend(self.outlined_cards(edges, area_total))
        whole = len(found)  # quads before this index show the whole card outline
        if groups:
            sizes = [self._sides(q) for q in found]
            reference = tuple(np.median(np.array(sizes[:separate]), axis=0)) if separate else None
            for c in groups:
                found.extend(self.split_group(c, mask, edges, sizes, min_px, reference))
        kept = suppress_nested([q for q in found if self._inside_frame(q, w, h)], mask.shape)
        out = [(q, any(q is f for f in found[:whole])) for q in kept]
        return (out, edges) if with_edges else out

    @staticmethod
    def _inside_frame(q: np.ndarray, w: int, h: int, margin: float = 0.03) -> bool:
        m = margin * max(w, h)
        return bool(np.all(q[:, 0] >= -m) and np.all(q[:, 0] <= w + m) and np.all(q[:, 1] >= -m) and np.all(q[:, 1] <= h + m))

    def outlined_cards(self, edges: np.ndarray, area_total: float) -> list[np.ndarray]:
        """Cards found as regions enclosed by edges: a white card on a white or textured
        table has little colour contrast but an outline all around, and the edge-free
        region just inside (or the hole just outside) that outline is card-shaped."""
        free = cv2.bitwise_not(edges)
        contours, _ = cv2.findContours(free, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        out = []
        min_len = 4 * np.sqrt(self.min_area * area_total)
        for c in contours:
            if len(c) < min_len or cv2.contourArea(c) < self.min_area * area_total:
                continue
            quad = self.single_card(c, area_total)
            if quad is not None:
                out.append(quad)
        return out

    @staticmethod
    def _sides(q: np.ndarray) -> tuple[float, float]:
        e = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
        a, b = (e[0] + e[2]) / 2, (e[1] + e[3]) / 2
        return (min(a, b), max(a, b))

    def _aspect_ok(self, short: float, long: float) -> bool:
        return short > 0 and self.aspect[0] <= long / short <= self.aspect[1]

    def single_card(self, contour: np.ndarray, area_total: float) -> np.ndarray | None:
        """The quad of a blob that is exactly one card, else None."""
        area = cv2.contourArea(contour)
        (cx, cy), (rw, rh), _ = rect = cv2.minAreaRect(contour)
        if rw * rh <= 0 or area / (rw * rh) < self.min_fill or area > self.max_area * area_total:
            return None
        if not self._aspect_ok(min(rw, rh), max(rw, rh)):
            return None
        hull = cv2.convexHull(contour)
        peri = cv2.arcLength(hull, True)
        corners = None
        for eps in (0.02, 0.03, 0.045, 0.06):
            approx = cv2.approxPolyDP(hull, eps * peri, True)
            if len(approx) == 4:
                corners = order_quad(approx.reshape(4, 2))
                break
        if corners is None:
            corners = order_quad(cv2.boxPoints(rect))
        return fit_quad_sides(contour, corners)

    def split_group(self, contour, mask, edges, sizes, min_px, reference=None) -> list[np.ndarray]:
        """Card quads explaining one blob of touching/overlapping cards; with a ``reference``
        (short, long) size (the separate cards of the frame), cards of that size first."""
        x, y, w, h = cv2.boundingRect(contour)
        pad = 2
        x0, y0 = max(x - pad, 0), max(y - pad, 0)
        x1, y1 = min(x + w + pad, mask.shape[1]), min(y + h + pad, mask.shape[0])
        blob = np.zeros((y1 - y0, x1 - x0), np.uint8)
        off = np.array([x0, y0], np.float32)
        cv2.drawContours(blob, [contour - off.astype(np.int32)], -1, 255, -1)
        boundary = np.zeros_like(blob)
        cv2.drawContours(boundary, [contour - off.astype(np.int32)], -1, 255, 3)
        support_map = (boundary > 0) | (edges[y0:y1, x0:x1] > 0)
        peri = cv2.arcLength(contour, True)
        poly = cv2.approxPolyDP(contour, max(2.0, 0.012 * peri), True).reshape(-1, 2).astype(np.float32)
        n = len(poly)
        if n < 3:
            return []
        orient = np.sign(cv2.contourArea(poly, oriented=True)) or 1.0
        median = np.median(np.array(sizes), axis=0) if sizes else None
        candidates = []
        for i in range(n):
            p, a, b = poly[i], poly[i - 1], poly[(i + 1) % n]
            u, v = a - p, b - p
            lu, lv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
            if lu < 3 or lv < 3:
                continue
            u, v = u / lu, v / lv
            cos = float(u @ v)
            if abs(cos) > 0.42:  # corner angle outside ~65..115 degrees
                continue
            cross = u[0] * v[1] - u[1] * v[0]
            if np.sign(cross) == orient:  # a reflex (concave) vertex: an overlap, not a card corner
                continue
            for su, sv in self._corner_sizes(lu, lv, sizes, median):
                quad = np.array([p, p + u * su, p + u * su + v * sv, p + v * sv], np.float32) - off
                candidates.append(quad)
        chosen = self._select(candidates, blob, support_map, off, min_px, contour, reference)
        if not chosen and reference is not None:  # the group's cards differ from the single ones
            chosen = self._select(candidates, blob, support_map, off, min_px, contour)
        return chosen

    def _corner_sizes(self, lu: float, lv: float, sizes, median=None) -> list[tuple[float, float]]:
        """(length along u, length along v) hypotheses for a card at a corner (``median``:
        that of ``sizes``, when the caller has it already)."""
        ratio = CARD_ASPECT
        out = [(lu, lu * ratio), (lu, lu / ratio), (lv * ratio, lv), (lv / ratio, lv)]
        for s, l in sizes[:8]:
            out += [(s, l), (l, s)]
        if sizes:
            s, l = np.median(np.array(sizes), axis=0) if median is None else median
            out += [(s, l), (l, s)]
        unique = {(round(a / 2) * 2, round(b / 2) * 2) for a, b in out}
        return [(a, b) for a, b in unique if self._aspect_ok(min(a, b), max(a, b))]

    def _select(self, candidates, blob, support_map, off, min_px, contour=None, reference=None) -> list[np.ndarray]:
        """Greedy choice of card rectangles explaining a blob (ROI coordinates in, frame out)."""
        scored = []
        if candidates:
            cands = np.array(candidates, np.float32)
            areas = np.abs(np.array([cv2.contourArea(q) for q in cands]))
            inside = _inside_fractions(cands, blob)
            keep = (areas >= min_px) & (inside >= 0.93)
            if keep.any():
                support = _outline_supports(cands[keep], support_map)
                for q, a, sup in zip(cands[keep], areas[keep], support):
                    if sup >= 0.45:
                        scored.append((sup**4 * np.sqrt(a), q))  # a fully backed outline beats a bigger guess
        scored.sort(key=lambda t: -t[0])
        blob_area = float((blob > 0).sum())
        chosen, masks = [], []
        covered = np.zeros(blob.shape, bool)
        for _, q in scored:
            sides = self._sides(q)
            if reference is not None and not (abs(sides[0] / reference[0] - 1) < 0.15 and abs(sides[1] / reference[1] - 1) < 0.15):
                continue  # all cards of a table have about the same size
            if any(np.abs(q - c).max() < 0.08 * sides[1] for c in chosen):
                continue
            m = _polygon_mask(blob.shape, q) > 0
            area = m.sum()
            if any((m & c).sum() / min(area, c.sum()) > 0.6 for c in masks):
                continue
            if (m & ~covered).sum() < 0.2 * area:
                continue
            chosen.append(q)
            masks.append(m)
            covered |= m
            reference = reference or sides
            if covered.sum() >= 0.97 * blob_area:
                break
        if contour is not None:
            local = (contour.reshape(-1, 2) - off).astype(np.float32)
            chosen = [fit_quad_sides(local, order_quad(q), min_cover=0.4) for q in chosen]
        return [q + off for q in chosen]


LOCALISERS = ("network", "classic")
_CLASSIC = Localiser()
_ACTIVE: dict[str, object] = {}


def localiser(method: str | None = None):
    """The card finder ``method`` names: ``network`` (:class:`vision.locator.CardLocator`, the
    default when ``models/locator.onnx`` is there) or ``classic`` (:class:`Localiser`).
    ``TAROTMATE_LOCALISER`` in the environment chooses when ``method`` is None."""
    import os

    method = method or os.environ.get("TAROTMATE_LOCALISER") or "network"
    if method not in LOCALISERS:
        from engine.errors import TarotmateError

        raise TarotmateError(f"unknown localiser {method!r} (choose one of {', '.join(LOCALISERS)})")
    if method == "classic":
        return _CLASSIC
    if "network" not in _ACTIVE:
        from vision.locator import CardLocator, LOCATOR_FILE, models_dir

        _ACTIVE["network"] = CardLocator.load() if (models_dir() / LOCATOR_FILE).is_file() else _CLASSIC
    return _ACTIVE["network"]


def find_cards(frame_bgr: np.ndarray, method: str | None = None) -> list[np.ndarray]:
    """Quads (float32 (4, 2), clockwise, corner0 -> corner1 a short edge) of the cards in a BGR
    frame, found by the default card finder (see :func:`localiser`)."""
    return localiser(method)(frame_bgr)

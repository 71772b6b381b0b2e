"""Find the cards in a camera frame: classical OpenCV, no learning.

The frame is reduced to ``work_width`` pixels wide. The table colour is the
median colour of the frame's outer ring; every pixel far enough from it (Lab
distance, Otsu threshold with a floor) is foreground. Each foreground blob is
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

from dataclasses import dataclass

import cv2
import numpy as np

CARD_ASPECT = 800 / 440
"""Long side over short side of a tarot card (about 1.6 to 1.9 across decks)."""


def order_quad(points) -> np.ndarray:
    """Order 4 points clockwise on screen, starting at the left end of the upper short edge."""
    q = np.asarray(points, np.float32).reshape(4, 2)
    centre = q.mean(0)
    angles = np.arctan2(q[:, 1] - centre[1], q[:, 0] - centre[0])
    q = q[np.argsort(angles)]  # increasing angle with y down = clockwise on screen
    edges = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)  # edge i: q[i] -> q[i+1]
    short = (0, 2) if edges[0] + edges[2] <= edges[1] + edges[3] else (1, 3)
    mid_y = [(q[i, 1] + q[(i + 1) % 4, 1]) / 2 for i in short]
    start = short[int(np.argmin(mid_y))]
    return np.roll(q, -start, axis=0).astype(np.float32)


def _line_intersection(l1, l2):
    (vx1, vy1, x1, y1), (vx2, vy2, x2, y2) = l1, l2
    det = vx1 * (-vy2) - vy1 * (-vx2)
    if abs(det) < 1e-6:
        return None
    t = ((x2 - x1) * (-vy2) - (y2 - y1) * (-vx2)) / det
    return np.array([x1 + t * vx1, y1 + t * vy1], np.float32)


def fit_quad_sides(contour: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Refine 4 approximate corners by fitting a line to the middle of each side of ``contour``."""
    pts = contour.reshape(-1, 2).astype(np.float32)
    lines = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        ab = b - a
        length = float(np.linalg.norm(ab))
        if length < 4:
            return corners
        d = ab / length
        n = np.array([-d[1], d[0]], np.float32)
        rel = pts - a
        t = rel @ d
        off = np.abs(rel @ n)
        sel = pts[(t > 0.15 * length) & (t < 0.85 * length) & (off < max(3.0, 0.04 * length))]
        if len(sel) < 5:
            return corners
        lines.append(cv2.fitLine(sel, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel())
    out = []
    for i in range(4):
        p = _line_intersection(lines[i - 1], lines[i])
        if p is None or np.linalg.norm(p - corners[i]) > 0.15 * np.linalg.norm(corners[i] - corners[i - 2]):
            return corners
        out.append(p)
    return np.array(out, np.float32)


def table_model(lab: np.ndarray, grid: int = 48, rounds: int = 3) -> tuple[np.ndarray, float]:
    """Smooth table colour (quadratic in x, y per Lab channel) fitted robustly to the
    majority of a frame, and the table's noise level (median distance to the fit).

    Cards and other objects are outliers: each round refits on the pixels closest
    to the previous fit, so uneven light (a ramp, a vignette) is absorbed.
    """
    h, w = lab.shape[:2]
    gw, gh = grid, max(4, round(grid * h / w))
    tiny = cv2.resize(lab, (gw, gh), interpolation=cv2.INTER_AREA).reshape(-1, 3)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    xx, yy = xx.ravel() / gw - 0.5, yy.ravel() / gh - 0.5
    basis = np.stack([np.ones_like(xx), xx, yy, xx * xx, yy * yy, xx * yy], 1)
    keep = np.ones(len(tiny), bool)
    for _ in range(rounds):
        coef, *_ = np.linalg.lstsq(basis[keep], tiny[keep], rcond=None)
        resid = np.sqrt(0.5 * (tiny[:, 0] - basis @ coef[:, 0]) ** 2 + ((tiny[:, 1:] - basis @ coef[:, 1:]) ** 2).sum(1))
        keep = resid <= np.percentile(resid, 55)
    noise = float(np.median(resid[keep]))
    smooth = (basis @ coef).reshape(gh, gw, 3).astype(np.float32)
    return cv2.resize(smooth, (w, h), interpolation=cv2.INTER_LINEAR), noise


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
    min_fill: float = 0.86

    def __call__(self, frame_bgr: np.ndarray) -> list[np.ndarray]:
        if frame_bgr is None or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
            raise ValueError("a frame is a BGR image of shape (height, width, 3)")
        h, w = frame_bgr.shape[:2]
        scale = min(1.0, self.work_width / w)
        small = cv2.resize(frame_bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else frame_bgr
        mask = self.foreground(small)
        quads = self.quads_in_mask(mask, small)
        return [order_quad(q / scale) for q in quads]

    # -- foreground -------------------------------------------------------
    def foreground(self, small: np.ndarray) -> np.ndarray:
        """Binary mask (uint8 0/255) of what differs from the (smoothly lit) table."""
        lab = cv2.cvtColor(cv2.GaussianBlur(small, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
        table, noise = table_model(lab)
        diff = lab - table
        dist = np.sqrt(0.5 * diff[..., 0] ** 2 + diff[..., 1] ** 2 + diff[..., 2] ** 2)
        d8 = np.clip(dist, 0, 255).astype(np.uint8)
        otsu, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        floor = max(self.min_contrast, 3.0 * noise)
        thr = float(np.clip(otsu, floor, max(floor, 60.0)))
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
    def quads_in_mask(self, mask: np.ndarray, small: np.ndarray) -> list[np.ndarray]:
        area_total = mask.shape[0] * mask.shape[1]
        min_px = self.min_area * area_total
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        contours = [c for c in contours if cv2.contourArea(c) >= min_px]
        singles, groups = [], []
        for c in contours:
            quad = self.single_card(c, area_total)
            if quad is not None:
                singles.append(quad)
            else:
                groups.append(c)
        gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        edges = cv2.dilate(cv2.Canny(gray, 40, 120), np.ones((3, 3), np.uint8))
        if groups:
            sizes = [self._sides(q) for q in singles]
            for c in groups:
                singles.extend(self.split_group(c, mask, edges, sizes, min_px))
        singles.extend(self.outlined_cards(edges, mask, singles, area_total))
        h, w = mask.shape
        return [q for q in singles if self._inside_frame(q, w, h)]

    @staticmethod
    def _inside_frame(q: np.ndarray, w: int, h: int, margin: float = 0.03) -> bool:
        m = margin * max(w, h)
        return bool(np.all(q[:, 0] >= -m) and np.all(q[:, 0] <= w + m) and np.all(q[:, 1] >= -m) and np.all(q[:, 1] <= h + m))

    def outlined_cards(self, edges: np.ndarray, mask: np.ndarray, found: list[np.ndarray], area_total: float) -> list[np.ndarray]:
        """Cards whose colour matches the table but whose outline is a closed edge
        (a white card on a white table), not already found through the colour mask."""
        taken = np.zeros_like(mask)
        for q in found:
            cv2.fillPoly(taken, [np.round(q).astype(np.int32)], 255)
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        out = []
        for c in contours:
            area = cv2.contourArea(c)
            if area < self.min_area * area_total:
                continue
            quad = self.single_card(c, area_total)
            if quad is None:
                continue
            m = _polygon_mask(mask.shape, quad)
            inter = ((m > 0) & (taken > 0)).sum()
            if inter > 0.2 * (m > 0).sum():
                continue
            out.append(quad)
            taken |= m
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

    def split_group(self, contour, mask, edges, sizes, min_px) -> list[np.ndarray]:
        """Card quads explaining one blob of touching/overlapping cards."""
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
            for su, sv in self._corner_sizes(lu, lv, sizes):
                quad = np.array([p, p + u * su, p + u * su + v * sv, p + v * sv], np.float32) - off
                candidates.append(quad)
        return self._select(candidates, blob, support_map, off, min_px)

    def _corner_sizes(self, lu: float, lv: float, sizes) -> list[tuple[float, float]]:
        """(length along u, length along v) hypotheses for a card at a corner."""
        ratio = CARD_ASPECT
        out = [(lu, lu * ratio), (lu, lu / ratio), (lv * ratio, lv), (lv / ratio, lv)]
        for s, l in sizes[:8]:
            out += [(s, l), (l, s)]
        if sizes:
            s, l = np.median(np.array(sizes), axis=0)
            out += [(s, l), (l, s)]
        return [(a, b) for a, b in out if self._aspect_ok(min(a, b), max(a, b))]

    def _select(self, candidates, blob, support_map, off, min_px) -> list[np.ndarray]:
        scored = []
        blob_area = float((blob > 0).sum())
        for q in candidates:
            m = _polygon_mask(blob.shape, q)
            area = float((m > 0).sum())
            if area < min_px:
                continue
            inside = float(((m > 0) & (blob > 0)).sum()) / area
            if inside < 0.93:
                continue
            support = self._outline_support(q, support_map)
            if support < 0.45:
                continue
            scored.append((support * np.sqrt(area), q, m > 0))
        scored.sort(key=lambda t: -t[0])
        chosen, covered = [], np.zeros(blob.shape, bool)
        for _, q, m in scored:
            area = m.sum()
            if any((m & c).sum() / min(area, c.sum()) > 0.6 for c in [cm for _, cm in chosen]):
                continue
            if (m & ~covered).sum() < 0.2 * area:
                continue
            chosen.append((q, m))
            covered |= m
            if covered.sum() >= 0.97 * blob_area:
                break
        return [q + off for q, _ in chosen]

    @staticmethod
    def _outline_support(quad: np.ndarray, support_map: np.ndarray) -> float:
        pts = []
        for i in range(4):
            a, b = quad[i], quad[(i + 1) % 4]
            t = np.linspace(0, 1, 24, endpoint=False)[:, None]
            pts.append(a + (b - a) * t)
        pts = np.round(np.concatenate(pts)).astype(int)
        hh, ww = support_map.shape
        ok = (pts[:, 0] >= 0) & (pts[:, 0] < ww) & (pts[:, 1] >= 0) & (pts[:, 1] < hh)
        hit = np.zeros(len(pts), bool)
        hit[ok] = support_map[pts[ok, 1], pts[ok, 0]]
        return float(hit.mean())


_DEFAULT = Localiser()


def find_cards(frame_bgr: np.ndarray) -> list[np.ndarray]:
    """Quads (float32 (4, 2), clockwise, corner0 -> corner1 a short edge) of the cards in a BGR frame."""
    return _DEFAULT(frame_bgr)

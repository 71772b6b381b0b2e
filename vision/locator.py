"""Find the cards in a camera frame with a small convolutional network (``models/locator.onnx``).

The frame is reduced to ``INPUT_WIDTH`` pixels wide (area averaging; the
height keeps the frame's proportions and is padded to a multiple of 16) and
the network, run by onnxruntime on one thread, returns seven maps at a quarter
of that resolution (a CenterNet-style detector):

* ``0``: the logit of "a card's centre is here" (a peak per card);
* ``1, 2``: the centre's offset within the cell (cells);
* ``3, 4``: log of the card's long and short side (``SIZE_UNIT`` pixels);
* ``5, 6``: cos and sin of *twice* the long axis' angle (a card looks the same
  after a half turn, so the doubled angle is what is well defined).

Each peak above ``threshold`` gives a rectangle; its sides are then snapped to
the card's outer edge in the full-resolution frame (:func:`snap_quads`: a
straight line fitted to edge points found across each side), which corrects
the angle and recovers mild perspective. The network sees whole cards even where they overlap (a trick,
a row of cards), because it was trained to give the full outline of every
card of which enough shows; it finds face-down cards too (the classifier
rejects them as unknown).

Quads are returned like :func:`vision.localise.find_cards`: full-frame
pixels, float32 (4, 2), clockwise, corner0 -> corner1 a short edge.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.errors import TarotmateError
from vision.model_files import models_dir
from vision.quad_fit import corners_of_sides, order_quad, refine_quad, side_edges

INPUT_WIDTH = 320
STRIDE = 4
SIZE_UNIT = 32.0
LOCATOR_FILE = "locator.onnx"
LOOKS_FILE = "locator_looks.onnx"  # optional, beside LOCATOR_FILE: a smaller network for the further looks
CHANNELS = 7


def reduce_frame(frame_bgr: np.ndarray, width: int = INPUT_WIDTH) -> tuple[np.ndarray, float]:
    """The frame at ``width`` pixels wide, its proportions kept (area averaging when it
    shrinks), and the frame->reduced scale."""
    h, w = frame_bgr.shape[:2]
    f = width / w
    small = cv2.resize(frame_bgr, (width, max(16, round(h * f))), interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
    return small, f


def padded_height(h: int) -> int:
    """The network input's height for a reduced frame ``h`` rows high (a multiple of 16)."""
    return int(np.ceil(h / 16) * 16)


def input_shape(w: int, h: int, width: int = INPUT_WIDTH) -> tuple[int, int]:
    """(width, height) of the network input for a ``w`` x ``h`` frame (height padded to 16)."""
    return width, padded_height(max(16, round(h * width / w)))


def prepare(frame_bgr: np.ndarray, width: int = INPUT_WIDTH) -> tuple[np.ndarray, float]:
    """The network input (1, 3, H, W) float32 RGB in [0, 1] and the frame->input scale."""
    small, f = reduce_frame(frame_bgr, width)
    return to_input(small, padded_height(small.shape[0])), f


def to_input(small_bgr: np.ndarray, height: int) -> np.ndarray:
    """A reduced BGR frame as network input, padded at the bottom to ``height`` rows."""
    if small_bgr.shape[0] < height:
        small_bgr = cv2.copyMakeBorder(small_bgr, 0, height - small_bgr.shape[0], 0, 0, cv2.BORDER_CONSTANT, value=0)
    return cv2.dnn.blobFromImage(small_bgr, 1 / 255, swapRB=True)


def rotated_box(cx: float, cy: float, long: float, short: float, angle: float) -> np.ndarray:
    """Corners of a rectangle whose long axis makes ``angle`` with the x axis, clockwise on screen."""
    u = np.array([np.cos(angle), np.sin(angle)], np.float32) * (long / 2)
    v = np.array([-np.sin(angle), np.cos(angle)], np.float32) * (short / 2)
    c = np.array([cx, cy], np.float32)
    return np.stack([c - u - v, c + u - v, c + u + v, c - u + v]).astype(np.float32)


def decode(maps: np.ndarray, threshold: float = 0.35, max_cards: int = 40) -> list[tuple[np.ndarray, float]]:
    """Rectangles (input pixels) and scores from the network's (7, h, w) output maps."""
    logit = np.ascontiguousarray(maps[0])  # peaks of the logit are peaks of the heat
    peaks = (logit >= np.log(threshold / (1 - threshold))) & (logit >= cv2.dilate(logit, np.ones((3, 3), np.uint8)))
    ys, xs = np.nonzero(peaks)
    heat = np.zeros_like(logit)
    heat[ys, xs] = 1.0 / (1.0 + np.exp(-logit[ys, xs]))
    if len(ys) > max_cards:
        top = np.argsort(-heat[ys, xs])[:max_cards]
        ys, xs = ys[top], xs[top]
    out = []
    for y, x in zip(ys.tolist(), xs.tolist()):
        cx = (x + 0.5 + float(maps[1, y, x])) * STRIDE
        cy = (y + 0.5 + float(maps[2, y, x])) * STRIDE
        long = float(np.exp(np.clip(maps[3, y, x], -4, 4))) * SIZE_UNIT
        short = float(np.exp(np.clip(maps[4, y, x], -4, 4))) * SIZE_UNIT
        angle = 0.5 * float(np.arctan2(maps[6, y, x], maps[5, y, x]))
        out.append((rotated_box(cx, cy, long, short, angle), float(heat[y, x])))
    out.sort(key=lambda t: -t[1])
    return out


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads (either winding)."""
    a, b = cv2.convexHull(np.asarray(a, np.float32)), cv2.convexHull(np.asarray(b, np.float32))
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = abs(cv2.contourArea(a)) + abs(cv2.contourArea(b)) - inter
    return float(inter / union) if union > 0 else 0.0


def suppress_duplicates(boxes: list[tuple[np.ndarray, float]], max_iou: float = 0.6) -> list[tuple[np.ndarray, float]]:
    """Keep the best of boxes that are the same card twice (the cards of a trick overlap less)."""
    kept: list[tuple[np.ndarray, float]] = []
    for q, s in boxes:
        if all(_iou(q, k) <= max_iou for k, _ in kept):
            kept.append((q, s))
    return kept


def fit_sides(t: np.ndarray, shift: np.ndarray, ok: np.ndarray, need: int, tolerance: float = 1.5):
    """Robust straight-line fits ``shift = a + b t`` of the four sides' edge points at once
    (least squares, then again on the points within ``tolerance`` of the line, twice).
    Returns ``(a, b, fitted, support)``: a side is fitted when ``need`` of its points
    (``support``) agree with its line."""
    keep = ok.copy()
    tt = np.broadcast_to(t, shift.shape)
    a = np.zeros(len(shift), np.float32)
    b = np.zeros(len(shift), np.float32)
    for _ in range(3):
        k = keep.astype(np.float32)
        n, st, ss = k.sum(1), (k * tt).sum(1), (k * shift).sum(1)
        stt, sts = (k * tt * tt).sum(1), (k * tt * shift).sum(1)
        det = n * stt - st * st
        good = (n >= 2) & (np.abs(det) > 1e-9)
        b = np.where(good, (n * sts - st * ss) / np.where(good, det, 1.0), 0.0).astype(np.float32)
        a = np.where(n > 0, (ss - b * st) / np.maximum(n, 1.0), 0.0).astype(np.float32)
        keep = ok & (np.abs(shift - (a[:, None] + b[:, None] * tt)) <= tolerance)
    support = keep.sum(1)
    return a, b, support >= need, support


MAX_TURN = np.deg2rad(4.0)  # sides of one card found more out of square than this disagree
MAX_SIZE_CHANGE = 0.12  # a card found this much longer or wider than the network said is wrong
INNER_LINE = 5.0  # pixels: a straight line this far inside the outermost edge is printed on the card


def side_edges_many(image: np.ndarray, quads: np.ndarray, reach: float = 0.15, samples: int = 16):
    """:func:`vision.localise.side_edges` for many quads (N, 4, 2) at once, on a one-pixel grid
    across each side (each quad's own reach), and both the outermost strong and the
    strongest step of each profile. Returns ``(t, shifts (2, N, 4, S), ok (N, 4, S),
    normals (N, 4, 2), reach (N,))``."""
    q = np.asarray(quads, np.float32)
    centre = q.mean(1, keepdims=True)
    starts, ends = q, np.roll(q, -1, axis=1)
    side = np.linalg.norm(ends - starts, axis=2)
    r = np.maximum(2.0, reach * np.minimum(side[:, 0], side[:, 1]))  # (N,)
    big = float(np.ceil(min(64.0, r.max())))
    unit = np.arange(-big, big + 1, dtype=np.float32)  # one-pixel steps; beyond a quad's own reach: masked
    steps = len(unit)
    offsets = np.broadcast_to(unit, (len(q), steps))
    t = np.linspace(0.2, 0.8, samples, dtype=np.float32)
    d = (ends - starts) / np.maximum(side[..., None], 1e-6)
    n = np.stack([d[..., 1], -d[..., 0]], -1)
    inward = np.einsum("nij,nij->ni", n, centre - starts) > 0
    n[inward] *= -1  # outward normals
    base = starts[:, :, None, :] + (ends - starts)[:, :, None, :] * t[None, None, :, None]  # N x 4 x S x 2
    pts = base[:, :, :, None, :] + offsets[:, None, None, :, None] * n[:, :, None, None, :]  # N x 4 x S x K x 2
    pts = pts.reshape(-1, steps, 2)
    prof = cv2.remap(image, np.ascontiguousarray(pts[..., 0]), np.ascontiguousarray(pts[..., 1]), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if prof.ndim == 3:
        prof = cv2.cvtColor(prof, cv2.COLOR_BGR2GRAY)
    grad = np.abs(np.diff(prof.astype(np.float32), axis=1)).reshape(len(q), 4, samples, -1)  # per pixel
    within = np.abs((unit[:-1] + unit[1:]) / 2)[None, :] <= r[:, None]  # (N, K - 1)
    grad = grad * within[:, None, None, :]
    peak = grad.max(axis=3)
    strong = grad >= 0.5 * peak[..., None]
    idx = grad.shape[3] - 1 - np.argmax(strong[..., ::-1], axis=3)
    top = np.argmax(grad, axis=3)
    ok = peak >= 12.0
    mid = (offsets[:, :-1] + offsets[:, 1:]) / 2  # (N, K - 1)
    rows = np.arange(len(q))[:, None, None]
    shifts = np.stack([mid[rows, idx], mid[rows, top]])
    return t, shifts, ok, n, r


def snap_quads(image: np.ndarray, quads, reach: float = 0.15, samples: int = 16) -> list[np.ndarray]:
    """Move each side of each rough quad onto the card's outer edge in ``image``, turning it
    as needed (the network's angle may be a few degrees off); the edge points of all the
    quads are read and fitted at once.

    Each side's edge points (:func:`side_edges_many`) are fitted with a
    straight line when most of them agree on one. The sides found must make a
    rectangle: a side more than ``MAX_TURN`` out of square with the best-supported
    one, or whose distance to the opposite side differs from the network's card
    size by more than ``MAX_SIZE_CHANGE`` (the edge of a card lying over this one),
    is dropped. A side not found is placed parallel to the opposite side at the
    network's card size when that one was found, else turned like the found sides
    through its own midpoint. Corners are the sides' intersections.
    """
    if len(quads) == 0:
        return []
    qs = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    t, shifts, ok, n, r = side_edges_many(image, qs, reach, samples)
    need = int(np.ceil(0.6 * samples))
    flat = ok.reshape(-1, samples)
    outer = fit_sides(t, shifts[0].reshape(-1, samples), flat, need)
    strong = fit_sides(t, shifts[1].reshape(-1, samples), flat, need)
    # per side, the outermost strong steps (the card's outer edge); the strongest ones where those
    # lie clearly worse on a line (the outermost step is then on something beyond the card: a card
    # below it) and no more askew, unless the strongest line lies well inside (a frame line
    # printed near the edge)
    clearly_better = (strong[3] >= outer[3] + 3) & (np.abs(strong[1]) <= np.abs(outer[1]) + 2)
    use = strong[2] & (~outer[2] | (clearly_better & (outer[0] + outer[1] / 2 - strong[0] - strong[1] / 2 < INNER_LINE)))
    a, b, fitted, support = (np.where(use, y, x).reshape(len(qs), 4) for x, y in zip(outer, strong))
    return [_snap_one(image, q, a[k], b[k], fitted[k].copy(), support[k], n[k], float(r[k]), reach) for k, q in enumerate(qs)]


def _snap_one(image, q, a, b, fitted, support, n, r, reach) -> np.ndarray:
    """One quad's sides from its fitted edge lines (see :func:`snap_quads`)."""
    starts, ends = q, np.roll(q, -1, axis=0)
    long_sides = np.array([False, True, False, True]) if _short_first(q) else np.array([True, False, True, False])
    if not (fitted & long_sides).any():  # the card's direction comes from its long sides
        return refine_quad(image, q, reach)
    p0 = starts + n * a[:, None]
    p1 = ends + n * (a + b)[:, None]
    d = (p1 - p0) / np.maximum(np.linalg.norm(p1 - p0, axis=1, keepdims=True), 1e-6)
    # every side's idea of the card's axis (short sides turned a quarter): all fitted sides agree
    axis = np.arctan2(d[:, 1], d[:, 0]) + np.array([0.5, 0, 0.5, 0]) * np.pi * (1 if _short_first(q) else -1)
    best = int(np.argmax(np.where(fitted, support, -1)))
    turn = np.abs((axis - axis[best] + np.pi / 2) % np.pi - np.pi / 2)
    fitted &= turn <= MAX_TURN
    size = np.linalg.norm(ends - starts, axis=1)  # the network's: side i is as long as side i+2 is far from side i
    for i in (0, 1):
        j = i + 2
        if fitted[i] and fitted[j]:
            mid_i, mid_j = (p0[i] + p1[i]) / 2, (p0[j] + p1[j]) / 2
            gap = abs(float((mid_j - mid_i) @ n[i]))
            expected = size[(i + 1) % 4]
            if abs(gap / max(expected, 1e-6) - 1) > MAX_SIZE_CHANGE:
                fitted[i if support[i] < support[j] else j] = False
    centre = q.mean(0)
    lines = []
    for i in range(4):
        j = (i + 2) % 4
        if fitted[i]:
            lines.append(np.array([d[i, 0], d[i, 1], p0[i, 0], p0[i, 1]], np.float32))
        elif fitted[j]:  # parallel to the opposite side, a card's size away from it
            inward = np.array([-d[j, 1], d[j, 0]], np.float32)
            if float((centre - p0[j]) @ inward) < 0:
                inward = -inward
            p = p0[j] + inward * size[(i + 1) % 4]
            lines.append(np.array([d[j, 0], d[j, 1], p[0], p[1]], np.float32))
        else:  # turned like the best side, through its own midpoint
            ang = axis[best] - (axis[i] - np.arctan2(ends[i, 1] - starts[i, 1], ends[i, 0] - starts[i, 0]))
            mid = (starts[i] + ends[i]) / 2
            lines.append(np.array([np.cos(ang), np.sin(ang), mid[0], mid[1]], np.float32))
    return corners_of_sides(lines, q, 2.5 * r)


def _short_first(q: np.ndarray) -> bool:
    """Whether side 0 (corner 0 -> 1) is a short side of ``q``."""
    return float(np.linalg.norm(q[1] - q[0])) <= float(np.linalg.norm(q[2] - q[1]))


LARGE_CARD = 0.52  # of a 320x180 input's height: the longest cards the network learnt (further looks find longer ones)
SMALL_CARD = 0.24  # of the input's height: cards shorter than this get a closer look in an enlarged crop
GOOD_CARD = 0.38  # the card size (of the input's height) the closer look aims at
MAX_ZOOM = 3.0
MAX_CLOSE_LOOKS = 3  # crops per frame at most


def _long_side(q: np.ndarray) -> float:
    e = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    return float(max(e[0] + e[2], e[1] + e[3]) / 2)


def _outlined(frame_bgr: np.ndarray, quad: np.ndarray) -> bool:
    """Whether at least three sides of ``quad`` lie on straight edges of ``frame_bgr`` (the frame
    reduced to the input width: blur spreads a large card's edges over many full-resolution pixels)."""
    q = order_quad(quad)
    t, shift, ok, _, _ = side_edges(frame_bgr, q, 0.15, 16)
    return int(fit_sides(t, shift, ok, 10)[2].sum()) >= 3


@dataclass
class CardLocator:
    """The network card finder; calling it on a BGR frame returns the card quads.

    The whole frame is looked at by ``session``; the further looks (smaller, for large cards;
    closer, for small ones) by ``looks`` when there is one: a locator of its own (its network and
    threshold), loaded from ``LOOKS_FILE`` beside the locator's file. A wide network for the one
    look that must find every card, a narrow one for the looks at cards already roughly known,
    fits the frame budget where the wide one everywhere does not."""

    session: object
    threshold: float = 0.35
    refine: bool = True
    meta: dict | None = None
    looks: "CardLocator | None" = None

    @classmethod
    def load(cls, path: str | Path | None = None, threads: int = 1, threshold: float | None = None,
             looks: bool = True) -> "CardLocator":
        """The locator of ``path`` (default ``models/locator.onnx``) at ``threshold`` (default its
        own), with the further looks' network of ``LOOKS_FILE`` beside it when ``looks`` and there."""
        import onnxruntime as ort

        path = Path(path) if path else models_dir() / LOCATOR_FILE
        if not path.is_file():
            raise TarotmateError(f"card locator model {path} is missing (rebuild it: make models)")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        try:
            session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
            meta = json.loads(session.get_modelmeta().custom_metadata_map.get("tarotmate", "{}"))
        except Exception as exc:  # onnxruntime raises its own exception types; bad metadata is JSON's
            raise TarotmateError(f"cannot load the card locator model {path}: {exc} (rebuild it: make models)") from exc
        thr = threshold if threshold is not None else float(meta.get("threshold", 0.35))
        further = path.with_name(LOOKS_FILE)
        helper = cls.load(further, threads, looks=False) if looks and path.name != LOOKS_FILE and further.is_file() else None
        return cls(session, thr, True, meta, helper)

    def _look(self, small_bgr: np.ndarray) -> list[tuple[np.ndarray, float]]:
        """A further look's rectangles (input pixels), by the further looks' network when there is one."""
        net = self.looks or self
        return suppress_duplicates(decode(net.run(small_bgr), net.threshold))

    def maps(self, frame_bgr: np.ndarray, width: int = INPUT_WIDTH) -> tuple[np.ndarray, float]:
        x, f = prepare(frame_bgr, width)
        (out,) = self.session.run(["maps"], {"image": x})
        return out[0], f

    def boxes(self, frame_bgr: np.ndarray) -> list[tuple[np.ndarray, float]]:
        """Rough rectangles in frame pixels with their scores, before refinement.

        The network knows cards up to about ``LARGE_CARD`` times 180 input
        pixels long (half a 320x180 input's height). Larger ones (a camera close to the table,
        a photo of one card, a portrait photo) are found on further looks at the
        frame at half the previous width (each a quarter of the work), down to 64
        pixels wide, where they have sizes the network knows; such a large card
        counts when at least three of its sides lie on straight edges of the
        frame (not a cluster of smaller cards), and it replaces what the earlier
        looks made of it (often two or three pieces).
        """
        w = frame_bgr.shape[1]
        small, f = reduce_frame(frame_bgr)
        first, f0 = small, f
        found = [(q / f, s) for q, s in suppress_duplicates(decode(self.run(small), self.threshold))]
        while small.shape[1] >= 128 and small.shape[0] >= 96:
            small = cv2.resize(small, (small.shape[1] // 2, max(16, small.shape[0] // 2)), interpolation=cv2.INTER_AREA)
            f = small.shape[1] / w
            large = [(q / f, s) for q, s in self._look(small)
                     if _long_side(q) > LARGE_CARD / 2 * 180 and _outlined(first, q / f * f0)]
            if large:
                hulls = [cv2.convexHull(q.astype(np.float32)) for q, _ in large]
                found = [(q, s) for q, s in found
                         if all(cv2.intersectConvexConvex(cv2.convexHull(q.astype(np.float32)), hh)[0] < 0.3 * abs(cv2.contourArea(q)) for hh in hulls)]
                found = sorted(found + large, key=lambda t: -t[1])
        return self._closer_looks(frame_bgr, found, f0)

    def _closer_looks(self, frame_bgr: np.ndarray, found: list, f0: float) -> list:
        """Small cards (shorter than ``SMALL_CARD`` of the input's height) are looked at again
        in a crop of the frame around them, enlarged so that they have the size the network
        knows best; what it finds inside the crop replaces the first look's boxes it overlaps."""
        h, w = frame_bgr.shape[:2]
        small = [q for q, _ in found if _long_side(q) * f0 < SMALL_CARD * 180]
        if not small:
            return found
        length = float(np.median([_long_side(q) for q in small]))
        zoom = min(MAX_ZOOM, GOOD_CARD * 180 / (length * f0))
        cw, ch = min(w, int(w / zoom)), min(h, int(h / zoom))
        pending = sorted(small, key=lambda q: (q.mean(0)[1], q.mean(0)[0]))
        for _ in range(MAX_CLOSE_LOOKS):
            if not pending:
                break
            centre = pending[0].mean(0)
            x0 = int(np.clip(centre[0] - cw / 2, 0, w - cw))
            y0 = int(np.clip(centre[1] - ch / 2, 0, h - ch))
            # the crop's inner part: a card centred there lies wholly in the crop
            margin = 0.5 * length
            inner = (x0 + (margin if x0 > 0 else -1), y0 + (margin if y0 > 0 else -1),
                     x0 + cw - (margin if x0 + cw < w else -1), y0 + ch - (margin if y0 + ch < h else -1))

            def inside(q):
                c = q.mean(0)
                return inner[0] <= c[0] <= inner[2] and inner[1] <= c[1] <= inner[3]

            region, fc = reduce_frame(frame_bgr[y0 : y0 + ch, x0 : x0 + cw])
            offset = np.array([x0, y0], np.float32)
            closer = [(q / fc + offset, s) for q, s in self._look(region)]
            closer = [(q, s) for q, s in closer if inside(q)]
            before = len(pending)
            pending = [q for q in pending if not inside(q)]
            if len(pending) == before:  # nothing of the first look in there: do not loop on it
                pending = pending[1:]
            # the closer look's boxes replace those of the first look that they overlap
            found = [(q, s) for q, s in found if not (inside(q) and any(_iou(q, c) > 0.3 for c, _ in closer))] + closer
            found = suppress_duplicates(sorted(found, key=lambda t: -t[1]))
        return sorted(found, key=lambda t: -t[1])

    def run(self, small_bgr: np.ndarray) -> np.ndarray:
        """The network's (7, h, w) maps for a frame already reduced to the input's width."""
        (out,) = self.session.run(["maps"], {"image": to_input(small_bgr, padded_height(small_bgr.shape[0]))})
        return out[0]

    def __call__(self, frame_bgr: np.ndarray) -> list[np.ndarray]:
        if frame_bgr is None or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
            raise ValueError("a frame is a BGR image of shape (height, width, 3)")
        quads = [order_quad(q) for q, _ in self.boxes(frame_bgr)]
        if self.refine:
            quads = [order_quad(q) for q in snap_quads(frame_bgr, quads)]
        return quads

"""Is the picture good enough? What a camera frame of the table says about the set-up.

Pure functions (numpy + OpenCV) on one BGR frame and the card quads found in
it (:func:`vision.localise.find_cards`):

* :func:`light_level` — how bright the table is (0..1: the 90th percentile of
  the grey levels, so that the white of the cards counts, not the cloth);
* :func:`noise_sigma` — the sensor noise (grey levels, sigma), from the
  frame's finest detail where the picture is flat;
* :func:`sharpness` — how steep the strongest edges are (1/px: the slope of
  an edge over its contrast; a sharp frame ~0.3, defocus sigma 2 px ~0.17);
* :func:`glare_boxes` — saturated, compact spots (a lamp reflected);
* :func:`card_height` — the cards' long side in pixels (median of the quads);
* :func:`camera_tilt` — the camera's angle off vertical (degrees), from the
  perspective of the card outlines;
* :func:`cut_sides` — the picture's edges that cut a card found (the card
  finder gives a card cut by the frame's edge its whole outline, reaching
  beyond the frame);

and :func:`check_frame`, which measures all of them and turns them into
advice codes (:data:`ADVICE_CODES`, worst first) by :class:`Thresholds`. The
words of the advice (in the screen's language) are the device's
(``device/screens/camera_check.py``); where each threshold comes from is
written in ``docs/camera.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

# Worst first: what the players should fix before anything else.
ADVICE_CODES = ("dim", "blur", "glare", "cut", "small_cards", "tilted", "noisy", "no_card")
SIDES = ("left", "right", "top", "bottom")
OK = "ok"
CLIPPED_GREY = 250  # a grey level the sensor clipped at (or the JPEG around it)
GLARE_GREY = CLIPPED_GREY  # a grey level on a card at or over which it shows a lamp's reflection (clipped), not its paper


@dataclass(frozen=True)
class Thresholds:
    """When a measure becomes advice (docs/camera.md says where each comes from)."""

    dim_level: float = 0.60  # light level (the cards' paper) below which the room is too dim
    dim_level_no_card: float = 0.20  # ... without a card (the frame's brightest 1 %: a dark cloth is not a dim room)
    noisy_sigma: float = 3.0  # noise (grey levels) above which the picture is noisy
    blur_sharpness: float = 0.19  # sharpness (1/px) below which the picture is out of focus
    glare_whiter: float = 0.035  # glare: this much whiter than the cards' paper (least / greatest channel)
    glare_brighter: float = 1.10  # ... and this much brighter
    glare_solidity: float = 0.88  # ... in a solid blob (area over its convex hull's)
    glare_clipped: int = 235  # ... and clipped: its least channel at least this (a lamp's reflection saturates the sensor)
    glare_px: int = 60  # a glare spot at least this big (frame pixels, after opening) is glare
    small_card_px: float = 110.0  # card long side (frame pixels) below which naming falls
    tilt_deg: float = 25.0  # camera angle off vertical (estimated) from which the cards are foreshortened
    hfov_deg: float = 66.0  # the camera's horizontal field of view (Camera Module 3; Wide: 102)
    cut_beyond: float = 0.05  # a card's outline reaching this share of its long side beyond the frame's edge: cut


@dataclass(frozen=True)
class CheckResult:
    """The measures of one frame and the advice they give (codes, worst first; ``("ok",)``)."""

    level: float
    noise: float
    sharpness: float
    glare: list[list[int]]
    card_height_px: float | None
    tilt_deg: float | None
    quads: list[np.ndarray] = field(default_factory=list)
    advice: tuple[str, ...] = (OK,)
    cut: tuple[str, ...] | None = None  # the picture's edges that cut a card found (:data:`SIDES`); None: not checked

    @property
    def good(self) -> bool:
        return self.advice == (OK,)

    def to_json(self, name: str, texts: dict[str, str]) -> dict:
        """The ``camera check --json`` object of this frame (``texts``: code -> words)."""
        out = {
            "image": name,
            "light": {"level": round(self.level, 3), "noise": round(self.noise, 2)},
            "sharpness": round(self.sharpness, 3),
            "glare": [list(map(int, box)) for box in self.glare],
            "card_height_px": None if self.card_height_px is None else round(self.card_height_px, 1),
            "advice": [{"code": code, "text": texts.get(code, code)} for code in self.advice],
        }
        if self.cut is not None:  # asked for (``edges``)
            out["cut"] = list(self.cut)
        return out


def grey(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


# ---------------------------------------------------------------- the measures
def light_level(image: np.ndarray, quads=()) -> float:
    """How bright the table is lit, 0..1: the 90th percentile of the grey levels on the cards
    found (their white; ~0.8 in a lit room), or of the whole frame's brightest 1 % without one."""
    g = grey(image)
    if quads:
        mask = np.zeros(g.shape, np.uint8)
        cv2.fillPoly(mask, [np.round(np.asarray(q)).astype(np.int32) for q in quads], 1)
        values = g[mask > 0]
        paper = values[values < GLARE_GREY]  # a lamp's reflection on a card is not the room's light
        values = paper if paper.size >= 100 else values
        if values.size >= 100:
            return float(np.percentile(values, 90)) / 255.0
    small = g[::2, ::2] if g.size > 200_000 else g
    return float(np.percentile(small, 99)) / 255.0


def noise_sigma(image: np.ndarray) -> float:
    """The sensor noise (sigma, grey levels): Immerkær's Laplacian-difference filter, its
    mean absolute response over the flat half of the frame (edges left out)."""
    g = grey(image).astype(np.float32)
    kernel = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
    r = np.abs(cv2.filter2D(g, -1, kernel, borderType=cv2.BORDER_REFLECT))[1:-1, 1:-1]
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)[1:-1, 1:-1]
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)[1:-1, 1:-1]
    grad = cv2.GaussianBlur(np.abs(gx) + np.abs(gy), (0, 0), 2.0)
    inner = g[1:-1, 1:-1]
    ok = (inner > 8) & (inner < 247)  # clipped pixels carry no noise
    if ok.sum() < 100:
        return 0.0
    flat = grad <= np.percentile(grad[ok], 50)
    sel = r[flat & ok]
    if sel.size < 100:
        return 0.0
    # a Gaussian noise of sigma gives a response of sigma*6 (the kernel's sum of squares is 36),
    # whose mean absolute value is sigma*6*sqrt(2/pi)
    return float(np.mean(sel)) * float(np.sqrt(np.pi / 2)) / 6.0


def sharpness(image: np.ndarray, presmooth: float = 1.0) -> float:
    """Steepness of the strongest edges, 1/px: the gradient's magnitude over the local
    contrast (13×13) at the top 0.5 % of gradients, after a Gaussian of ``presmooth`` px
    that takes the noise away. A step blurred by a Gaussian of sigma s gives
    1/(s·√(2π)): ~0.3 for a sharp frame, ~0.17 for defocus sigma 2 px. Edges next to clipped
    pixels are left out: the sensor cuts a blurred highlight's profile (a lamp's reflection, an
    overexposed card) into a step steeper than the lens made it."""
    raw = grey(image)
    g = cv2.GaussianBlur(raw.astype(np.float32), (0, 0), presmooth)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    mag = np.sqrt(gx * gx + gy * gy)
    box = np.ones((13, 13), np.uint8)
    contrast = cv2.dilate(g, box) - cv2.erode(g, box)
    strong = contrast >= 40.0  # an edge worth measuring: the card outline, printed art
    clipped = raw >= CLIPPED_GREY
    if clipped.any():
        strong &= cv2.dilate(clipped.astype(np.uint8), box) == 0
    if strong.sum() < 50:
        return 0.0
    cut = np.percentile(mag[strong], 99.5)
    sel = strong & (mag >= cut)
    return float(np.median(mag[sel] / np.maximum(contrast[sel], 1.0)))


def glare_mask(image: np.ndarray, whiter: float = 0.04, bright: float = 0.85, brighter: float = 1.04,
               clipped: int = 235) -> np.ndarray:
    """Where a lamp is reflected: among the frame's brightest pixels (the greatest channel
    within ``bright`` of the frame's brightest), those whiter than the cards' paper by
    ``whiter`` (least channel over greatest; the paper's is the median of the brightest
    pixels), ``brighter`` times brighter than it and clipped (every channel at least
    ``clipped``, smoothed over 1.5 px). A specular reflection has the lamp's colour, which the
    camera's white balance makes neutral, and clips the sensor whatever the room's light; the
    paper of the cards (cream in most decks) keeps its tint, however bright one card is lit,
    and in a dim room stays far from white."""
    img = (image if image.ndim == 3 else np.repeat(image[..., None], 3, axis=2)).astype(np.float32)
    sm = cv2.GaussianBlur(img, (0, 0), 1.5)
    mx = sm.max(axis=2)
    top = float(np.percentile(mx[::2, ::2], 99.9))
    if top < 40:  # a black frame
        return np.zeros(mx.shape, bool)
    lit = mx >= bright * top
    whiteness = sm.min(axis=2) / np.maximum(mx, 1.0)
    paper = float(np.median(whiteness[lit]))
    paper_level = float(np.median(mx[lit]))
    return (lit & (whiteness >= min(paper + whiter, 0.995)) & (mx >= min(brighter * paper_level, 0.99 * top))
            & (sm.min(axis=2) >= clipped))


def glare_boxes(image: np.ndarray, min_px: int = 60, whiter: float = 0.03, brighter: float = 1.07,
                solidity: float = 0.85, clipped: int = 235) -> list[list[int]]:
    """Boxes ``[x, y, w, h]`` of the glare spots (:func:`glare_mask`), the biggest first:
    compact blobs (what is left after an opening by a 5×5 disc) of at least ``min_px``
    pixels, solid like a reflected lamp (their area at least ``solidity`` of their convex
    hull's: a white card's paper, whiter than the others', is full of holes where the
    art is)."""
    spot = glare_mask(image, whiter, 0.85, brighter, clipped).astype(np.uint8)
    spot = cv2.morphologyEx(spot, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(spot, connectivity=8)
    boxes = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if area < min_px or area > 0.05 * spot.size:  # a reflection is a spot, not the frame
            continue
        comp = (labels[y:y + h, x:x + w] == i).astype(np.uint8)
        contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        hull = cv2.convexHull(np.vstack(contours))
        if area >= solidity * max(1.0, cv2.contourArea(hull)):
            boxes.append([int(x), int(y), int(w), int(h)])
    return sorted(boxes, key=lambda b: -b[2] * b[3])


def long_side(quad: np.ndarray) -> float:
    q = np.asarray(quad, np.float32)
    sides = [float(np.linalg.norm(q[i] - q[(i + 1) % 4])) for i in range(4)]
    return max((sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2)


def card_height(quads) -> float | None:
    """The cards' long side in frame pixels, ``None`` with none: the 25th percentile of the
    quads' (a quad around a whole pile, or a card seen with its neighbour, is too long;
    a card is seldom found too short)."""
    if not quads:
        return None
    return float(np.percentile([long_side(q) for q in quads], 25))


def quad_normal(quad: np.ndarray, k: np.ndarray) -> np.ndarray | None:
    """The normal (camera coordinates) of the plane of a rectangle seen as ``quad``, from the
    vanishing points of its two pairs of opposite sides; ``None`` when degenerate."""
    q = np.hstack([np.asarray(quad, np.float64), np.ones((4, 1))])
    k_inv = np.linalg.inv(k)
    dirs = []
    for a, b, c, d in ((0, 1, 3, 2), (0, 3, 1, 2)):
        v = np.cross(np.cross(q[a], q[b]), np.cross(q[c], q[d]))  # two sides meet (at infinity too)
        ray = k_inv @ v
        norm = np.linalg.norm(ray)
        if norm == 0:
            return None
        dirs.append(ray / norm)
    n = np.cross(dirs[0], dirs[1])
    norm = np.linalg.norm(n)
    return None if norm < 1e-9 else n / norm


def card_tilts(quads, size: tuple[int, int], hfov_deg: float = 66.0) -> list[float]:
    """Each card's plane off the camera's axis (degrees), for a camera of horizontal field
    of view ``hfov_deg``."""
    w, h = size
    f = (w / 2) / np.tan(np.deg2rad(hfov_deg) / 2)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], np.float64)
    tilts = []
    for quad in quads:
        n = quad_normal(quad, k)
        if n is not None:
            tilts.append(float(np.degrees(np.arccos(min(1.0, abs(float(n[2])))))))
    return tilts


def camera_tilt(quads, size: tuple[int, int], hfov_deg: float = 66.0, min_cards: int = 3) -> float | None:
    """The camera's angle off vertical (degrees) from the card outlines (rectangles on the
    table): the median of the cards' tilts, ``None`` with fewer than ``min_cards`` cards
    (one outline's corners are too few to tell a few degrees)."""
    tilts = card_tilts(quads, size, hfov_deg)
    return float(np.median(tilts)) if len(tilts) >= max(1, min_cards) else None


def cut_sides(quads, size: tuple[int, int], beyond: float = 0.05) -> tuple[str, ...]:
    """The edges of a ``size`` (width, height) picture that cut a card found: those beyond
    which a quad reaches by more than ``beyond`` of its long side (in :data:`SIDES` order).
    The card finder outlines a card cut by the frame whole, its corners outside the frame;
    a card lying whole in the frame stays inside it, to the finder's error."""
    w, h = size
    cut = set()
    for quad in quads:
        q = np.asarray(quad, np.float32).reshape(4, 2)
        margin = beyond * long_side(q)
        for side, out in zip(SIDES, (-q[:, 0], q[:, 0] - w, -q[:, 1], q[:, 1] - h)):
            if float(out.max()) > margin:
                cut.add(side)
    return tuple(s for s in SIDES if s in cut)


# ---------------------------------------------------------------- the check
def advise(level: float, noise: float, sharp: float, glare: list, height: float | None, tilt: float | None,
           t: Thresholds, cut: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The advice codes for these measures, worst first (``("ok",)`` when none applies)."""
    found = set()
    if cut:
        found.add("cut")
    if level < (t.dim_level if height is not None else t.dim_level_no_card):
        found.add("dim")
    if noise > t.noisy_sigma:
        found.add("noisy")
    if 0 < sharp < t.blur_sharpness:  # 0: no edge to measure (an empty frame)
        found.add("blur")
    if glare:
        found.add("glare")
    if height is None:
        found.add("no_card")
    elif height < t.small_card_px:
        found.add("small_cards")
    if tilt is not None and tilt >= t.tilt_deg:
        found.add("tilted")
    codes = tuple(c for c in ADVICE_CODES if c in found)
    return codes or (OK,)


def check_frame(image: np.ndarray, quads=None, thresholds: Thresholds | None = None, localiser=None,
                edges: bool = False) -> CheckResult:
    """Measure one BGR frame and advise. ``quads``: the cards found in it (default: the
    card finder's, :func:`vision.localise.find_cards`, or ``localiser``'s). ``edges``: also
    say when a card found is cut by the picture's edge (:func:`cut_sides`, advice ``cut``)."""
    t = thresholds or Thresholds()
    if quads is None:
        if localiser is None:
            from vision.localise import find_cards as localiser
        quads = localiser(image)
    quads = [np.asarray(q, np.float32) for q in quads]
    h, w = image.shape[:2]
    level = light_level(image, quads)
    noise = noise_sigma(image)
    sharp = sharpness(image)
    glare = glare_boxes(image, t.glare_px, t.glare_whiter, t.glare_brighter, t.glare_solidity, t.glare_clipped)
    height = card_height(quads)
    tilt = camera_tilt(quads, (w, h), t.hfov_deg)
    cut = cut_sides(quads, (w, h), t.cut_beyond) if edges else None
    return CheckResult(level, noise, sharp, glare, height, tilt, quads,
                       advise(level, noise, sharp, glare, height, tilt, t, cut or ()), cut)

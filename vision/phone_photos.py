"""Phone photos of a card, synthesised: what ``tarotmate classify`` is given when a player photographs one.

A phone's 12 MP photo (4032x3024), as the classifier's path sees it once
reduced (``PHOTO``, landscape or portrait): one card, large in the frame,

* **lying** on a desk, seen at a slant (the far edge shorter), any way round;
* or **standing** against something, its foot on the desk and a wall behind,
  seen from a little above (its top edge shorter, the card foreshortened),
  with its soft shadow on the wall;

among clutter (papers with lines of text, books, a mug, pens, a keyboard's
keys: flat shapes with their own shading), under warm indoor light (a lamp's
2700-3500 K: blue down, red up, the lamp's fall-off across the frame, the
lens's vignetting), with the phone's own processing (a little smoothing, then
sharpening halos), sensor noise and JPEG. The face may be another printing of
its art (:mod:`vision.printings`, the caller's choice): the photos people take
are often of home-printed black-and-white cards.

:func:`make_phone_photo` gives the photo and the card's true corners;
:func:`make_phone_crop` the crop the card namer is given from it (corners
jittered as a card finder's are); the locator's training draws the photos too
(``vision.training.locator_data``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision import synth
from vision.quad_fit import order_quad

PHOTO = (1008, 756)  # a 4032x3024 photo reduced four times (landscape; portrait is the other way up)
POSES = ("lying", "standing")


@dataclass(frozen=True)
class PhonePhoto:
    image: np.ndarray  # BGR uint8
    quad: np.ndarray  # (4, 2) float32: the card's true corners (clockwise, a short edge first)
    pose: str  # one of POSES


def _shade(rng: np.random.Generator, colour) -> tuple[int, int, int]:
    c = np.clip(np.asarray(colour, np.float32) * rng.uniform(0.75, 1.1), 0, 255)
    return tuple(int(v) for v in c)


def _paper(rng: np.random.Generator, canvas: np.ndarray, quad: np.ndarray) -> None:
    """A sheet of paper with lines of 'text' (dark strokes), lying at ``quad``."""
    cv2.fillConvexPoly(canvas, quad.astype(np.int32), _shade(rng, (228, 230, 232)), cv2.LINE_AA)
    a, b, c, d = quad
    ink = _shade(rng, (60, 55, 50))
    for t in np.linspace(0.12, 0.88, int(rng.integers(6, 16))):
        left, right = a + (d - a) * t, b + (c - b) * t
        end = rng.uniform(0.55, 0.92)
        start = left + (right - left) * 0.1
        stop = left + (right - left) * end
        cv2.line(canvas, tuple(int(v) for v in start), tuple(int(v) for v in stop), ink,
                 max(1, int(np.linalg.norm(d - a) / 60)), cv2.LINE_AA)


def clutter(rng: np.random.Generator, canvas: np.ndarray, n: int, keep_clear: np.ndarray | None = None) -> None:
    """Draw ``n`` everyday things on ``canvas`` (in place), away from the mask ``keep_clear``
    (mostly: a pen may cross it): papers, books, a mug seen from above, pens, a keyboard's keys."""
    h, w = canvas.shape[:2]
    scale = min(w, h)
    free = np.nonzero(~keep_clear[::4, ::4]) if keep_clear is not None else None
    for _ in range(n):
        kind = rng.choice(["paper", "book", "mug", "pen", "keys"], p=[0.25, 0.25, 0.15, 0.2, 0.15])
        centre = rng.uniform(0, 1, 2) * [w, h]
        if free is not None and len(free[0]) and kind != "pen":
            k = int(rng.integers(len(free[0])))
            centre = np.array([free[1][k] * 4, free[0][k] * 4], np.float64)
        angle = rng.uniform(0, np.pi)
        if kind in ("paper", "book"):
            size = rng.uniform(0.25, 0.6) * scale
            quad = synth.card_quad(np.asarray(centre, np.float32), size, angle, rng.uniform(1.2, 1.5))
            if kind == "paper":
                _paper(rng, canvas, quad)
            else:
                cover = _shade(rng, rng.integers(20, 230, 3))
                cv2.fillConvexPoly(canvas, quad.astype(np.int32), cover, cv2.LINE_AA)
                cv2.polylines(canvas, [quad.astype(np.int32)], True, _shade(rng, (235, 235, 225)),
                              max(1, int(size / 40)), cv2.LINE_AA)
        elif kind == "mug":
            r = int(rng.uniform(0.06, 0.13) * scale)
            body = _shade(rng, rng.integers(30, 240, 3))
            c = tuple(int(v) for v in centre)
            cv2.circle(canvas, c, r, body, -1, cv2.LINE_AA)
            cv2.circle(canvas, c, int(r * 0.8), _shade(rng, (40, 50, 70)), -1, cv2.LINE_AA)  # coffee
            handle = (int(c[0] + r * 1.2 * np.cos(angle)), int(c[1] + r * 1.2 * np.sin(angle)))
            cv2.circle(canvas, handle, max(2, r // 3), body, max(2, r // 6), cv2.LINE_AA)
        elif kind == "pen":
            length = rng.uniform(0.2, 0.45) * scale
            d = np.array([np.cos(angle), np.sin(angle)]) * length / 2
            a, b = (centre - d).astype(int), (centre + d).astype(int)
            cv2.line(canvas, tuple(int(v) for v in a), tuple(int(v) for v in b), _shade(rng, rng.integers(0, 200, 3)),
                     max(2, int(scale / 90)), cv2.LINE_AA)
        else:  # keys: a grid of small rounded squares
            key = rng.uniform(0.025, 0.045) * scale
            rows, cols = int(rng.integers(2, 5)), int(rng.integers(5, 12))
            base = _shade(rng, (40, 40, 45) if rng.random() < 0.6 else (215, 215, 210))
            rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
            for i in range(rows):
                for j in range(cols):
                    off = rot @ np.array([(j - cols / 2) * key * 1.15, (i - rows / 2) * key * 1.15])
                    q = synth.card_quad(np.asarray(centre + off, np.float32), key, angle, 1.0)
                    cv2.fillConvexPoly(canvas, q.astype(np.int32), base, cv2.LINE_AA)


def _lying_quad(rng: np.random.Generator, w: int, h: int, aspect: float) -> np.ndarray:
    """A card lying on the desk, seen at a slant: a rectangle at any angle, then the frame's far
    (upper) part shrunk towards its middle as a phone held at 30-70 degrees from the vertical sees it."""
    length = rng.uniform(0.45, 0.9) * min(w, h) * (aspect if aspect < 1 else 1)
    centre = np.array([w / 2, h / 2]) + rng.uniform(-0.15, 0.15, 2) * [w, h]
    quad = synth.card_quad(centre.astype(np.float32), length, rng.uniform(0, 2 * np.pi), aspect).astype(np.float64)
    slant = rng.uniform(0.0, 0.35)  # the far edge this much narrower than the near one
    y0 = quad[:, 1].min()
    span = max(1.0, quad[:, 1].max() - y0)
    t = (quad[:, 1] - y0) / span  # 0: far, 1: near
    s = 1 - slant * (1 - t)
    quad[:, 0] = centre[0] + (quad[:, 0] - centre[0]) * s
    quad[:, 1] = y0 + (quad[:, 1] - y0) * rng.uniform(0.75, 1.0)  # foreshortened along the view
    return _inside(quad, w, h).astype(np.float32)


def _inside(quad: np.ndarray, w: int, h: int, margin: float = 0.02) -> np.ndarray:
    """``quad`` shrunk about its centre and moved as little as needed to lie in the frame, a
    ``margin`` (fraction of the frame) from its edges: a photo of a card shows all of it."""
    lo = np.array([w, h], np.float64) * margin
    hi = np.array([w, h], np.float64) * (1 - margin)
    centre = quad.mean(axis=0)
    span = quad.max(axis=0) - quad.min(axis=0)
    scale = min(1.0, float(np.min((hi - lo) / np.maximum(span, 1e-6))))
    quad = centre + (quad - centre) * scale
    shift = np.maximum(lo - quad.min(axis=0), 0) - np.maximum(quad.max(axis=0) - hi, 0)
    return quad + shift


def _standing_quad(rng: np.random.Generator, w: int, h: int, aspect: float) -> tuple[np.ndarray, float]:
    """A card standing upright, foot on the desk, seen from a little above: (its quad, the desk
    line's height in the frame). Its top is narrower, its height foreshortened, it may turn a little."""
    foot = rng.uniform(0.7, 0.95) * h
    squash = rng.uniform(0.75, 1.0)  # the height foreshortened
    height = min(rng.uniform(0.5, 0.85) * h, (foot - 0.02 * h) / 1.13)  # its top inside the frame, turned too
    width = min(height / aspect / squash, 0.85 * w)
    height = min(height, width * aspect * squash)
    cx = w / 2 + rng.uniform(-0.2, 0.2) * w
    top_w = width * rng.uniform(0.78, 0.97)
    turn = rng.uniform(-0.12, 0.12)  # one side a little nearer: its edge longer
    lean = rng.uniform(-0.08, 0.08) * height  # the top a little to one side
    quad = np.array([
        [cx - top_w / 2 + lean, foot - height * (1 - turn)],
        [cx + top_w / 2 + lean, foot - height * (1 + turn)],
        [cx + width / 2, foot],
        [cx - width / 2, foot],
    ], np.float32)
    quad = _inside(quad.astype(np.float64), w, h).astype(np.float32)
    return quad, float(quad[2:, 1].max() - rng.uniform(0.0, 0.04) * h)


def _warm_light(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Warm indoor light, a lamp's fall-off from one side and the lens's vignetting."""
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    warm = rng.uniform(0.0, 1.0)
    out *= np.array([1 - 0.25 * warm, 1 - 0.06 * warm, 1 + 0.1 * warm], np.float32)  # B, G, R
    # the light's shape is smooth: drawn on a coarse grid, then enlarged
    gh, gw = max(2, h // 16), max(2, w // 16)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    yy, xx = yy * (h / gh), xx * (w / gw)
    lamp = rng.uniform(-0.3, 1.3, 2) * [w, h]
    dist = np.hypot(xx - lamp[0], yy - lamp[1]) / np.hypot(w, h)
    vignette = np.hypot((xx - w / 2) / (w / 2), (yy - h / 2) / (h / 2)) / np.sqrt(2)
    gain = (1 - rng.uniform(0.1, 0.5) * dist) * (1 - rng.uniform(0.05, 0.3) * vignette ** 2) * rng.uniform(0.7, 1.15)
    out *= cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def _phone_processing(rng: np.random.Generator, img: np.ndarray, dim: float) -> np.ndarray:
    """Sensor noise (more in dim light), the phone's smoothing and sharpening, JPEG."""
    out = img.astype(np.float32)
    sigma = rng.uniform(1.5, 4.0) + 5.0 * dim
    out += rng.normal(0, sigma, out.shape[:2] + (1,)).astype(np.float32)  # luminance noise
    out += rng.normal(0, sigma * 0.4, out.shape).astype(np.float32)  # colour noise
    out = np.clip(out, 0, 255)
    smooth = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.2))
    amount = rng.uniform(0.2, 0.9)
    sharp = cv2.addWeighted(smooth, 1 + amount, cv2.GaussianBlur(smooth, (0, 0), 2.0), -amount, 0)
    out = np.clip(sharp, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 96))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else out


def make_phone_photo(rng: np.random.Generator, face: synth.Face, size: tuple[int, int] | None = None,
                     backgrounds_dir=None, pose: str | None = None) -> PhonePhoto:
    """One phone photo of ``face`` (see the module doc). ``size``: (w, h), default ``PHOTO``
    landscape or portrait at random; ``pose``: one of ``POSES``, default either."""
    if size is None:
        size = PHOTO if rng.random() < 0.5 else PHOTO[::-1]
    w, h = size
    pose = pose or POSES[int(rng.random() < 0.5)]
    if pose not in POSES:
        raise ValueError(f"unknown pose {pose!r} (one of {', '.join(POSES)})")
    aspect = face.bgr.shape[0] / face.bgr.shape[1]
    canvas = synth.table_surface(rng, w, h, backgrounds_dir)
    standing = pose == "standing"
    if standing:
        quad, desk = _standing_quad(rng, w, h, aspect)
        wall = np.asarray(_shade(rng, rng.integers(150, 245, 3)), np.float32)
        grad = np.linspace(rng.uniform(0.8, 1.0), rng.uniform(0.9, 1.1), int(desk), dtype=np.float32)[:, None, None]
        canvas[: int(desk)] = np.clip(wall * grad, 0, 255).astype(np.uint8)
    else:
        quad = _lying_quad(rng, w, h, aspect)
    card_mask = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(card_mask, quad.astype(np.int32), 255)
    clear = cv2.dilate(card_mask, np.ones((25, 25), np.uint8)) > 0
    if standing:
        clear[: int(desk)] = True  # things lie on the desk, in front of the wall
    clutter(rng, canvas, int(rng.integers(1, 5) if standing else rng.integers(2, 8)), keep_clear=clear)
    if standing:  # its soft shadow on the wall behind, offset away from the lamp
        shadow = np.zeros((h, w), np.float32)
        offset = rng.uniform(-0.08, 0.08, 2) * [w, h * 0.3]
        cv2.fillConvexPoly(shadow, (quad + offset.astype(np.float32)).astype(np.int32), 1.0)
        shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, 0.02 * w))
        canvas = np.clip(canvas.astype(np.float32) * (1 - rng.uniform(0.2, 0.5) * shadow[..., None]), 0, 255).astype(np.uint8)
    synth.paste(canvas, face, quad, shade=rng.uniform(0.85, 1.05))
    if rng.random() < 0.3:  # out of focus a little (the phone focused on the clutter)
        canvas = cv2.GaussianBlur(canvas, (0, 0), rng.uniform(0.6, 1.8))
    lit = _warm_light(rng, canvas)
    dim = float(np.clip(1 - lit.mean() / max(1.0, canvas.mean()), 0, 1))
    return PhonePhoto(_phone_processing(rng, lit, dim), order_quad(quad), pose)


def make_phone_crop(rng: np.random.Generator, face: synth.Face, size: tuple[int, int], backgrounds_dir=None,
                    jitter: float = 0.04) -> np.ndarray:
    """The card namer's crop of a phone photo of ``face``: warped from its true corners, each
    moved by up to ``jitter`` of the card's width (a card finder's corners are not exact)."""
    from vision.warp import warp_card

    # at half the photo's size the card is still 170-340 px long, more than the crop: the same crop,
    # a quarter of the work
    small = (PHOTO[0] // 2, PHOTO[1] // 2)
    photo = make_phone_photo(rng, face, small if rng.random() < 0.5 else small[::-1], backgrounds_dir)
    q = photo.quad.astype(np.float32)
    width = float(np.linalg.norm(q[1] - q[0]))
    q = q + rng.uniform(-jitter, jitter, q.shape).astype(np.float32) * width
    if rng.random() < 0.5:
        q = np.roll(q, 2, axis=0)  # either way up
    return warp_card(photo.image, q, size)

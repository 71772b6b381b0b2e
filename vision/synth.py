"""Synthetic table images and card crops, for training, tests and benchmarks.

Two products, both driven by a ``numpy.random.Generator`` so that a seed gives
the same images again:

* :func:`make_scene`: a whole camera frame (default 1280x720) with cards laid
  on a table surface (scattered, or overlapping as in a trick), distractors
  (card backs, hand-like blobs, coins) and camera effects; it returns the
  image and the ground truth (code and true corners of each card face).
* :func:`make_crop`: a straightened card crop as the localiser + warp would
  give it (jittered corners, a little table at the edges, sometimes a
  neighbouring card over a corner), or an ``unknown`` crop (a back, a hand, a
  coin, an empty patch, a card mostly outside the crop).

The photometric effects (:func:`photometric`) are shared by both: uneven
light, glare, shadow, colour cast, hue/saturation changes, blur, noise, low
resolution, JPEG.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from engine.cards import CODES
from vision.card_geometry import card_quad

UNKNOWN = "unknown"
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp")


# ---------------------------------------------------------------- card faces
@dataclass(frozen=True)
class Face:
    """One card image: BGR pixels and an alpha mask (255 = card), same size."""

    code: str
    bgr: np.ndarray
    alpha: np.ndarray


def rounded_alpha(h: int, w: int, radius_frac: float = 0.045) -> np.ndarray:
    """A card-shaped alpha mask with rounded corners."""
    r = max(1, int(round(radius_frac * w)))
    a = np.zeros((h, w), np.uint8)
    cv2.rectangle(a, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(a, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(a, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return a


def face_from_image(code: str, img: np.ndarray) -> Face:
    """A Face from a BGR or BGRA image (transparent corners are kept)."""
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:
        alpha = img[..., 3].copy()
        bgr = img[..., :3].copy()
        bgr[alpha == 0] = 255
    else:
        bgr = img[..., :3].copy()
        alpha = rounded_alpha(*bgr.shape[:2])
    return Face(code, bgr, alpha)


def deck_folders(decks_dir: str | Path) -> list[Path]:
    """The deck folders of ``decks_dir`` (each holds CODE.jpg/png images), sorted by name."""
    root = Path(decks_dir)
    return sorted(p for p in root.iterdir() if p.is_dir() and any(p.glob("T01.*")))


@lru_cache(maxsize=16)
def load_deck(folder: str | Path, max_height: int = 800) -> tuple[Face, ...]:
    """The 78 faces of the deck in ``folder`` (images named by card code), in CODES order."""
    folder = Path(folder)
    faces = []
    for code in CODES:
        path = next((folder / f"{code}{s}" for s in IMAGE_SUFFIXES if (folder / f"{code}{s}").exists()), None)
        if path is None:
            raise FileNotFoundError(f"deck {folder.name}: no image for card {code}")
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise ValueError(f"deck {folder.name}: cannot read {path.name}")
        if img.shape[0] > max_height:
            f = max_height / img.shape[0]
            img = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        faces.append(face_from_image(code, img))
    return tuple(faces)


@lru_cache(maxsize=1)
def builtin_faces() -> tuple[Face, ...]:
    """The 78 faces of Tarotmate's built-in deck."""
    from vision.builtin_deck import render_card

    return tuple(face_from_image(code, np.array(render_card(code))) for code in CODES)


def builtin_back() -> Face:
    from vision.builtin_deck import render_back

    return face_from_image(UNKNOWN, np.array(render_back()))


def random_back(rng: np.random.Generator, h: int = 400, w: int = 220) -> Face:
    """A procedural card back: solid, striped, checked, tartan or dotted, with a border."""
    c1 = rng.integers(0, 256, 3).tolist()
    c2 = rng.integers(0, 256, 3).tolist()
    img = np.full((h, w, 3), c1, np.uint8)
    kind = rng.integers(5)
    step = int(rng.integers(8, 30))
    if kind == 1:
        for x in range(-h, w + h, step):
            cv2.line(img, (x, 0), (x + h, h), c2, max(1, step // 3))
    elif kind == 2:
        for y in range(0, h, step):
            for x in range(0, w, step):
                if (x // step + y // step) % 2:
                    img[y : y + step, x : x + step] = c2
    elif kind == 3:
        for x in range(0, w, step):
            cv2.line(img, (x, 0), (x, h), c2, max(1, step // 4))
        for y in range(0, h, step):
            cv2.line(img, (0, y), (w, y), c2, max(1, step // 4))
    elif kind == 4:
        for y in range(step // 2, h, step):
            for x in range(step // 2, w, step):
                cv2.circle(img, (x, y), max(1, step // 4), c2, -1)
    if rng.random() < 0.7:
        border = rng.integers(180, 256, 3).tolist() if rng.random() < 0.6 else c2
        cv2.rectangle(img, (3, 3), (w - 4, h - 4), border, int(rng.integers(3, 10)))
    return Face(UNKNOWN, img, rounded_alpha(h, w))


# ---------------------------------------------------------------- tables
@lru_cache(maxsize=4)
def _texture_files(folder: str) -> tuple[np.ndarray, ...]:
    out = []
    for p in sorted(Path(folder).glob("*")):
        if p.suffix.lower() in IMAGE_SUFFIXES:
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is not None:
                out.append(img)
    return tuple(out)


def procedural_table(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A table surface: solid, noisy felt, gradient or wood-like grain."""
    base = rng.integers(0, 256, 3).astype(np.float32)
    if rng.random() < 0.5:  # most tables are mid/dark
        base *= rng.uniform(0.25, 0.8)
    kind = rng.integers(4)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    if kind == 1:  # felt: fine noise
        n = rng.normal(0, rng.uniform(3, 12), (h // 2 + 1, w // 2 + 1, 1)).astype(np.float32)
        img += cv2.resize(n, (w, h))[..., None]
    elif kind == 2:  # gradient to a second colour
        other = rng.integers(0, 256, 3).astype(np.float32) * 0.6
        t = np.linspace(0, 1, w if rng.random() < 0.5 else h, dtype=np.float32)
        t = t[None, :, None] if t.size == w else t[:, None, None]
        img = img * (1 - t * 0.6) + other * (t * 0.6)
    elif kind == 3:  # wood: stretched noise grain
        gh = max(4, h // int(rng.integers(20, 60)))
        n = rng.normal(0, 1, (gh, max(4, w // 200))).astype(np.float32)
        grain = cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)
        fine = cv2.resize(rng.normal(0, 1, (h // 2, 8)).astype(np.float32), (w, h))
        img += (grain * 18 + fine * 6)[..., None] * np.array([0.6, 0.8, 1.0], np.float32)
        if rng.random() < 0.5:
            img = np.ascontiguousarray(np.swapaxes(cv2.resize(img, (h, w)), 0, 1))
    return np.clip(img, 0, 255).astype(np.uint8)


def table_surface(rng: np.random.Generator, w: int, h: int, backgrounds_dir: str | Path | None = None) -> np.ndarray:
    """A table surface of (w, h): a texture from ``backgrounds_dir`` half of the time, else procedural."""
    textures = _texture_files(str(backgrounds_dir)) if backgrounds_dir else ()
    if textures and rng.random() < 0.5:
        tex = textures[rng.integers(len(textures))]
        th, tw = tex.shape[:2]
        # texture pixels per output pixel: small tiles are enlarged, big photos shown at 0.5-2x of a 1280 frame
        zoom = rng.uniform(0.8, 2.5) * max(1.0, 256 / max(th, tw)) * (min(w, h) / 720 if max(th, tw) > 512 else 1.0)
        win_w, win_h = max(2, int(w / zoom)), max(2, int(h / zoom))
        reps = (win_h // th + 2, win_w // tw + 2, 1)
        big = np.tile(tex, reps) if reps[0] > 1 or reps[1] > 1 else tex
        y, x = rng.integers(0, th), rng.integers(0, tw)
        window = big[y : y + win_h, x : x + win_w]
        out = cv2.resize(window, (w, h), interpolation=cv2.INTER_LINEAR)
        if rng.random() < 0.3:
            out = np.ascontiguousarray(cv2.rotate(cv2.resize(out, (h, w)), cv2.ROTATE_90_CLOCKWISE))
        return out
    return procedural_table(rng, w, h)


# ---------------------------------------------------------------- photometry
def photometric(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0, colour: float = 1.0) -> np.ndarray:
    """Camera and lighting effects on a BGR uint8 image (returns a new image).

    ``strength`` scales the geometric-light effects (gradient, glare, shadow,
    blur, noise, JPEG); ``colour`` scales the colour changes (cast, hue,
    saturation, grey).
    """
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    # colour: hue rotation / saturation / grey (other colourings of a deck, white balance)
    if colour > 0 and rng.random() < 0.6 * colour:
        hsv = cv2.cvtColor(np.clip(out, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV).astype(np.float32)
        if rng.random() < 0.5:
            hsv[..., 0] = (hsv[..., 0] + rng.uniform(-25, 25) * colour) % 180
        hsv[..., 1] *= rng.uniform(1 - 0.6 * colour, 1 + 0.4 * colour)
        out = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    if colour > 0 and rng.random() < 0.08 * colour:
        g = cv2.cvtColor(np.clip(out, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
        out = np.repeat(g[..., None], 3, axis=2)
    if colour > 0:
        out *= rng.uniform(1 - 0.15 * colour, 1 + 0.15 * colour, 3).astype(np.float32)
    # global exposure and gamma
    out *= rng.uniform(1 - 0.35 * strength, 1 + 0.2 * strength)
    out += rng.uniform(-20, 20) * strength
    # uneven light: a linear ramp
    if rng.random() < 0.6 * strength:
        ang = rng.uniform(0, 2 * np.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ramp = ((xx / w - 0.5) * np.cos(ang) + (yy / h - 0.5) * np.sin(ang))
        out *= (1 + rng.uniform(0.2, 0.7) * strength * ramp)[..., None]
    # shadow: a dark soft polygon
    if rng.random() < 0.3 * strength:
        pts = (rng.random((int(rng.integers(3, 6)), 2)) * [w, h] * 1.4 - [0.2 * w, 0.2 * h]).astype(np.int32)
        m = np.zeros((h, w), np.float32)
        cv2.fillPoly(m, [pts], 1.0)
        k = int(max(3, min(h, w) * 0.15)) | 1
        m = cv2.GaussianBlur(m, (k, k), 0)
        out *= (1 - rng.uniform(0.25, 0.55) * m)[..., None]
    # glare: a bright soft ellipse
    if rng.random() < 0.3 * strength:
        m = np.zeros((h, w), np.float32)
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        ax = (int(rng.uniform(0.05, 0.3) * w) + 1, int(rng.uniform(0.05, 0.3) * h) + 1)
        cv2.ellipse(m, c, ax, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        k = int(max(3, min(h, w) * 0.1)) | 1
        m = cv2.GaussianBlur(m, (k, k), 0)
        out += (rng.uniform(60, 180) * m)[..., None]
    out = np.clip(out, 0, 255).astype(np.uint8)
    # blur (defocus or motion)
    r = rng.random()
    if r < 0.25 * strength:
        s = rng.uniform(0.5, 1.6) * max(1.0, min(h, w) / 200)
        out = cv2.GaussianBlur(out, (0, 0), s)
    elif r < 0.33 * strength:
        k = int(rng.integers(3, 7))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1)
        kern = cv2.warpAffine(kern, rot, (k, k))
        out = cv2.filter2D(out, -1, kern / max(kern.sum(), 1e-6))
    # sensor noise
    if rng.random() < 0.5 * strength:
        noise = rng.normal(0, rng.uniform(2, 9) * strength, out.shape).astype(np.float32)
        out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    # JPEG
    if rng.random() < 0.5 * strength:
        q = int(rng.integers(30, 90))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


# ---------------------------------------------------------------- compositing
def face_corners(face: Face) -> np.ndarray:
    h, w = face.bgr.shape[:2]
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


def paste(canvas: np.ndarray, face: Face, quad: np.ndarray, shade: float = 1.0) -> np.ndarray:
    """Warp ``face`` onto ``canvas`` (in place) so that its corners land on ``quad``; return the coverage mask."""
    h, w = canvas.shape[:2]
    m = cv2.getPerspectiveTransform(face_corners(face), np.asarray(quad, np.float32))
    x0, y0 = np.floor(quad.min(0)).astype(int)
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((h, w), bool)
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ m
    size = (x1 - x0, y1 - y0)
    src, alpha = face.bgr, face.alpha
    scale = max(np.linalg.norm(quad[1] - quad[0]) / face.bgr.shape[1], 1e-3)
    if scale < 0.5:  # shrink first (area filter) to avoid aliasing
        f = min(1.0, 2 * scale)
        src = cv2.resize(src, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        alpha = cv2.resize(alpha, (src.shape[1], src.shape[0]), interpolation=cv2.INTER_AREA)
        shift = shift @ np.diag([1 / f, 1 / f, 1.0])
    warped = cv2.warpPerspective(src, shift, size, flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, shift, size, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255.0
    roi = canvas[y0:y1, x0:x1].astype(np.float32)
    canvas[y0:y1, x0:x1] = np.clip(roi * (1 - a) + warped.astype(np.float32) * shade * a, 0, 255).astype(np.uint8)
    cover = np.zeros((h, w), bool)
    cover[y0:y1, x0:x1] = a[..., 0] > 0.5
    return cover


def hand_blob(canvas: np.ndarray, rng: np.random.Generator, centre, size: float) -> np.ndarray:
    """Draw a skin-coloured hand-like blob (palm + fingers); return its mask."""
    h, w = canvas.shape[:2]
    skin = np.array([rng.uniform(60, 170), rng.uniform(90, 190), rng.uniform(140, 240)], np.float32)
    mask = np.zeros((h, w), np.uint8)
    cx, cy = centre
    ang = rng.uniform(0, 360)
    cv2.ellipse(mask, (int(cx), int(cy)), (int(size * 0.45), int(size * 0.35)), ang, 0, 360, 255, -1)
    for k in range(int(rng.integers(3, 6))):
        a = np.deg2rad(ang + rng.uniform(-60, 60))
        x2, y2 = cx + np.cos(a) * size * rng.uniform(0.7, 1.1), cy + np.sin(a) * size * rng.uniform(0.7, 1.1)
        cv2.line(mask, (int(cx), int(cy)), (int(x2), int(y2)), 255, max(3, int(size * 0.14)))
    m = cv2.GaussianBlur(mask, (5, 5), 0).astype(np.float32)[..., None] / 255
    shade = 0.8 + 0.4 * rng.random((h, w, 1)).astype(np.float32) * 0  # flat skin, lit below
    canvas[:] = np.clip(canvas * (1 - m) + skin * shade * m, 0, 255).astype(np.uint8)
    return mask > 127


def coin(canvas: np.ndarray, rng: np.random.Generator, centre, radius: float) -> np.ndarray:
    h, w = canvas.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    cv2.circle(mask, (int(centre[0]), int(centre[1])), int(radius), 255, -1, cv2.LINE_AA)
    metal = rng.choice([[60, 160, 200], [170, 170, 170], [40, 110, 170]]).astype(np.float32)
    col = np.zeros_like(canvas, dtype=np.float32)
    col[:] = metal
    cv2.circle(col, (int(centre[0]), int(centre[1])), int(radius * 0.75), (metal * 0.8).tolist(), 2)
    m = mask.astype(np.float32)[..., None] / 255
    canvas[:] = np.clip(canvas * (1 - m) + col * m, 0, 255).astype(np.uint8)
    return mask > 127


# ---------------------------------------------------------------- scenes
@dataclass
class PlacedCard:
    """A card in a synthetic scene: its code and the true corners of its face (TL, TR, BR, BL)."""

    code: str
    corners: np.ndarray
    visible: float = 1.0  # fraction of its area not covered by what lies above it
    in_trick: bool = False
    labels: frozenset = frozenset()  # real-table condition labels (vision.table_conditions.LABELS); empty elsewhere
    inside: float = 1.0  # fraction of the card inside the frame


@dataclass
class Scene:
    image: np.ndarray
    cards: list[PlacedCard] = field(default_factory=list)
    distractors: list[str] = field(default_factory=list)
    conditions: dict | None = None  # the real-table conditions drawn (TableConditions.to_dict()), when any
    backs: list = field(default_factory=list)  # corners of the face-down cards (real-table scenes)


def make_scene(
    rng: np.random.Generator,
    faces,
    size: tuple[int, int] = (1280, 720),
    n_cards: int | None = None,
    trick: int = 0,
    distractors: int = 0,
    backgrounds_dir: str | Path | None = None,
    card_length: tuple[float, float] = (0.28, 0.4),
    tilt: float = 0.04,
    effects: float = 1.0,
    back: Face | None = None,
) -> Scene:
    """A table frame with ``n_cards`` scattered faces (not touching) and a ``trick`` of
    overlapping faces, plus ``distractors`` (backs, hands, coins) in free space.

    ``faces`` is a sequence of Face (a deck); cards are drawn without replacement.
    ``card_length`` is the card's long side as a fraction of the frame height.
    """
    w, h = size
    canvas = table_surface(rng, w, h, backgrounds_dir)
    if n_cards is None:
        n_cards = int(rng.integers(1, 5))
    aspect = faces[0].bgr.shape[0] / faces[0].bgr.shape[1]
    length = rng.uniform(*card_length) * h
    order = rng.permutation(len(faces))
    picks = [faces[i] for i in order[: n_cards + trick]]
    occupied = np.zeros((h, w), bool)
    scene = Scene(canvas)
    # the trick first, in the middle: cards fanned around a centre, each overlapping the previous
    if trick:
        centre = np.array([w / 2 + rng.uniform(-0.15, 0.15) * w, h / 2 + rng.uniform(-0.1, 0.1) * h])
        base = rng.uniform(0, 2 * np.pi)
        covers = []
        for k, face in enumerate(picks[:trick]):
            a = base + 2 * np.pi * k / trick + rng.uniform(-0.2, 0.2)
            offset = length * rng.uniform(0.45, 0.6) * np.array([np.cos(a), np.sin(a)])
            quad = card_quad(centre + offset, length, a + np.pi / 2 + rng.uniform(-0.3, 0.3), aspect, tilt, rng)
            cover = paste(canvas, face, quad, shade=rng.uniform(0.9, 1.05))
            for pc, cv in zip(scene.cards, covers):
                cv &= ~cover
            covers.append(cover.copy())
            scene.cards.append(PlacedCard(face.code, quad, 1.0, True))
        for pc, cv in zip(scene.cards, covers):
            pc.visible = float(cv.sum()) / max(1.0, cv2.contourArea(pc.corners))
            occupied |= cv
        occupied = cv2.dilate(occupied.astype(np.uint8), np.ones((15, 15), np.uint8)) > 0
    for face in picks[trick:]:
        for _ in range(40):
            angle = rng.uniform(0, 2 * np.pi) if rng.random() < 0.6 else rng.choice([0, np.pi / 2, np.pi, 1.5 * np.pi]) + rng.uniform(-0.1, 0.1)
            centre = rng.uniform([length * 0.55, length * 0.55], [w - length * 0.55, h - length * 0.55])
            quad = card_quad(centre, length, angle, aspect, tilt, rng)
            m = np.zeros((h, w), np.uint8)
            cv2.fillPoly(m, [np.round(quad).astype(np.int32)], 255)
            m = cv2.dilate(m, np.ones((11, 11), np.uint8)) > 0
            if not (m & occupied).any():
                paste(canvas, face, quad, shade=rng.uniform(0.9, 1.05))
                occupied |= m
                scene.cards.append(PlacedCard(face.code, quad))
                break
    for _ in range(distractors):
        kind = rng.choice(["back", "hand", "coin"])
        for _ in range(30):
            c = rng.uniform([0.1 * w, 0.1 * h], [0.9 * w, 0.9 * h])
            probe = np.zeros((h, w), np.uint8)
            r = length * (0.6 if kind != "coin" else 0.12)
            cv2.circle(probe, (int(c[0]), int(c[1])), int(r), 255, -1)
            if (probe.astype(bool) & occupied).any():
                continue
            if kind == "back":
                bk = back or random_back(rng)
                quad = card_quad(c, length, rng.uniform(0, 2 * np.pi), aspect, tilt, rng)
                occupied |= paste(canvas, bk, quad)
            elif kind == "hand":
                occupied |= hand_blob(canvas, rng, c, length * 0.5)
            else:
                occupied |= coin(canvas, rng, c, r)
            scene.distractors.append(str(kind))
            break
    scene.image = photometric(canvas, rng, strength=effects, colour=0.3 * effects)
    return scene


def held_fan(rng: np.random.Generator, size: tuple[int, int], length: float, aspect: float, n: int,
             occupied: np.ndarray | None = None, tries: int = 20):
    """Where a player holds a hand of ``n`` cards fanned at a frame edge: (the cards' corners in
    the order they lie, the holding hand), or None when no place clear of ``occupied`` (the
    table's cards, dilated) was found. The fan's pivot lies from 0.15 card lengths outside the
    edge to 0.2 inside, the fan opens inwards (within 20° of straight in), 6-11° a card; the
    hand's fingertips pinch the pivot."""
    from vision import table_conditions as tc

    w, h = size
    for _ in range(tries):
        edge = tc.EDGES[int(rng.integers(4))]
        along = float(rng.uniform(0.15, 0.85))
        inside = float(rng.uniform(-0.15, 0.2)) * length
        pivot, inward = tc.edge_frame(edge, along, inside, (w, h))
        direction = float(np.arctan2(inward[1], inward[0]) + rng.uniform(-0.35, 0.35))
        cards = tc.fan_quads(pivot, direction, length, aspect, n, float(rng.uniform(0.10, 0.19)))
        hull = cv2.convexHull(np.concatenate(cards).astype(np.float32)).reshape(-1, 2)
        if occupied is not None and (tc.quad_mask((h, w), hull) & occupied).any():
            continue
        reach = max(0.01, (inside + 0.05 * length) / (h if edge in ("top", "bottom") else w))
        return cards, tc.holding_hand(rng, edge, along, reach)
    return None


def make_table_scene(
    rng: np.random.Generator,
    faces,
    size: tuple[int, int] = (1280, 720),
    layout: str | None = None,
    distractors: int | None = None,
    backgrounds_dir: str | Path | None = None,
    severity: float = 1.0,
    back: Face | None = None,
    card_length: float | None = None,
    adjust=None,
    fan: bool = False,
) -> Scene:
    """A frame as a camera 60-80 cm above a real table sees it (:mod:`vision.table_conditions`):
    ``layout`` ``"pile"`` (one trick pile of 3-5 cards thrown on top of each other) or
    ``"scattered"`` (2-6 cards apart; default: either, half of the time each), card backs and
    coins beside them, then light, glare, hands and their shadows, tilt, blur, noise and JPEG
    at ``severity``. Each card carries its condition labels, visible and inside fractions;
    ``Scene.conditions`` records what was drawn. ``card_length`` (pixels, long side) replaces
    the drawn card size; ``adjust`` (a function of the drawn :class:`TableConditions`
    returning new ones) sets a condition on or off, e.g. for the camera check's tests. ``fan``:
    a player's hand of cards held fanned at a frame edge too (:func:`held_fan`), its cards among
    the scene's (each with what of it shows), the holding hand among the conditions' hands."""
    from vision import table_conditions as tc

    w, h = size
    canvas = table_surface(rng, w, h, backgrounds_dir)
    layout = layout or ("pile" if rng.random() < 0.5 else "scattered")
    aspect = faces[0].bgr.shape[0] / faces[0].bgr.shape[1]
    length = tc.draw_card_length(rng, h)
    length = float(card_length) if card_length is not None else length
    n = int(rng.integers(3, 6)) if layout == "pile" else int(rng.integers(2, 7))
    order = rng.permutation(len(faces))
    picks = [faces[i] for i in order[:n]]
    quads, covers, codes, piles = [], [], [], []
    occupied = np.zeros((h, w), bool)

    def lay(face, quad, shade: float) -> None:
        """Lay a card over those laid before it (their visible parts shrink)."""
        cover = paste(canvas, face, quad, shade=shade)
        for c in covers:
            c &= ~cover
        covers.append(cover.copy())
        quads.append(quad)
        codes.append(face.code)

    if layout == "pile":
        centre = np.array([w / 2, h / 2]) + rng.uniform(-0.22, 0.22, 2) * [w, h]
        for face, quad in zip(picks, tc.pile_quads(rng, centre, length, aspect, n)):
            lay(face, quad, rng.uniform(0.9, 1.05))
        piles = ["under"] * (n - 1) + ["top"]
        for c in covers:
            occupied |= c
        occupied = cv2.dilate(occupied.astype(np.uint8), np.ones((15, 15), np.uint8)) > 0
    else:
        for face in picks:
            for _ in range(40):
                angle = rng.uniform(0, 2 * np.pi)
                centre = rng.uniform([length * 0.6, length * 0.6], [w - length * 0.6, h - length * 0.6])
                quad = card_quad(centre, length, angle, aspect, 0.01, rng)
                m = cv2.dilate(tc.quad_mask((h, w), quad).astype(np.uint8), np.ones((11, 11), np.uint8)) > 0
                if not (m & occupied).any():
                    covers.append(paste(canvas, face, quad, shade=rng.uniform(0.9, 1.05)))
                    occupied |= m
                    quads.append(quad)
                    codes.append(face.code)
                    piles.append(None)
                    break
    kinds, back_quads = [], []
    for _ in range(int(rng.integers(0, 3)) if distractors is None else distractors):
        kind = str(rng.choice(["back", "coin"]))
        for _ in range(30):
            c = rng.uniform([0.1 * w, 0.1 * h], [0.9 * w, 0.9 * h])
            r = length * (0.6 if kind == "back" else 0.12)
            probe = np.zeros((h, w), np.uint8)
            cv2.circle(probe, (int(c[0]), int(c[1])), int(r), 255, -1)
            if (probe.astype(bool) & occupied).any():
                continue
            if kind == "back":
                bq = card_quad(c, length, rng.uniform(0, 2 * np.pi), aspect, 0.01, rng)
                occupied |= paste(canvas, back or random_back(rng), bq)
                back_quads.append(bq)
            else:
                occupied |= coin(canvas, rng, c, r)
            kinds.append(kind)
            break
    holding = None
    if fan:
        held = held_fan(rng, (w, h), length, aspect, int(rng.integers(5, 10)), occupied)
        if held is not None:
            fan_cards, holding = held
            for face, quad in zip((faces[i] for i in order[n:]), fan_cards):
                lay(face, quad, rng.uniform(0.85, 1.0))
                piles.append(None)
    conditions = tc.draw_conditions(rng, len(quads), severity=severity)
    if adjust is not None:
        conditions = adjust(conditions)
    if holding is not None:
        conditions = dataclasses.replace(conditions, hands=conditions.hands + (holding,))
    render = tc.apply_conditions(canvas, quads, covers, conditions, rng, piles)
    cards = [
        PlacedCard(code, q, vis, pile is not None, labels, inside)
        for code, q, vis, pile, labels, inside in zip(codes, render.quads, render.visible, piles, render.labels, render.inside)
    ]
    record = conditions.to_dict()
    record["layout"] = layout
    record["card_length"] = round(float(length), 1)
    if fan:
        record["fan"] = holding is not None
    return Scene(render.image, cards, kinds, record, [tc.warp_points(render.homography, q) for q in back_quads])


# ---------------------------------------------------------------- crops
def make_crop(
    rng: np.random.Generator,
    face: Face,
    size: tuple[int, int],
    backgrounds_dir: str | Path | None = None,
    jitter: float = 0.06,
    occluder: Face | None = None,
    effects: float = 1.0,
    colour: float = 1.0,
) -> np.ndarray:
    """A straightened crop of ``face`` as the localiser would give it (BGR, ``size`` = (w, h)).

    The card's corners land within ``jitter`` (fraction of the crop width) of the
    crop's corners; half of the crops are turned a half turn (the label does not
    change); ``occluder`` (another face) may cover one corner region.
    """
    w, h = size
    pad = int(0.25 * w)
    canvas = table_surface(rng, w + 2 * pad, h + 2 * pad, backgrounds_dir)
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) + pad
    dst += rng.uniform(-jitter, jitter, (4, 2)).astype(np.float32) * w
    if rng.random() < 0.5:
        dst = np.roll(dst, 2, axis=0)  # upside down
    low_res = rng.random() < 0.25 * effects
    src_face = face
    if low_res:  # a low-resolution scan: shrink the face a lot before placing it
        width = int(rng.uniform(45, 100))
        f = width / face.bgr.shape[1]
        small = cv2.resize(face.bgr, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        if rng.random() < 0.6:
            ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 85))])
            small = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        src_face = Face(face.code, small, cv2.resize(face.alpha, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_AREA))
    paste(canvas, src_face, dst)
    if occluder is not None:
        corner = dst[rng.integers(4)]
        ang = rng.uniform(0, 2 * np.pi)
        length = h * rng.uniform(0.9, 1.1)
        centre = corner + rng.uniform(0.35, 0.55) * length * np.array([np.cos(ang), np.sin(ang)])
        paste(canvas, occluder, card_quad(centre, length, rng.uniform(0, 2 * np.pi), h / w))
    crop = canvas[pad : pad + h, pad : pad + w]
    return photometric(crop, rng, strength=effects, colour=colour)


def make_table_crop(
    rng: np.random.Generator,
    face: Face,
    size: tuple[int, int],
    pool=(),
    backgrounds_dir: str | Path | None = None,
    severity: float = 1.0,
    jitter: float = 0.05,
    corner_error=None,
) -> tuple[np.ndarray, frozenset]:
    """A crop of ``face`` as the card finder + warp give it at a real table: the card as big as a
    camera 60-80 cm up sees it (90-210 px long), alone, on top of a pile or under one (cards of
    ``pool`` around it), under the real-table conditions of :mod:`vision.table_conditions`
    (light, glare, hands and shadows, tilt, blur, noise, JPEG), then warped from its corners
    (jittered by up to ``jitter`` of its width, or moved by ``corner_error(role)``: a (4, 2) error
    in the card's frame, as :func:`vision.quad_error.card_frame_error` measures the
    card finder's, for a card ``"alone"``, on ``"top"`` of a pile or ``"under"`` one; either way
    up) to ``size``. Returns the crop and the card's condition labels."""
    from vision import table_conditions as tc
    from vision.warp import warp_card

    length = float(rng.uniform(90, 210))
    side = int(length * rng.uniform(2.0, 2.6))
    canvas = table_surface(rng, side, side, backgrounds_dir)
    aspect = face.bgr.shape[0] / face.bgr.shape[1]
    role = rng.choice(["alone", "top", "under"], p=[0.4, 0.3, 0.3]) if len(pool) else "alone"
    centre = np.array([side / 2, side / 2], np.float32) + rng.uniform(-0.05, 0.05, 2).astype(np.float32) * side
    others = [pool[int(i)] for i in rng.integers(0, len(pool), int(rng.integers(1, 4)))] if role != "alone" else []
    quads, covers, piles = [], [], []
    target = 0
    if role == "alone":
        quads = [card_quad(centre, length, rng.uniform(0, 2 * np.pi), aspect, 0.01, rng)]
        faces_laid = [face]
    else:
        spots = tc.pile_quads(rng, centre, length, aspect, len(others) + 1)
        if role == "top":
            faces_laid = others + [face]
            target = len(others)
            quads = spots
        else:  # under: the target lands first, the others over it (not over its centre)
            faces_laid = [face] + others
            quads = [card_quad(centre, length, rng.uniform(0, 2 * np.pi), aspect, 0.01, rng)]
            for q in spots[1:]:
                shift = q.mean(0) - centre
                d = np.linalg.norm(shift)
                push = (rng.uniform(0.35, 0.65) * length - d) if d < 0.35 * length else 0.0
                ang = rng.uniform(0, 2 * np.pi) if d < 1e-3 else np.arctan2(shift[1], shift[0])
                quads.append(q + push * np.array([np.cos(ang), np.sin(ang)], np.float32))
    for f, q in zip(faces_laid, quads):
        cover = paste(canvas, f, q, shade=rng.uniform(0.9, 1.05))
        for c in covers:
            c &= ~cover
        covers.append(cover.copy())
    piles = [None] if role == "alone" else ["under"] * (len(quads) - 1) + ["top"]
    conditions = tc.draw_conditions(rng, len(quads), severity=severity, targets=[target])
    render = tc.apply_conditions(canvas, quads, covers, conditions, rng, piles)
    from vision.localise import order_quad

    q = order_quad(render.quads[target].copy())
    if corner_error is not None:
        from vision.quad_error import apply_error

        q = apply_error(q, np.asarray(corner_error(str(role)), np.float64))
    else:
        width = float(np.linalg.norm(q[1] - q[0]))
        q = q + rng.uniform(-jitter, jitter, (4, 2)).astype(np.float32) * width
    if rng.random() < 0.5:
        q = np.roll(q, 2, axis=0)  # upside down: the model names both ways up
    return warp_card(render.image, q, size), render.labels[target]


# ---------------------------------------------------------------- things that are not cards
NEGATIVE_KINDS = ("screen", "text", "back", "hand", "coins", "table")
_WORDS = ("PASS", "GARDE", "PRISE", "TRICK", "SCORE", "NORTH", "EAST", "DEAL", "OK", "Petit", "Excuse", "chien",
          "12:04", "+25", "-50", "menu", "BACK", "NEXT", "2/3", "atout", "score 41", "Alice", "Bob", "Tarotmate")


def _random_text(rng: np.random.Generator, k: int) -> str:
    return " ".join(str(rng.choice(_WORDS)) for _ in range(k))


def screen_image(rng: np.random.Generator, size: tuple[int, int] = (128, 64)) -> np.ndarray:
    """A small monochrome OLED-like screen (BGR): lines of text, a frame, bars, as a screenshot."""
    w, h = size
    fg = [(255, 255, 255), (255, 220, 120), (120, 230, 255)][int(rng.integers(3))]
    img = np.zeros((h, w, 3), np.uint8)
    y = int(rng.integers(8, 14))
    while y < h - 2:
        scale = float(rng.uniform(0.25, 0.45))
        cv2.putText(img, _random_text(rng, int(rng.integers(1, 4))), (int(rng.integers(0, 10)), y), cv2.FONT_HERSHEY_SIMPLEX, scale, fg, 1, cv2.LINE_8)
        y += int(rng.integers(10, 18))
    if rng.random() < 0.5:
        cv2.rectangle(img, (0, 0), (w - 1, h - 1), fg, 1)
    if rng.random() < 0.4:
        x0 = int(rng.integers(0, w // 2))
        cv2.rectangle(img, (x0, h - 12), (x0 + int(rng.integers(10, w // 2)), h - 4), fg, -1)
    if rng.random() < 0.3:
        img = 255 - img  # an inverted (highlighted) screen
    return img


def text_page(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A printed page (rules, a score sheet): dark text lines on paper."""
    paper = rng.uniform(200, 250, 3)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = paper.astype(np.uint8)
    ink = tuple(int(v) for v in rng.uniform(0, 80, 3))
    scale = float(rng.uniform(0.4, 1.2)) * max(1.0, h / 400)
    step = int(30 * scale) + 4
    for y in range(step, h, step):
        cv2.putText(img, _random_text(rng, int(rng.integers(2, 7))), (int(rng.integers(0, 20)), y), cv2.FONT_HERSHEY_SIMPLEX, scale, ink, max(1, int(scale * 1.5)), cv2.LINE_AA)
    if rng.random() < 0.4:  # a grid (a score sheet)
        for x in range(0, w, int(rng.integers(40, 120))):
            cv2.line(img, (x, 0), (x, h), ink, 1)
    return img


def negative_frame(rng: np.random.Generator, kind: str, size: tuple[int, int] = (1280, 720), backgrounds_dir=None) -> np.ndarray:
    """A whole frame with no card face in it, of ``kind`` (:data:`NEGATIVE_KINDS`): an OLED
    screenshot enlarged, a printed page, card backs, hands, coins or an empty table, under
    real-table conditions (except the screenshot, which is a file: enlarged and JPEG'd)."""
    from vision import table_conditions as tc

    w, h = size
    if kind == "screen":
        img = cv2.resize(screen_image(rng), (w, h), interpolation=cv2.INTER_NEAREST if rng.random() < 0.6 else cv2.INTER_LINEAR)
        return tc.jpeg(img, int(rng.integers(60, 95)))
    if kind == "text":
        canvas = table_surface(rng, w, h, backgrounds_dir)
        pw, ph = int(w * rng.uniform(0.4, 0.9)), int(h * rng.uniform(0.5, 1.0))
        x0, y0 = int(rng.integers(0, w - pw + 1)), int(rng.integers(0, h - ph + 1))
        canvas[y0 : y0 + ph, x0 : x0 + pw] = text_page(rng, pw, ph)
    else:
        canvas = table_surface(rng, w, h, backgrounds_dir)
    length = tc.draw_card_length(rng, h)
    if kind == "back":
        aspect = 1.8
        for q in tc.pile_quads(rng, (w * rng.uniform(0.3, 0.7), h * rng.uniform(0.3, 0.7)), length, aspect, int(rng.integers(1, 5))):
            paste(canvas, random_back(rng) if rng.random() < 0.6 else builtin_back(), q)
    elif kind == "coins":
        for _ in range(int(rng.integers(1, 6))):
            coin(canvas, rng, rng.uniform([0.1 * w, 0.1 * h], [0.9 * w, 0.9 * h]), length * rng.uniform(0.08, 0.15))
    cond = tc.draw_conditions(rng, 0, severity=1.0)
    if kind == "hand" and not cond.hands:
        cond = tc.draw_conditions(np.random.default_rng(int(rng.integers(1 << 31))), 0, severity=1.5)
        while not cond.hands:
            cond = tc.draw_conditions(np.random.default_rng(int(rng.integers(1 << 31))), 0, severity=1.5)
    return tc.apply_conditions(canvas, [], [], cond, rng).image


def make_negative_crop(rng: np.random.Generator, size: tuple[int, int], kind: str | None = None, backgrounds_dir=None) -> tuple[np.ndarray, str]:
    """What the card finder may hand the namer from a frame with no card there: a card-shaped
    region of a :func:`negative_frame` (a screenshot, a page of text, a back, a hand, coins, the
    table), warped to ``size`` as a card crop. Returns (crop, kind)."""
    from vision.warp import warp_card

    kind = kind or str(rng.choice(NEGATIVE_KINDS))
    w, h = 480, 320
    frame = negative_frame(rng, kind, (w, h), backgrounds_dir)
    length = rng.uniform(0.35, 0.95) * h
    c = rng.uniform([length * 0.3, length * 0.3], [w - length * 0.3, h - length * 0.3])
    from vision.localise import order_quad

    q = order_quad(card_quad(c, length, rng.uniform(0, 2 * np.pi), rng.uniform(1.5, 1.9)))
    return warp_card(frame, q, size), kind


def make_unknown_crop(
    rng: np.random.Generator,
    size: tuple[int, int],
    faces_pool=(),
    backgrounds_dir: str | Path | None = None,
    effects: float = 1.0,
) -> tuple[np.ndarray, str]:
    """A crop that is not a card face; returns (crop, kind)."""
    w, h = size
    kinds = ["back", "builtin_back", "hand", "coin", "table"] + (["partial"] if faces_pool else [])
    kind = kinds[rng.integers(len(kinds))]
    if kind in ("back", "builtin_back"):
        bk = builtin_back() if kind == "builtin_back" else random_back(rng)
        return make_crop(rng, bk, size, backgrounds_dir, effects=effects), kind
    canvas = table_surface(rng, w, h, backgrounds_dir)
    if kind == "hand":
        hand_blob(canvas, rng, rng.uniform([0.2 * w, 0.2 * h], [0.8 * w, 0.8 * h]), rng.uniform(0.5, 1.2) * w)
    elif kind == "coin":
        for _ in range(int(rng.integers(1, 4))):
            coin(canvas, rng, rng.uniform([0, 0], [w, h]), rng.uniform(0.15, 0.4) * w)
    elif kind == "partial":  # a card mostly outside the crop
        face = faces_pool[rng.integers(len(faces_pool))]
        shift = rng.choice([-1, 1]) * np.array([w, h], np.float32) * rng.uniform(0.6, 0.85) * (np.array([1, 0]) if rng.random() < 0.5 else np.array([0, 1]))
        quad = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) + shift.astype(np.float32)
        paste(canvas, face, np.roll(quad, 2 * int(rng.integers(2)), axis=0))
    return photometric(canvas, rng, strength=effects, colour=0.5), kind

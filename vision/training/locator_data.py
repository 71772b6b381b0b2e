"""Training scenes for the card locator: whole table frames with every card's true outline.

A scene is drawn at ``RENDER`` size (half of a 1280x720 frame) with the
helpers of :mod:`vision.synth` and reduced to the locator's input width, the
way :class:`vision.locator.CardLocator` reduces a camera frame. Every
card-shaped object is a target, face up (any deck) or face down (a back): the
locator finds cards, the classifier names them or rejects them as unknown.
Hands and coins are drawn as things that are not cards.

Layouts: cards scattered apart, a trick (3 to 5 cards fanned around a point,
each over the previous), a row of overlapping cards (a tercia laid in front of
a player), cards touching side by side, and mixtures; any table surface,
lighting, shadow, glare, blur, noise and JPEG of :func:`vision.synth.photometric`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision import synth
from vision.locator import reduce_frame
from vision.card_geometry import card_quad

RENDER = (640, 360)
CAMERA_FRAME = (1280, 720)  # a camera's whole frame, as the real-table benchmark and the device draw it
CAMERA_FRAME_RATE = 0.5  # of the real-table scenes, drawn at CAMERA_FRAME rather than RENDER
FOREARM_RATE = 0.5  # of the real-table scenes, with a bare forearm over the table (a card's width or narrower)
FAN_RATE = 0.25  # of the real-table scenes, with a player's hand of cards held fanned at a frame edge


@dataclass
class LocatorScene:
    image: np.ndarray  # the reduced frame (input width), BGR uint8
    quads: np.ndarray  # (n, 4, 2) float32 true corners of the target cards, reduced-frame pixels
    visible: np.ndarray  # (n,) fraction of each card left uncovered


def _fits(mask: np.ndarray, occupied: np.ndarray) -> bool:
    return not (mask & occupied).any()


def _quad_mask(shape, quad, grow: int = 0) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.round(quad).astype(np.int32)], 255)
    if grow:
        m = cv2.dilate(m, np.ones((grow, grow), np.uint8))
    return m > 0


def with_forearm(rng: np.random.Generator):
    """A :func:`vision.synth.make_table_scene` ``adjust`` that adds one hand on a bare forearm
    0.3-0.5 card lengths wide (about a card's width or narrower; a sleeve rolled up to the elbow
    or none) reaching over the table, often to a card: a lingering forearm is a long band of
    skin as wide as a card, which the locator must not take for one."""
    from vision.table_conditions import EDGES, HandConditions

    def adjust(c):
        n = len(c.cards)
        ang, dist = rng.uniform(0, 2 * np.pi), rng.uniform(0.05, 0.25)
        arm = HandConditions(edge=EDGES[int(rng.integers(4))], along=float(rng.uniform(0.15, 0.85)),
                             reach=float(rng.uniform(0.25, 0.6)),
                             target=int(rng.integers(n)) if n and rng.random() < 0.7 else -1,
                             shadow_dx=float(dist * np.cos(ang)), shadow_dy=float(dist * np.sin(ang)),
                             shadow_strength=float(rng.uniform(0.3, 0.6)), sleeve=bool(rng.random() < 0.6),
                             forearm=float(rng.uniform(0.3, 0.5)))
        return replace(c, hands=c.hands + (arm,))

    return adjust


def make_table_locator_scene(rng: np.random.Generator, decks: list, backgrounds_dir=None, size=RENDER,
                             forearm_rate: float = FOREARM_RATE, fan_rate: float = FAN_RATE) -> LocatorScene:
    """A real-table training scene (:func:`vision.synth.make_table_scene`: a trick pile or scattered
    cards, light, glare, hands and shadows, tilt, blur), reduced like a camera frame; face-down
    cards are targets too; ``forearm_rate`` of them with a bare forearm (:func:`with_forearm`),
    ``fan_rate`` with a player's hand of cards held fanned at a frame edge (its top card a target,
    the strips of the others neither targets nor misses, or background)."""
    faces = decks[int(rng.integers(len(decks)))]
    back = synth.builtin_back() if rng.random() < 0.3 else None
    adjust = with_forearm(rng) if forearm_rate and rng.random() < forearm_rate else None
    fan = bool(fan_rate) and rng.random() < fan_rate
    scene = synth.make_table_scene(rng, faces, size=size, backgrounds_dir=backgrounds_dir, back=back, adjust=adjust, fan=fan)
    small, f = reduce_frame(scene.image)
    quads = [c.corners for c in scene.cards] + list(scene.backs)
    visible = [c.visible * min(1.0, c.inside) for c in scene.cards] + [1.0] * len(scene.backs)
    quads = np.array(quads, np.float32).reshape(-1, 4, 2) * f
    return LocatorScene(small, quads, np.clip(np.array(visible, np.float32), 0, 1))


def make_phone_locator_scene(rng: np.random.Generator, decks: list, backgrounds_dir=None) -> LocatorScene:
    """A phone photo of one card (:func:`vision.phone_photos.make_phone_photo`: lying or standing
    among clutter, warm light), cut to the camera's proportions and reduced like a camera frame."""
    from vision import phone_photos, printings

    faces = decks[int(rng.integers(len(decks)))]
    face = faces[int(rng.integers(len(faces)))]
    if rng.random() < 0.3:  # home-printed cards: another printing of the art
        face = synth.Face(face.code, printings.reprint(rng, face.bgr)[0], face.alpha)
    w = phone_photos.PHOTO[0]
    photo = phone_photos.make_phone_photo(rng, face, (w, round(w * CAMERA_FRAME[1] / CAMERA_FRAME[0])), backgrounds_dir)
    small, f = reduce_frame(photo.image)
    return LocatorScene(small, photo.quad[None].astype(np.float32) * f, np.ones(1, np.float32))


def make_locator_scene(rng: np.random.Generator, decks: list, backgrounds_dir=None, size=RENDER, table_rate: float = 0.0,
                       camera_frame_rate: float = CAMERA_FRAME_RATE, phone_rate: float = 0.0,
                       fan_rate: float = FAN_RATE) -> LocatorScene:
    """One training scene (see module doc); ``decks`` is a list of face tuples; ``phone_rate`` of
    them are phone photos of one card (:func:`make_phone_locator_scene`), ``table_rate`` of the
    others real-table scenes (:func:`make_table_locator_scene`), ``camera_frame_rate`` of
    those drawn at ``CAMERA_FRAME``: a table's blur, noise and JPEG are drawn in the frame's own
    pixels, so a whole camera frame reduced to the locator's width looks sharper and cleaner than
    a half-size one, and the locator must know both; ``fan_rate`` of the real-table scenes hold
    a player's fanned hand."""
    if phone_rate and rng.random() < phone_rate:
        return make_phone_locator_scene(rng, decks, backgrounds_dir)
    if table_rate and rng.random() < table_rate:
        full = camera_frame_rate and rng.random() < camera_frame_rate
        return make_table_locator_scene(rng, decks, backgrounds_dir, CAMERA_FRAME if full else size, fan_rate=fan_rate)
    w, h = size
    canvas = synth.table_surface(rng, w, h, backgrounds_dir)
    faces = decks[int(rng.integers(len(decks)))]
    aspect = faces[0].bgr.shape[0] / faces[0].bgr.shape[1]
    length = rng.uniform(0.16, 0.52) * h
    occupied = np.zeros((h, w), bool)
    placed: list[np.ndarray] = []
    covers: list[np.ndarray] = []

    def face_or_back():
        if rng.random() < 0.12:
            return synth.random_back(rng) if rng.random() < 0.7 else synth.builtin_back()
        return faces[int(rng.integers(len(faces)))]

    def lay(quad):
        cover = synth.paste(canvas, face_or_back(), quad, shade=rng.uniform(0.85, 1.05))
        for c in covers:
            c &= ~cover
        covers.append(cover.copy())
        placed.append(quad)

    group = rng.choice(["none", "trick", "row", "touch"], p=[0.3, 0.4, 0.18, 0.12])
    if group == "trick":
        n = int(rng.integers(2, 6))
        centre = np.array([w / 2, h / 2]) + rng.uniform(-0.25, 0.25, 2) * [w, h]
        base = rng.uniform(0, 2 * np.pi)
        spread = rng.uniform(0.3, 0.65)
        for k in range(n):
            a = base + 2 * np.pi * k / n + rng.uniform(-0.25, 0.25)
            q = card_quad(centre + length * spread * np.array([np.cos(a), np.sin(a)]), length,
                                a + np.pi / 2 + rng.uniform(-0.4, 0.4), aspect, 0.04, rng)
            lay(q)
    elif group in ("row", "touch"):
        n = int(rng.integers(2, 5))
        ang = rng.uniform(0, 2 * np.pi)
        d = np.array([np.cos(ang), np.sin(ang)])
        short = length / aspect
        step = short * (rng.uniform(0.35, 0.8) if group == "row" else rng.uniform(1.0, 1.06))
        start = np.array([w / 2, h / 2]) + rng.uniform(-0.2, 0.2, 2) * [w, h] - d * step * (n - 1) / 2
        for k in range(n):
            lay(card_quad(start + d * step * k, length, ang + np.pi / 2 + rng.uniform(-0.06, 0.06), aspect, 0.03, rng))
    for c in covers:
        occupied |= c
    if placed:
        occupied = cv2.dilate(occupied.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
    for _ in range(int(rng.integers(0, 6 if group == "none" else 3) + (group == "none"))):
        for _ in range(25):
            angle = rng.uniform(0, 2 * np.pi)
            centre = rng.uniform([length * 0.55, length * 0.55], [w - length * 0.55, h - length * 0.55])
            q = card_quad(centre, length, angle, aspect, 0.04, rng)
            m = _quad_mask((h, w), q, 7)
            if _fits(m, occupied):
                lay(q)
                occupied |= m
                break
    for _ in range(int(rng.integers(0, 3))):
        kind = rng.choice(["hand", "coin"])
        for _ in range(20):
            c = rng.uniform([0.05 * w, 0.05 * h], [0.95 * w, 0.95 * h])
            r = length * (0.5 if kind == "hand" else rng.uniform(0.06, 0.14))
            probe = np.zeros((h, w), np.uint8)
            cv2.circle(probe, (int(c[0]), int(c[1])), int(r), 255, -1)
            # a hand may lie over the cards (bringing one in), a coin stays apart
            if kind == "coin" and (probe.astype(bool) & occupied).any():
                continue
            m = synth.hand_blob(canvas, rng, c, r) if kind == "hand" else synth.coin(canvas, rng, c, r)
            for cv in covers:
                cv &= ~m
            occupied |= m
            break
    image = synth.photometric(canvas, rng, strength=rng.uniform(0.5, 1.3), colour=rng.uniform(0.2, 1.0))
    small, f = reduce_frame(image)  # as the locator reduces a camera frame
    quads = np.array(placed, np.float32).reshape(-1, 4, 2) * f
    visible = np.array([c.sum() / max(1.0, cv2.contourArea(q)) for c, q in zip(covers, placed)], np.float32)
    return LocatorScene(small, quads, np.clip(visible, 0, 1))

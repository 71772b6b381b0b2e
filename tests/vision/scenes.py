"""Small deterministic table scenes built from the built-in deck, for the vision tests."""

from __future__ import annotations

import numpy as np

from vision import synth
from vision.builtin_deck import render_card
from vision.localise import order_quad

FRAME = (1280, 720)
CARD_LENGTH = 250  # pixels, long side


def table(colour, size=FRAME, noise: float = 4.0, seed: int = 0) -> np.ndarray:
    w, h = size
    rng = np.random.default_rng(seed)
    img = np.empty((h, w, 3), np.float32)
    img[:] = colour
    img += rng.normal(0, noise, (h, w, 1))
    return np.clip(img, 0, 255).astype(np.uint8)


def place(canvas: np.ndarray, code: str, centre, angle_deg: float, length: float = CARD_LENGTH) -> np.ndarray:
    """Draw built-in card ``code`` on ``canvas``; return its true corners (ordered like the localiser's)."""
    face = synth.face_from_image(code, np.array(render_card(code)))
    aspect = face.bgr.shape[0] / face.bgr.shape[1]
    quad = synth.card_quad(np.asarray(centre, np.float32), length, np.deg2rad(angle_deg), aspect)
    synth.paste(canvas, face, quad)
    return order_quad(quad)


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance / card long side, allowing the half-turn ambiguity."""
    long_side = float(np.linalg.norm(truth[1] - truth[2]))
    return min(float(np.abs(np.roll(found, -k, axis=0) - truth).max()) for k in (0, 2)) / long_side


def match(found: list[np.ndarray], truth: np.ndarray) -> float:
    """The smallest corner error of any found quad against ``truth`` (inf if none)."""
    return min((corner_error(q, truth) for q in found), default=float("inf"))

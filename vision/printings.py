"""Other printings of the same art: a deck's face as a faded, greyscale, off-register or cheap print.

Clubs play with decks the models never saw, and many are the same art
printed differently: an old deck faded and yellowed, a black-and-white print
or a photocopy, colour plates out of register, thin paper that shows its
fibres and soaks the ink. :func:`reprint` turns one face into such a
printing, for training (the art stays, the ink and paper change). Pure
functions of an image and a random generator; about a millisecond for a face
384 pixels tall.
"""

from __future__ import annotations

import cv2
import numpy as np

KINDS = ("faded", "greyscale", "photocopy", "off_register", "cheap_paper")


def faded(rng: np.random.Generator, bgr: np.ndarray) -> np.ndarray:
    """Inks worn toward the paper's colour, the paper yellowed."""
    paper = np.array([rng.uniform(170, 225), rng.uniform(205, 240), rng.uniform(225, 250)], np.float32)  # BGR: yellowish
    k = rng.uniform(0.25, 0.6)
    out = bgr.astype(np.float32) * (1 - k) + paper * k
    grey = out.mean(2, keepdims=True)
    out = grey + (out - grey) * rng.uniform(0.5, 0.9)  # the colours washed out
    return np.clip(out, 0, 255).astype(np.uint8)


def greyscale(rng: np.random.Generator, bgr: np.ndarray) -> np.ndarray:
    """Printed in black ink only: grey levels, often more contrast, on white or cream paper."""
    g = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gamma = rng.uniform(0.7, 1.6)
    g = 255 * (g / 255) ** gamma
    tint = np.array([rng.uniform(0.85, 1.0), rng.uniform(0.92, 1.0), 1.0], np.float32)
    return np.clip(g[..., None] * tint, 0, 255).astype(np.uint8)


def photocopy(rng: np.random.Generator, bgr: np.ndarray) -> np.ndarray:
    """A black-and-white copy: hard contrast, the light greys gone to white, toner speckle."""
    g = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    lo, hi = rng.uniform(40, 90), rng.uniform(150, 210)
    g = np.clip((g - lo) / (hi - lo), 0, 1) * 255
    speck = rng.random(g.shape) < rng.uniform(0.0, 0.01)
    g[speck] = rng.uniform(0, 80)
    if rng.random() < 0.5:
        g = cv2.GaussianBlur(g, (0, 0), rng.uniform(0.4, 0.9))
    return np.repeat(np.clip(g, 0, 255).astype(np.uint8)[..., None], 3, axis=2)


def off_register(rng: np.random.Generator, bgr: np.ndarray) -> np.ndarray:
    """The colour plates printed a little apart: each channel shifted by up to about 1 % of the face."""
    h, w = bgr.shape[:2]
    reach = max(1.0, 0.012 * max(h, w))
    out = np.empty_like(bgr)
    for c in range(3):
        dx, dy = rng.uniform(-reach, reach, 2)
        m = np.float32([[1, 0, dx], [0, 1, dy]])
        out[..., c] = cv2.warpAffine(bgr[..., c], m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    return out


def cheap_paper(rng: np.random.Generator, bgr: np.ndarray) -> np.ndarray:
    """Thin paper: ink soaked in (soft edges, duller colours), fibres and a mottled tone."""
    h, w = bgr.shape[:2]
    out = cv2.GaussianBlur(bgr, (0, 0), rng.uniform(0.6, 1.4)).astype(np.float32)
    grey = out.mean(2, keepdims=True)
    out = grey + (out - grey) * rng.uniform(0.6, 0.95)
    mottle = cv2.resize(rng.normal(0, 1, (max(2, h // 24), max(2, w // 24))).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    fibres = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.7)
    out += (mottle * rng.uniform(4, 12) + fibres * rng.uniform(2, 6))[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


PRINTINGS = {"faded": faded, "greyscale": greyscale, "photocopy": photocopy, "off_register": off_register,
             "cheap_paper": cheap_paper}


def reprint(rng: np.random.Generator, bgr: np.ndarray, kind: str | None = None) -> tuple[np.ndarray, str]:
    """(the face as another printing, which one): ``kind`` one of :data:`KINDS`, or drawn at random."""
    kind = kind or KINDS[int(rng.integers(len(KINDS)))]
    if kind not in PRINTINGS:
        raise ValueError(f"unknown printing {kind!r} (one of {', '.join(KINDS)})")
    out = PRINTINGS[kind](rng, np.ascontiguousarray(bgr))
    if kind in ("faded", "cheap_paper") and rng.random() < 0.3:  # colour plates of an old or cheap print are often apart too
        out = off_register(rng, out)
    return out, kind

"""A card's picture: a crop shrunk to a few colour cells, for telling one deck's own cards apart.

The card model's embedding describes a crop in the terms it learned on the
decks it was trained on; on a deck whose art it never saw (the fine-art
tarot: classical paintings) its embeddings of two different cards lie
almost as close as two views of one card. The table's deck memory compares
a crop with views of the *same printed card* under the same camera, and for
that the picture itself says a great deal: the same painting, framed the
same way, is the same arrangement of colours.

:func:`card_pictures` shrinks each crop (its border trimmed) to
:data:`PICTURE_SIZE` cells in CIE Lab, takes away each channel's mean (the
room's light and the camera's white balance) and scales the whole to unit
length: the cosine of two pictures is then the correlation of their colours.
:func:`picture_similarity` compares crops with kept pictures either way up (a card
lies turned half a turn for half the table). The deck memory mixes it with
the embedding's cosine (:func:`vision.deck_memory.DeckMemory.recall_similarity`).

Measured in docs/tracking.md ("A card's picture"): on the fine-art tarot's
evening at the hard simulated table the memory alone, with the pictures,
names cards surely enough to commit them without a question from the third
deal on, none wrong (``benchmarks/bench_table.py --sequence 10 --table hard
--deck …``); crop by crop, ``benchmarks/bench_deck_memory.py``. A few
microseconds a crop.
"""

from __future__ import annotations

import functools
from typing import Callable, Sequence

import cv2
import numpy as np

PICTURE_SIZE = (12, 20)  # (w, h) cells of a portrait crop
PICTURE_DIM = PICTURE_SIZE[0] * PICTURE_SIZE[1] * 3
BORDER = 0.06  # the share of each side trimmed first (a quad a little off takes in the table there)
# under this spread (the root mean square of the cells' Lab, the mean taken away) a crop is all of one colour, a
# quad found on the bare table: no picture (a card's crop spreads 4-10 at the hard simulated table, 3 under a dim lamp)
FLAT = 3.0


def card_picture(crop: np.ndarray) -> np.ndarray:
    """One BGR (or grey) crop's picture: :data:`PICTURE_DIM` numbers of unit length (zeros, no picture, for a
    crop all of one colour, :data:`FLAT`, or one that is no image)."""
    img = np.asarray(crop) if crop is not None else None
    if img is None or img.ndim not in (2, 3) or min(img.shape[:2]) < 2 or (img.ndim == 3 and img.shape[2] != 3):
        return np.zeros(PICTURE_DIM, np.float32)
    if img.dtype != np.uint8:
        img = np.clip(np.nan_to_num(img.astype(np.float32)), 0, 255).astype(np.uint8)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    h, w = img.shape[:2]
    if w > h:  # a landscape crop: read as the namer does, portrait
        img = np.ascontiguousarray(np.rot90(img))
        h, w = w, h
    bx, by = int(w * BORDER), int(h * BORDER)
    if w - 2 * bx >= PICTURE_SIZE[0] and h - 2 * by >= PICTURE_SIZE[1]:
        img = img[by: h - by, bx: w - bx]
    small = cv2.resize(np.ascontiguousarray(img), PICTURE_SIZE, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)
    lab -= lab.mean(axis=(0, 1), keepdims=True)
    v = lab.reshape(-1).astype(np.float32)
    n = float(np.linalg.norm(v))
    return v / n if n > FLAT * np.sqrt(PICTURE_DIM) else np.zeros(PICTURE_DIM, np.float32)


def card_pictures(crops: Sequence[np.ndarray]) -> np.ndarray:
    """(N, :data:`PICTURE_DIM`): each crop's :func:`card_picture`."""
    if len(crops) == 0:
        return np.zeros((0, PICTURE_DIM), np.float32)
    return np.stack([card_picture(c) for c in crops])


def turned(pictures: np.ndarray) -> np.ndarray:
    """The same pictures turned half a turn."""
    cells = np.asarray(pictures, np.float32).reshape(-1, PICTURE_SIZE[1], PICTURE_SIZE[0], 3)
    return cells[:, ::-1, ::-1, :].reshape(len(cells), PICTURE_DIM)


def picture_similarity(pictures: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """(N, M): the cosine of each picture with each kept picture, the better of the crop as it is and
    turned half a turn."""
    q = np.asarray(pictures, np.float32).reshape(-1, PICTURE_DIM)
    k = as_float32(np.asarray(kept).reshape(-1, PICTURE_DIM))
    return np.maximum(q @ k.T, turned(q) @ k.T)


def as_float32(values: np.ndarray) -> np.ndarray:
    """``values`` as float32: half-precision ones (the pictures a deck memory keeps) converted by
    OpenCV where it reads them as NumPy does (:func:`half_reader`), the same values in a ninth of
    NumPy's time here (a memory's 620 pictures: 45 µs instead of 390, what each naming of a crop
    would pay); by NumPy otherwise."""
    values = np.asarray(values)
    if values.dtype == np.float16 and values.ndim == 2 and values.size:
        read = half_reader()
        if read is not None:
            return read(values)
    return values.astype(np.float32, copy=False)


@functools.lru_cache(maxsize=1)
def half_reader() -> Callable[[np.ndarray], np.ndarray] | None:
    """OpenCV's conversion of a 2-D half-precision array to float32, where this OpenCV has one that
    reads a probe of values (zeros of either sign, the largest and smallest, infinities) exactly as
    NumPy does: ``convertFp16`` up to OpenCV 4 (the Pi's), its arithmetic from OpenCV 5, which reads
    half precision and has no ``convertFp16``. None where neither does."""
    probe = np.array([[0.0, -0.0, 1.0, -2.5, 0.1, 65504.0, -65504.0, 6e-8, -6e-8, np.inf, -np.inf]], np.float16)
    expected = probe.astype(np.float32)
    candidates = []
    if hasattr(cv2, "convertFp16"):
        candidates.append(lambda v: cv2.convertFp16(np.ascontiguousarray(v).view(np.int16)))
    candidates.append(lambda v: cv2.multiply(v, 1.0, dtype=cv2.CV_32F))
    for read in candidates:
        try:
            got = np.asarray(read(probe))
        except cv2.error:
            continue
        if got.dtype == np.float32 and got.shape == probe.shape and np.array_equal(got, expected) \
                and np.array_equal(np.signbit(got), np.signbit(expected)):
            return read
    return None

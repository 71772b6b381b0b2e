"""A card's keypoints: the small corners and strokes of its print, matched in place with a kept view's.

Two views of the same printed card, each cut to the card's outline and
shrunk to the namer's crop, show the same strokes at the same places (or
half a turn round); two different cards of a deck seldom share more than a
few, however alike their colours. :func:`card_keypoints` finds up to
:data:`KEYPOINTS` ORB keypoints (OpenCV's FAST corners with a 256-bit
binary descriptor, read on a :data:`PATCH`-pixel patch at :data:`LEVELS`
scales: the crop is already cut to the card's outline) on a crop's grey,
its contrast evened first (a dim lamp, a glare); :func:`matches_in_place`
counts the keypoints of a crop and of a kept view that are each other's
nearest in descriptor and lie where the other's lies, up to :data:`RADIUS` pixels, the whole set shifted by at most
:data:`SHIFT` (the two outlines were found a little apart), either way up.
A crop of another card, or a quad found off the card (its keypoints shifted
by the quad's error), matches a few at most.

The table's deck memory keeps each view's keypoints and checks what it
names alone with them (:meth:`vision.deck_memory.DeckMemory.matched`,
:func:`vision.deck_memory.verified`): on a deck the card model cannot read,
a crop that matches one card's kept views in
:data:`vision.deck_memory.VERIFIED` places or more, no other card's in
nearly as many, is that card, once two views of it match each other in
place (a view kept under a card's name from a quad that lay off it matches
no other view of it). Only the crop's inside is looked at
(:data:`MARGIN`). Measured in docs/tracking.md ("A card's keypoints").

Keypoints travel in a view as a block of :data:`KEYPOINTS_DIM` numbers
(:func:`card_keypoints`: each keypoint's x and y in the crop, then its
descriptor's 32 bytes, one number each; -1 rows for none), and are kept on
disk as bytes (:func:`packed`; read back with :func:`kept_keypoints`).
About 0.7 ms a crop to find, 0.2-0.3 ms a match here. Keypoints found by
another :data:`FINDER` are set aside by what keeps them.
"""

from __future__ import annotations

import threading
from typing import Sequence

import cv2
import numpy as np

from vision.quad_fit import masked_median

KEY_SIZE = (112, 192)  # (w, h): a portrait crop is read at this size (the card namer's crop)
KEYPOINTS = 160  # at most this many keypoints a view
ROW = 2 + 32  # a keypoint: x, y, then its descriptor's 32 bytes
KEYPOINTS_DIM = KEYPOINTS * ROW
RADIUS = 8.0  # pixels (at KEY_SIZE): a keypoint matches in place within this of its match
SHIFT = 20.0  # pixels (at KEY_SIZE): two views' outlines may lie this far apart, in x and in y
MIN_MATCHES = 6  # fewer mutual matches than this: none counted
PATCH = 19  # pixels (at KEY_SIZE): the patch each keypoint's descriptor reads
LEVELS = 2  # the crop and a copy 1.2 times smaller: a blurred view's strokes still show (the crops are cut to the card)
# what the finding is: keypoints found otherwise (a memory's views, a profile's faces, an enrollment's progress) match
# nothing found now, and are set aside (bump it whenever a change to the finding changes a descriptor)
FINDER = 2
MATCHING = 2  # what the finding and matching above are: a memory keeps the places pairs of views match in under it
# (bump it whenever a change to them changes a count)
# the share of the crop's width and height left out on each side: a deck prints its frame, its indices, its suit's
# pips and its titles there alike on many cards (the fine-art tarot's suit cards match each other in 40-60 places
# there, scan against scan; in a few inside)
MARGIN = (0.12, 0.10)

_TOOLS = None


def _tools():
    """The keypoint finder, the contrast evener and :func:`_inside`'s mask, made once."""
    global _TOOLS
    if _TOOLS is None:
        _TOOLS = (cv2.ORB_create(nfeatures=KEYPOINTS, scaleFactor=1.2, nlevels=LEVELS, edgeThreshold=10, patchSize=PATCH,
                                 fastThreshold=8),
                  cv2.createCLAHE(clipLimit=2.0, tileGridSize=(4, 4)),
                  _inside())
    return _TOOLS


def _inside() -> np.ndarray:
    """Where keypoints are looked for: the crop but its :data:`MARGIN` (the same either way up)."""
    w, h = KEY_SIZE
    mask = np.zeros((h, w), np.uint8)
    mx, my = int(round(MARGIN[0] * w)), int(round(MARGIN[1] * h))
    mask[my: h - my, mx: w - mx] = 255
    return mask


def no_keypoints() -> np.ndarray:
    """The block of a view without keypoints."""
    return np.full(KEYPOINTS_DIM, -1.0, np.float32)


def card_keypoints(crop: np.ndarray) -> np.ndarray:
    """One BGR (or grey) crop's keypoints as a block of :data:`KEYPOINTS_DIM` numbers (see the module
    doc); a crop that is no image, or shows no corner, has none (all -1)."""
    img = np.asarray(crop) if crop is not None else None
    if img is None or img.ndim not in (2, 3) or min(img.shape[:2]) < 8 or (img.ndim == 3 and img.shape[2] != 3):
        return no_keypoints()
    if img.dtype != np.uint8:
        img = np.clip(np.nan_to_num(img.astype(np.float32)), 0, 255).astype(np.uint8)
    if img.ndim == 3:
        img = cv2.cvtColor(np.ascontiguousarray(img), cv2.COLOR_BGR2GRAY)
    if img.shape[1] > img.shape[0]:  # a landscape crop: read as the namer does, portrait
        img = np.rot90(img)
    if img.shape[::-1] != KEY_SIZE:
        img = cv2.resize(np.ascontiguousarray(img), KEY_SIZE, interpolation=cv2.INTER_AREA)
    orb, clahe, inside = _tools()
    points, desc = orb.detectAndCompute(clahe.apply(np.ascontiguousarray(img)), inside)
    block = no_keypoints().reshape(KEYPOINTS, ROW)
    if desc is None or not points:
        return block.reshape(-1)
    n = min(len(points), KEYPOINTS)
    block[:n, :2] = cv2.KeyPoint_convert(points[:n])
    block[:n, 2:] = desc[:n]
    return block.reshape(-1)


def card_keypoint_blocks(crops: Sequence[np.ndarray]) -> np.ndarray:
    """(N, :data:`KEYPOINTS_DIM`): each crop's :func:`card_keypoints`."""
    if len(crops) == 0:
        return np.zeros((0, KEYPOINTS_DIM), np.float32)
    return np.stack([card_keypoints(c) for c in crops])


def keypoints_of(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A block's keypoints: their (n, 2) places and (n, 32) uint8 descriptors (n = 0 for a block that
    holds none, or is malformed)."""
    b = np.asarray(block, np.float32).reshape(-1)
    if b.shape[0] != KEYPOINTS_DIM or not np.all(np.isfinite(b)):
        return np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8)
    rows = b.reshape(KEYPOINTS, ROW)
    rows = rows[(rows[:, 0] >= 0) & (rows[:, 1] >= 0)]
    return rows[:, :2].copy(), np.clip(rows[:, 2:], 0, 255).astype(np.uint8)


def packed(block: np.ndarray) -> bytes:
    """A block as kept on disk: each keypoint's x, y (whole pixels) and descriptor, one byte each."""
    places, desc = keypoints_of(block)
    rows = np.hstack([np.clip(np.rint(places), 0, 255).astype(np.uint8), desc]) if len(places) else np.zeros((0, ROW), np.uint8)
    return rows.tobytes()


def kept_keypoints(blob: bytes | None) -> tuple[np.ndarray, np.ndarray]:
    """The keypoints :func:`packed` kept, as :func:`keypoints_of` gives them but in bytes, read in place
    (places in whole pixels): what a memory holds of each view. None for None or a malformed blob."""
    if not blob or len(blob) % ROW or len(blob) > KEYPOINTS * ROW:
        return np.zeros((0, 2), np.uint8), np.zeros((0, 32), np.uint8)
    rows = np.frombuffer(blob, np.uint8).reshape(-1, ROW)
    return rows[:, :2], rows[:, 2:]


def matches_in_place(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> int:
    """How many keypoints of ``a`` and ``b`` (each :func:`keypoints_of` or :func:`kept_keypoints`) are each other's nearest in
    descriptor and lie in place (see the module doc), the better of ``b`` as it is and turned half a turn."""
    return matches_in_place_many(a, [b])[0]


def matches_in_place_many(a: tuple[np.ndarray, np.ndarray], views: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[int]:
    """:func:`matches_in_place` of ``a`` with each of ``views``, found for all of them at once: the
    same counts, a few times faster than one by one. Each keypoint's nearest in Hamming distance (the
    first of equals, as OpenCV's brute-force matcher with its cross-check picks) is read from one
    product of the descriptors' bits (:data:`_BITS`), the views' keypoints side by side."""
    pa, da = a
    out = [0] * len(views)
    usable = [k for k, (_, db) in enumerate(views) if len(db) >= MIN_MATCHES]
    if len(da) < MIN_MATCHES or not usable:
        return out
    n, width, rows = len(usable), max(len(views[k][1]) for k in usable), len(da)
    codes = np.zeros((n, width, 33), np.uint16)  # each view keypoint's descriptor, then its slot
    codes[..., 32] = _PADDING
    places = np.zeros((n, width, 2), np.float32)
    for i, k in enumerate(usable):
        pb, db = views[k]
        codes[i, : len(db), :32], codes[i, : len(db), 32], places[i, : len(db)] = db, _KEYPOINT, pb
    query = np.zeros((rows, 33 * 8), np.float32)
    query[:, :256] = 256 * np.take(_BITS, np.asarray(da, np.uint8), axis=0).reshape(rows, 256)
    query[:, 256] = 255 - np.arange(rows)  # each keypoint of a's slot: its rank, read back from the column's best
    bits = np.take(_BYTES, codes.reshape(n * width, 33), axis=0).view(np.float32).reshape(n * width, 33 * 8)
    # 256 times each pair's product, plus 255 less a's keypoint's rank (a padding far below)
    key = np.matmul(query, bits.T, out=_workspace(rows * n * width).reshape(rows, n * width))
    nearest = key.reshape(rows, n, width).argmax(axis=2)  # each of a's keypoints' nearest in each view
    back = (255 - np.mod(key.max(axis=0), 256)).astype(np.int64).reshape(n, width)  # each view keypoint's in a
    views_at = np.arange(n)[None, :]
    mutual = back[views_at, nearest] == np.arange(rows)[:, None]  # (a's keypoints, views)
    matched = mutual.sum(axis=0)
    qa = np.asarray(pa, np.float32)[:, None, :]
    qb = places[views_at, nearest]
    size = np.array(KEY_SIZE, np.float32) - 1.0
    moved = np.stack([qa - qb, qa - (size - qb)])  # each pair's shift, b as it is and turned half a turn
    shift = masked_median(moved.transpose(0, 2, 3, 1).reshape(4 * n, rows), np.tile(np.repeat(mutual.T, 2, axis=0), (2, 1)),
                          np.tile(np.repeat(matched, 2), 2)).reshape(2, 1, n, 2)  # the views' median shifts, x and y
    near = (np.linalg.norm(moved - shift, axis=3) <= RADIUS) & mutual
    best = np.where(np.abs(shift[:, 0]).max(axis=2) <= SHIFT, near.sum(axis=1), 0).max(axis=0)
    best[matched < MIN_MATCHES] = 0
    for i, k in enumerate(usable):
        out[k] = int(best[i])
    return out


# Rows of eight numbers, each a byte of a descriptor: its eight bits, highest first, as -1 (0) or +1 (1), so
# that two descriptors' bits have the dot product 256 less twice their Hamming distance (the nearest is the
# largest); then the slot matches_in_place_many adds to each view keypoint: a keypoint's, whose product with a
# keypoint of a's slot is that keypoint's number, and a padding's, far below any product.
_BITS = np.vstack([np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float32) * 2 - 1,
                   [[1, 0, 0, 0, 0, 0, 0, 0]], [[-(2 ** 20), 0, 0, 0, 0, 0, 0, 0]]]).astype(np.float32)
_KEYPOINT, _PADDING = 256, 257
_BYTES = _BITS.view(np.dtype((np.void, 32))).reshape(-1)  # each row as one item: taken a few times faster
_SPACE = threading.local()


def _workspace(size: int) -> np.ndarray:
    """A float32 array of ``size``, this thread's, kept from call to call: the views' products are
    larger than what the allocator recycles, and fresh memory costs a crop more than reusing it."""
    held = getattr(_SPACE, "array", None)
    if held is None or len(held) < size:
        held = _SPACE.array = np.empty(size, np.float32)
    return held[:size]

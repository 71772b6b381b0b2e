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
About 0.7 ms a crop to find here; matched with several views at once
(:func:`matches_in_place_many`: the Hamming distances of all their
keypoints as one product of the descriptors' bits), about 0.15 ms a view
(``benchmarks/bench_keypoints.py``). Keypoints found by another
:data:`FINDER` are set aside by what keeps them.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

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
    """:func:`matches_in_place` of ``a`` with each of ``views``: the same counts, the Hamming distances of
    all their keypoints found at once, as one product of the descriptors' bits (:data:`_BITS`)."""
    pa, da = a
    out = [0] * len(views)
    usable = [k for k, (_, db) in enumerate(views) if len(db) >= MIN_MATCHES]
    if len(da) < MIN_MATCHES or not usable:
        return out
    rows = len(da)
    if rows > 256:  # the slot below tells 256 keypoints apart
        raise ValueError(f"{rows} keypoints to match: at most {KEYPOINTS} are found a crop, and 256 can be matched")
    query = np.zeros((rows, 33 * 8), np.float32)
    query[:, :256] = 256 * np.take(_BITS, np.asarray(da, np.uint8), axis=0).reshape(rows, 256)
    query[:, 256] = 255 - np.arange(rows)  # a's keypoints' slots: each one's rank, read back off a column's best
    desc = np.concatenate([views[k][1] for k in usable])
    codes = np.full((len(desc), 33), _SLOT, np.uint16)  # the views' keypoints' descriptors, and their slots
    codes[:, :32] = desc
    # 256 times each pair's dot product plus 255 less the rank of a's keypoint: the largest of a column is its
    # nearest keypoint of a, the first of equals (as OpenCV's brute-force matcher with its cross-check picks)
    key = query @ np.take(_BITS, codes, axis=0).reshape(len(desc), 33 * 8).T
    back = (255 - np.mod(key.max(axis=0), 256)).astype(np.int64)  # each view keypoint's nearest in a
    start = 0
    for k in usable:
        pb, db = views[k]
        nearest = key[:, start: start + len(db)].argmax(axis=1)  # each of a's keypoints' nearest in the view
        mutual = np.flatnonzero(back[start + nearest] == np.arange(rows))
        out[k] = _in_place(pa[mutual], pb[nearest[mutual]])
        start += len(db)
    return out


# Rows of eight numbers, one for each value of a descriptor's byte: its bits, highest first, as -1 (0) or +1 (1),
# so that two descriptors' bits have the dot product 256 less twice their Hamming distance; then a view
# keypoint's slot (matches_in_place_many), whose product with a keypoint of a's slot is that one's rank.
_BITS = np.vstack([np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float32) * 2 - 1,
                   [[1, 0, 0, 0, 0, 0, 0, 0]]]).astype(np.float32)
_SLOT = 256


def _in_place(qa: np.ndarray, qb: np.ndarray) -> int:
    """How many of the pairs of keypoints at ``qa`` and ``qb`` (each other's nearest) lie in place: within
    :data:`RADIUS` of their median shift, of at most :data:`SHIFT`, ``qb`` as it is or turned half a turn."""
    if len(qa) < MIN_MATCHES:
        return 0
    qa, qb = qa.astype(np.float32), qb.astype(np.float32)
    size = np.array(KEY_SIZE, np.float32) - 1.0
    best = 0
    for other in (qb, size - qb):
        moved = qa - other
        shift = _median(moved)
        if np.abs(shift).max() > SHIFT:
            continue
        best = max(best, int((np.linalg.norm(moved - shift, axis=1) <= RADIUS).sum()))
    return best


def _median(rows: np.ndarray) -> np.ndarray:
    """Each column's median (as :func:`numpy.median` gives it, for a few rows in a fraction of its time)."""
    ordered = np.sort(rows, axis=0)
    half = len(ordered) // 2
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / np.float32(2)

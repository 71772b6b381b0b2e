"""Tarotmate's own built-in deck, drawn in code.

The demo and the default tests must run on a machine without any scanned deck,
so the simulated table draws this deck, and the shipped model is trained on it
as well as on the scans. The design is deliberately plain and high-contrast,
like a modern printed tarot: a cream face, a coloured frame, corner indices at
top-left and (rotated) bottom-right, and a centre that shows the suit pips, a
court letter, or a trump number.

``render_card(code)`` returns a BGR ``uint8`` image of ``CARD_SIZE`` (w, h);
``render_back()`` returns the card back (a recognition "unknown").
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from engine.cards import Card, card

CARD_SIZE = (440, 800)  # width, height: the 6.1 x 11.2 cm proportion of tarot cards
NAME = "builtin"

_CREAM = (226, 240, 248)
_RED = (40, 30, 200)
_BLACK = (30, 30, 30)
_TRUMP = (150, 70, 20)  # deep blue
_GOLD = (40, 170, 220)
_FRAME = {"S": _BLACK, "C": (40, 110, 30), "H": _RED, "D": (20, 110, 220), "T": _TRUMP, None: (120, 40, 140)}
_INK = {"S": _BLACK, "C": _BLACK, "H": _RED, "D": _RED, "T": _TRUMP, None: (120, 40, 140)}
_COURT_LETTER = {11: "V", 12: "C", 13: "D", 14: "R"}
_FONT = cv2.FONT_HERSHEY_DUPLEX


def suit_mark(img: np.ndarray, suit: str, cx: float, cy: float, size: float, colour) -> None:
    """Draw one suit symbol centred at (cx, cy), ``size`` pixels tall."""
    s = size / 2
    if suit == "H":
        r = s * 0.52
        cv2.circle(img, (int(cx - r * 0.9), int(cy - s * 0.35)), int(r), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx + r * 0.9), int(cy - s * 0.35)), int(r), colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - s * 0.98, cy - s * 0.2], [cx + s * 0.98, cy - s * 0.2], [cx, cy + s]], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
    elif suit == "D":
        pts = np.array([[cx, cy - s], [cx + s * 0.7, cy], [cx, cy + s], [cx - s * 0.7, cy]], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
    elif suit == "S":
        r = s * 0.5
        cv2.circle(img, (int(cx - r * 0.9), int(cy + s * 0.2)), int(r), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx + r * 0.9), int(cy + s * 0.2)), int(r), colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - s * 0.95, cy + s * 0.1], [cx + s * 0.95, cy + s * 0.1], [cx, cy - s]], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
        stem = np.array([[cx, cy + s * 0.2], [cx + s * 0.35, cy + s], [cx - s * 0.35, cy + s]], np.int32)
        cv2.fillPoly(img, [stem], colour, cv2.LINE_AA)
    elif suit == "C":
        r = s * 0.42
        for dx, dy in ((0, -0.45), (-0.5, 0.12), (0.5, 0.12)):
            cv2.circle(img, (int(cx + dx * s), int(cy + dy * s)), int(r), colour, -1, cv2.LINE_AA)
        stem = np.array([[cx, cy], [cx + s * 0.35, cy + s], [cx - s * 0.35, cy + s]], np.int32)
        cv2.fillPoly(img, [stem], colour, cv2.LINE_AA)


def _text_centered(img, text: str, cx: float, cy: float, scale: float, colour, thickness: int) -> None:
    (tw, th), _ = cv2.getTextSize(text, _FONT, scale, thickness)
    cv2.putText(img, text, (int(cx - tw / 2), int(cy + th / 2)), _FONT, scale, colour, thickness, cv2.LINE_AA)


def _index_label(c: Card) -> str:
    if c.is_excuse:
        return "*"
    if c.is_trump:
        return str(c.rank)
    return _COURT_LETTER.get(c.rank, str(c.rank))


def _draw_index(img: np.ndarray, c: Card) -> None:
    """Corner index (label above a small suit mark) in the top-left corner."""
    ink = _INK[c.suit]
    label = _index_label(c)
    _text_centered(img, label, 58, 62, 1.5 if len(label) < 2 else 1.25, ink, 3)
    if c.is_suit_card:
        suit_mark(img, c.suit, 58, 122, 44, ink)
    elif c.is_trump:
        cv2.rectangle(img, (36, 104), (80, 140), ink, -1)
        cv2.rectangle(img, (44, 112), (72, 132), _GOLD, -1)
    else:
        cv2.circle(img, (58, 122), 20, ink, 4, cv2.LINE_AA)


# Pip positions (fractions of the centre box) for 1..10, as on French cards.
PIP_PLACES = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.15), (0.5, 0.85)],
    3: [(0.5, 0.15), (0.5, 0.5), (0.5, 0.85)],
    4: [(0.25, 0.15), (0.75, 0.15), (0.25, 0.85), (0.75, 0.85)],
    5: [(0.25, 0.15), (0.75, 0.15), (0.5, 0.5), (0.25, 0.85), (0.75, 0.85)],
    6: [(0.25, 0.15), (0.75, 0.15), (0.25, 0.5), (0.75, 0.5), (0.25, 0.85), (0.75, 0.85)],
    7: [(0.25, 0.15), (0.75, 0.15), (0.5, 0.32), (0.25, 0.5), (0.75, 0.5), (0.25, 0.85), (0.75, 0.85)],
    8: [(0.25, 0.15), (0.75, 0.15), (0.5, 0.32), (0.25, 0.5), (0.75, 0.5), (0.5, 0.68), (0.25, 0.85), (0.75, 0.85)],
    9: [(0.25, 0.12), (0.75, 0.12), (0.25, 0.37), (0.75, 0.37), (0.5, 0.5), (0.25, 0.63), (0.75, 0.63), (0.25, 0.88), (0.75, 0.88)],
    10: [(0.25, 0.12), (0.75, 0.12), (0.5, 0.25), (0.25, 0.37), (0.75, 0.37), (0.25, 0.63), (0.75, 0.63), (0.5, 0.75), (0.25, 0.88), (0.75, 0.88)],
}


def _draw_centre(img: np.ndarray, c: Card) -> None:
    w, h = CARD_SIZE
    x0, y0, x1, y1 = 110, 150, w - 110, h - 150
    ink = _INK[c.suit]
    if c.is_suit_card and c.rank <= 10:
        size = 130 if c.rank == 1 else 70
        for fx, fy in PIP_PLACES[c.rank]:
            suit_mark(img, c.suit, x0 + fx * (x1 - x0), y0 + fy * (y1 - y0), size, ink)
    elif c.is_court:
        cx, cy = w / 2, h / 2
        cv2.rectangle(img, (x0 - 20, y0 + 40), (x1 + 20, y1 - 40), ink, 6)
        # a crown whose number of points tells the rank (valet 1 .. roi 4)
        points = c.rank - 10
        top = y0 + 80
        xs = np.linspace(x0 + 20, x1 - 20, points + 2)
        for i in range(points):
            tri = np.array([[xs[i] + 10, top + 90], [xs[i + 1], top], [xs[i + 2] - 10, top + 90]], np.int32)
            cv2.fillPoly(img, [tri], _GOLD if c.suit in "HD" else ink, cv2.LINE_AA)
        _text_centered(img, _COURT_LETTER[c.rank], cx, cy + 40, 5.0, ink, 12)
        suit_mark(img, c.suit, cx, y1 - 110, 80, ink)
    elif c.is_trump:
        cx, cy = w / 2, h / 2
        cv2.rectangle(img, (x0 - 30, y0), (x1 + 30, y1), _TRUMP, -1)
        # a band pattern that differs for every trump: rank bits as gold bars
        for bit in range(5):
            if c.rank >> bit & 1:
                y = y0 + 30 + bit * 22
                cv2.rectangle(img, (x0 - 10, y), (x1 + 10, y + 12), _GOLD, -1)
        cv2.rectangle(img, (x0 - 10, int(cy - 90)), (x1 + 10, int(cy + 90)), _CREAM, -1)
        _text_centered(img, str(c.rank), cx, cy, 4.2 if c.rank < 10 else 3.6, _TRUMP, 12)
        if c.rank in (6, 9):  # underlined, as printed decks do, so that 6 and 9 differ upside down
            cv2.rectangle(img, (int(cx - 45), int(cy + 68)), (int(cx + 45), int(cy + 80)), _TRUMP, -1)
    else:  # the Excuse: a star
        cx, cy = w / 2, h / 2
        ang = np.linspace(-np.pi / 2, 1.5 * np.pi, 11)[:-1]
        rad = np.where(np.arange(10) % 2 == 0, 150, 60)
        pts = np.stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)], 1).astype(np.int32)
        cv2.fillPoly(img, [pts], ink, cv2.LINE_AA)
        cv2.circle(img, (int(cx), int(cy)), 40, _GOLD, -1, cv2.LINE_AA)


@lru_cache(maxsize=None)
def _render(code: str) -> np.ndarray:
    c = card(code)
    w, h = CARD_SIZE
    img = np.full((h, w, 3), _CREAM, np.uint8)
    cv2.rectangle(img, (8, 8), (w - 9, h - 9), _FRAME[c.suit], 10)
    _draw_centre(img, c)
    corner = img[: h // 2, :].copy()
    _draw_index(corner, c)
    img[: h // 2, :] = corner
    # the bottom-right index is the top-left one turned half a turn
    rotated = np.ascontiguousarray(img[::-1, ::-1])
    _draw_index(rotated, c)
    img = np.ascontiguousarray(rotated[::-1, ::-1])
    img.setflags(write=False)
    return img


def render_card(code: str | Card) -> np.ndarray:
    """The face of ``code`` in the built-in deck (BGR, read-only array)."""
    return _render(card(code).code)


@lru_cache(maxsize=1)
def render_back() -> np.ndarray:
    """The back of the built-in deck: a tartan of dark red and navy."""
    w, h = CARD_SIZE
    img = np.full((h, w, 3), (60, 20, 110), np.uint8)
    for x in range(0, w, 40):
        cv2.line(img, (x, 0), (x, h), (90, 40, 30), 8)
    for y in range(0, h, 40):
        cv2.line(img, (0, y), (w, y), (90, 40, 30), 8)
    cv2.rectangle(img, (8, 8), (w - 9, h - 9), (230, 230, 230), 10)
    img.setflags(write=False)
    return img


def write_deck(folder) -> None:
    """Write the 78 faces as ``CODE.png`` (the layout of a deck folder)."""
    from pathlib import Path

    from engine.cards import CODES

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    for code in CODES:
        cv2.imwrite(str(out / f"{code}.png"), render_card(code))

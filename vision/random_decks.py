"""Decks drawn at random: the 78 cards in designs no printer made, for training the card namer.

A club's deck is most often one the models never saw, and its pictures tell
the namer nothing it learned. What every tarot deck shares is how a card says
what it is: a corner index (a number or a court letter, often over a suit
mark), a suit card's pips in their usual places, a trump's number in Arabic or
Roman numerals, sometimes the card's name printed under the picture.

:func:`draw_style` draws one design from a random generator — paper and inks,
frame, index font, size and place, court letters (``R D C V``, ``K Q Kn J``,
...), French or Italian suit marks, Arabic or Roman trump numbers, a name
label, the kind of picture behind courts and trumps — and :func:`render_face`
draws one card of that design. Trained on many such decks the namer has to
read what decks share, since no picture repeats. Pure functions of a style and
a card code; a few milliseconds a face at the training faces' height.
"""

from __future__ import annotations

import unicodedata
import zlib
from dataclasses import dataclass

import cv2
import numpy as np

from engine.card_names import name as card_name
from engine.card_names import roman
from engine.cards import card
from vision.builtin_deck import PIP_PLACES, suit_mark
from vision.synth import Face, face_from_image

FACE_SIZE = (224, 384)  # width, height of a face: the tarot card's 6.1 x 11.2 cm, at the training faces' height
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX,
         cv2.FONT_HERSHEY_COMPLEX_SMALL, cv2.FONT_HERSHEY_PLAIN)
COURT_LETTERS = (  # ranks 11..14: valet/jack/page, cavalier/knight, dame/queen, roi/king
    ("V", "C", "D", "R"), ("J", "Kn", "Q", "K"), ("P", "Kn", "Q", "K"), ("J", "C", "Q", "K"), ("B", "C", "D", "K"),
    ("S", "C", "R", "R"),  # a Spanish deck's sota, caballo, reina, rey: two courts share the letter
)
INDEX_PLACES = ("corners", "top_corners", "ends", "top_left", "pictures")
PICTURES = ("blobs", "stripes", "plain")
SUIT_SETS = ("french", "italian")
_LANGS = ("en", "fr", "es")


@dataclass(frozen=True)
class DeckStyle:
    """One deck's design (see module doc); every field is drawn by :func:`draw_style`."""

    paper: tuple[int, int, int]
    inks: tuple[tuple[int, int, int], ...]  # spades, hearts, diamonds, clubs, trumps, excuse (BGR)
    frame: str  # "none", "line", "band", "double"
    frame_colour: tuple[int, int, int]
    font: int
    italic: bool
    index_place: str  # INDEX_PLACES: where the index is printed ("pictures": none on pip cards, as on
    #                    Rider-Waite-Smith decks; trumps numbered at the top, courts named at the bottom)
    index_scale: float  # index height as a fraction of the face's width
    index_box: bool  # the index on a coloured patch
    index_mark: bool  # a small suit mark under a suit card's index
    courts: tuple[str, str, str, str]
    roman_trumps: bool
    suits: str  # SUIT_SETS
    lang: str
    name_label: bool  # the card's name printed at the bottom
    picture: str  # PICTURES: what fills a court's or a trump's centre
    pip_picture: bool  # pips drawn over a picture, as on illustrated decks
    pip_scale: float
    seed: int  # the pictures' own randomness

    def ink(self, suit: str | None) -> tuple[int, int, int]:
        return self.inks[{"S": 0, "H": 1, "D": 2, "C": 3, "T": 4}.get(suit, 5)]


def _colour(rng: np.random.Generator, lo: int = 0, hi: int = 255) -> tuple[int, int, int]:
    return tuple(int(v) for v in rng.integers(lo, hi + 1, 3))


def draw_style(rng: np.random.Generator) -> DeckStyle:
    """A deck design drawn at random."""
    light = rng.random() < 0.85
    paper = _colour(rng, 200, 255) if light else _colour(rng, 120, 200)
    if rng.random() < 0.3:  # white or near-white, as most modern prints
        paper = (int(rng.integers(235, 256)),) * 3
    dark = int(rng.integers(0, 60))
    black = (dark, dark, dark)
    red = (int(rng.integers(0, 70)), int(rng.integers(0, 60)), int(rng.integers(150, 235)))
    if rng.random() < 0.6:  # the French convention: black spades and clubs, red hearts and diamonds
        inks = [black, red, red, black]
    else:
        inks = [_colour(rng, 0, 150) for _ in range(4)]
    inks += [_colour(rng, 0, 150), _colour(rng, 0, 150)]
    frame = str(rng.choice(["none", "line", "band", "double"], p=[0.3, 0.3, 0.25, 0.15]))
    suits = "italian" if rng.random() < 0.45 else "french"
    return DeckStyle(
        paper=paper, inks=tuple(inks), frame=frame, frame_colour=_colour(rng, 0, 200),
        font=int(rng.choice(FONTS)), italic=bool(rng.random() < 0.2),
        index_place=str(rng.choice(INDEX_PLACES, p=[0.4, 0.15, 0.15, 0.1, 0.2])),
        index_scale=float(rng.uniform(0.09, 0.2)), index_box=bool(rng.random() < 0.2),
        index_mark=bool(rng.random() < 0.6), courts=tuple(COURT_LETTERS[int(rng.integers(len(COURT_LETTERS)))]),
        roman_trumps=bool(rng.random() < 0.4), suits=suits, lang=str(rng.choice(_LANGS)),
        name_label=bool(rng.random() < 0.35), picture=str(rng.choice(PICTURES, p=[0.55, 0.25, 0.2])),
        pip_picture=bool(rng.random() < 0.3), pip_scale=float(rng.uniform(0.7, 1.25)),
        seed=int(rng.integers(2**31)),
    )


def _solid(h: int, w: int, colour) -> np.ndarray:
    """An h x w BGR image of one colour (numpy's broadcast fill of a colour is ten times slower)."""
    return cv2.merge([np.full((h, w), int(v), np.uint8) for v in colour])


def _ascii(text: str) -> str:
    """``text`` as the Hershey fonts can draw it (accents dropped)."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def _text(img: np.ndarray, text: str, cx: float, cy: float, height: float, colour, style: DeckStyle,
          max_width: float | None = None) -> None:
    """``text`` centred on (cx, cy), about ``height`` pixels tall (narrower when it would pass
    ``max_width``)."""
    font = style.font | (cv2.FONT_ITALIC if style.italic else 0)
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = height / max(th, 1)
    if max_width is not None and tw * scale > max_width:
        scale = max_width / max(tw, 1)
    thickness = max(1, int(round(scale * 1.6)))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    cv2.putText(img, text, (int(cx - tw / 2), int(cy + th / 2)), font, scale, colour, thickness, cv2.LINE_AA)


def _italian_mark(img: np.ndarray, suit: str, cx: float, cy: float, size: float, colour) -> None:
    """One Italian suit mark: swords (S), cups (H), coins (D), batons (C)."""
    s = size / 2
    if suit == "S":  # a sword, point up: blade, cross-guard, grip
        blade = np.array([[cx, cy - s], [cx + s * 0.13, cy - s * 0.75], [cx + s * 0.13, cy + s * 0.4],
                          [cx - s * 0.13, cy + s * 0.4], [cx - s * 0.13, cy - s * 0.75]], np.int32)
        cv2.fillPoly(img, [blade], colour, cv2.LINE_AA)
        cv2.rectangle(img, (int(cx - s * 0.45), int(cy + s * 0.4)), (int(cx + s * 0.45), int(cy + s * 0.52)), colour, -1)
        cv2.rectangle(img, (int(cx - s * 0.09), int(cy + s * 0.52)), (int(cx + s * 0.09), int(cy + s * 0.9)), colour, -1)
        cv2.circle(img, (int(cx), int(cy + s * 0.95)), max(1, int(s * 0.12)), colour, -1, cv2.LINE_AA)
    elif suit == "H":  # a cup: bowl, stem, foot
        cv2.ellipse(img, (int(cx), int(cy - s * 0.35)), (int(s * 0.55), int(s * 0.5)), 0, 0, 180, colour, -1, cv2.LINE_AA)
        cv2.rectangle(img, (int(cx - s * 0.55), int(cy - s * 0.6)), (int(cx + s * 0.55), int(cy - s * 0.35)), colour, -1)
        cv2.rectangle(img, (int(cx - s * 0.1), int(cy + s * 0.1)), (int(cx + s * 0.1), int(cy + s * 0.7)), colour, -1)
        cv2.ellipse(img, (int(cx), int(cy + s * 0.8)), (int(s * 0.4), int(s * 0.15)), 0, 0, 360, colour, -1, cv2.LINE_AA)
    elif suit == "D":  # a coin: a ring with a five-pointed star
        cv2.circle(img, (int(cx), int(cy)), max(2, int(s * 0.8)), colour, max(1, int(s * 0.14)), cv2.LINE_AA)
        ang = np.linspace(-np.pi / 2, 1.5 * np.pi, 11)[:-1]
        rad = np.where(np.arange(10) % 2 == 0, s * 0.8, s * 0.3)  # its points touch the ring: one mark
        star = np.stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)], 1).astype(np.int32)
        cv2.fillPoly(img, [star], colour, cv2.LINE_AA)
    else:  # a baton: a knotted staff
        w = max(2, int(s * 0.22))
        cv2.line(img, (int(cx - s * 0.25), int(cy + s)), (int(cx + s * 0.25), int(cy - s)), colour, w, cv2.LINE_AA)
        for t in (-0.5, 0.0, 0.5):
            cv2.circle(img, (int(cx - s * 0.25 * t), int(cy + s * t)), max(1, int(w * 0.8)), colour, -1, cv2.LINE_AA)


def _mark(style: DeckStyle, img: np.ndarray, suit: str, cx: float, cy: float, size: float, colour) -> None:
    if style.suits == "italian":
        _italian_mark(img, suit, cx, cy, size, colour)
    else:
        suit_mark(img, suit, cx, cy, size, colour)


def _picture(rng: np.random.Generator, shape: tuple[int, int], kind: str, ink) -> np.ndarray:
    """A made-up picture ``shape`` (h, w): overlapping shapes in a random palette, bands, or a plain wash."""
    h, w = shape
    palette = rng.integers(0, 256, (5, 3))
    top, bottom = palette[0].astype(np.float32), palette[1].astype(np.float32)
    t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    column = (top * (1 - t) + bottom * t).astype(np.uint8)  # (h, 1, 3): a vertical wash
    img = cv2.resize(column, (w, h), interpolation=cv2.INTER_NEAREST)
    if kind == "blobs":
        for _ in range(int(rng.integers(4, 14))):
            c = tuple(int(v) for v in palette[int(rng.integers(2, 5))])
            centre = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            axes = (int(rng.integers(max(2, w // 12), max(3, w // 2))), int(rng.integers(max(2, h // 12), max(3, h // 2))))
            cv2.ellipse(img, centre, axes, float(rng.uniform(0, 180)), 0, 360, c, -1, cv2.LINE_AA)
        for _ in range(int(rng.integers(0, 6))):  # outlines, as drawn figures have
            p = rng.integers(0, [w, h], (int(rng.integers(3, 7)), 2)).astype(np.int32)
            cv2.polylines(img, [p], bool(rng.random() < 0.5), tuple(int(v) for v in ink), int(rng.integers(1, 3)), cv2.LINE_AA)
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.3, 1.5)))
    elif kind == "stripes":
        step = int(rng.integers(max(4, h // 20), max(5, h // 6)))
        for y in range(0, h, step * 2):
            cv2.rectangle(img, (0, y), (w, y + step), tuple(int(v) for v in palette[int(rng.integers(2, 5))]), -1)
    return img


def _index_label(style: DeckStyle, code: str) -> str:
    c = card(code)
    if c.is_excuse:
        return "" if style.roman_trumps else "*"
    if c.is_trump:
        return roman(c.rank) if style.roman_trumps else str(c.rank)
    if c.rank >= 11:
        return style.courts[c.rank - 11]
    return "A" if c.rank == 1 and style.lang == "en" and style.suits == "french" else str(c.rank)


def _draw_index(style: DeckStyle, img: np.ndarray, code: str, cx: float, cy: float) -> None:
    """The index (its label, over a small suit mark for a suit card) centred at (cx, cy)."""
    c = card(code)
    w = img.shape[1]
    size = style.index_scale * w
    ink = style.ink(c.suit)
    label = _index_label(style, code)
    if style.index_box:
        cv2.rectangle(img, (int(cx - size * 0.8), int(cy - size * 0.8)), (int(cx + size * 0.8), int(cy + size * 1.9)),
                      style.frame_colour, -1)
        ink = style.paper
    if label:
        _text(img, label, cx, cy, size, ink, style, max_width=size * 1.5)
    elif c.is_excuse:
        suit_mark(img, "D", cx, cy, size, ink)  # a star-like diamond for an unnumbered Excuse
    if c.is_suit_card and style.index_mark:
        _mark(style, img, c.suit, cx, cy + size * 1.15, size * 0.8, ink)


def _centre(style: DeckStyle, rng: np.random.Generator, img: np.ndarray, code: str, box: tuple[int, int, int, int]) -> None:
    c = card(code)
    x0, y0, x1, y1 = box
    ink = style.ink(c.suit)
    if c.is_suit_card and c.rank <= 10:
        if style.pip_picture:
            img[y0:y1, x0:x1] = _picture(rng, (y1 - y0, x1 - x0), "blobs", ink)
        size = (x1 - x0) * (0.5 if c.rank == 1 else 0.28) * style.pip_scale
        jitter = 0.02 if rng.random() < 0.5 else 0.0
        for fx, fy in PIP_PLACES[c.rank]:
            px = x0 + (fx + rng.uniform(-jitter, jitter)) * (x1 - x0)
            py = y0 + (fy + rng.uniform(-jitter, jitter)) * (y1 - y0)
            if style.pip_picture:  # a light halo keeps the pip readable over the picture
                _mark(style, img, c.suit, px, py, size * 1.15, style.paper)
            _mark(style, img, c.suit, px, py, size, ink)
        return
    img[y0:y1, x0:x1] = _picture(rng, (y1 - y0, x1 - x0), style.picture, ink)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if c.is_court:
        if rng.random() < 0.5:  # a big court letter over the picture, as plain decks print
            _text(img, style.courts[c.rank - 11], cx, cy, (x1 - x0) * 0.45, ink, style, max_width=(x1 - x0) * 0.8)
        _mark(style, img, c.suit, cx, y1 - (x1 - x0) * 0.2, (x1 - x0) * 0.3, ink)
    elif c.is_trump and style.index_place != "pictures" and rng.random() < 0.6:
        label = _index_label(style, code)
        band = (x1 - x0) * 0.35
        cv2.rectangle(img, (x0, int(cy - band / 2)), (x1, int(cy + band / 2)), style.paper, -1)
        _text(img, label, cx, cy, band * 0.7, ink, style, max_width=(x1 - x0) * 0.9)


def _seed(style: DeckStyle, code: str) -> int:
    return (style.seed * 1_000_003 + zlib.crc32(code.encode())) % 2**32


def render_face(style: DeckStyle, code: str, size: tuple[int, int] = FACE_SIZE) -> np.ndarray:
    """Card ``code`` drawn in ``style``: a BGR ``uint8`` image of ``size`` (w, h). The same style
    and code always give the same face."""
    c = card(code)
    rng = np.random.default_rng(_seed(style, code))
    w, h = size
    img = _solid(h, w, style.paper)
    fw = max(1, int(w * 0.025))
    if style.frame in ("line", "double"):
        cv2.rectangle(img, (fw * 2, fw * 2), (w - 1 - fw * 2, h - 1 - fw * 2), style.frame_colour, max(1, fw // 2))
    if style.frame == "double":
        cv2.rectangle(img, (fw * 4, fw * 4), (w - 1 - fw * 4, h - 1 - fw * 4), style.frame_colour, max(1, fw // 2))
    if style.frame == "band":
        cv2.rectangle(img, (0, 0), (w - 1, h - 1), style.frame_colour, fw * 3)
    margin = int(w * (0.24 if style.index_place in ("corners", "top_corners", "top_left") else 0.12))
    top = int(h * (0.14 if style.index_place in ("ends", "pictures") else 0.1))
    bottom = int(h * (0.12 if style.name_label or style.index_place in ("ends", "pictures") else 0.1))
    _centre(style, rng, img, code, (margin, top, w - margin, h - bottom))
    place = style.index_place
    size = style.index_scale * w
    if place == "pictures":  # Rider-Waite-Smith: trumps numbered at the top, courts and Excuse named below
        if c.is_trump or c.is_excuse:
            label = roman(c.rank) if c.is_trump else "0"
            _text(img, label, w / 2, top / 2, size * 0.8, style.ink("T"), style, max_width=w * 0.5)
        if not (c.is_suit_card and c.rank <= 10) or style.name_label:
            _name(style, img, code, h - bottom / 2)
        return img
    corner = (w * 0.12, h * 0.07) if place != "ends" else (w / 2, top / 2)
    _draw_index(style, img, code, *corner)
    if place in ("corners", "ends"):  # the same index turned half a turn at the other end
        turned = cv2.flip(img, -1)
        _draw_index(style, turned, code, *corner)
        img = cv2.flip(turned, -1)
    elif place == "top_corners":
        _draw_index(style, img, code, w - corner[0], corner[1])
    if style.name_label:
        _name(style, img, code, h - bottom / 2)
    return img


def _name(style: DeckStyle, img: np.ndarray, code: str, cy: float) -> None:
    w = img.shape[1]
    text = _ascii(card_name(code, style.lang, "tarot" if style.suits == "italian" else "french"))
    _text(img, text.upper() if style.font in (FONTS[0], FONTS[1]) else text, w / 2, cy, w * 0.06,
          style.ink("T"), style, max_width=w * 0.8)


class RandomDecks:
    """Faces of random decks for a training process: a pool of ``styles`` designs drawn once from
    ``seed``; a face is drawn when first asked for and kept (``keep`` faces at most, about a
    quarter of a megabyte each, the oldest given up first)."""

    def __init__(self, styles: int = 4096, seed: int = 0, keep: int = 512):
        rng = np.random.default_rng(seed)
        self.styles = [draw_style(rng) for _ in range(styles)]
        self.keep = keep
        self._faces: dict[tuple[int, str], Face] = {}

    def face(self, rng: np.random.Generator, code: str) -> Face:
        """``code`` in one of the pool's styles, chosen by ``rng`` (a :class:`vision.synth.Face`)."""
        k = int(rng.integers(len(self.styles)))
        key = (k, code)
        found = self._faces.get(key)
        if found is None:
            if len(self._faces) >= self.keep:
                self._faces.pop(next(iter(self._faces)))
            found = self._faces[key] = face_from_image(code, render_face(self.styles[k], code))
        return found

"""Glyphs on the one-bit 128x64 screen: every character the screens draw exists
in the face at every size it is drawn, and easily confused characters differ.

"Differ" is measured on the pixels the OLED lights: both glyphs drawn on the
same baseline, aligned horizontally as well as they can be (a shift of one
pixel either way), must differ in at least ``MIN_DIFFERENT_PIXELS`` pixels; and
the glyphs made of separate parts ("i", "j", "?") keep their parts apart (the
dot of "i" touching its stem reads "l", the dot of "?" touching it reads "7").
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw

from device.i18n import LANGUAGES
from device.screens import render
from device.screens.draw import FONT_PATH, HUGE, LARGE, MEDIUM, SMALL, font, recording
from device.screens.examples import examples
from tests.screens.test_render import _variants

CONFUSABLE = ("8B", "0O", "0D", "OD", "1l", "1I", "lI", "5S", "2Z", "?7", "6G", "il", "-·")
SEPARATE_PARTS = {"i": 2, "j": 2, "?": 2, "!": 2, ":": 2, ";": 2}
MIN_DIFFERENT_PIXELS = 3
MIN_INK = {"-": 4, "·": 4, "−": 5}  # a sign or a separator of two pixels is lost on the OLED


def _drawn() -> dict[int, set[str]]:
    """Size -> every character the screens draw at that size (examples and
    every kind of every view, in every language and card style)."""
    used: dict[int, set[str]] = {}
    for lang in LANGUAGES:
        views = list(examples(lang).values()) + list(_variants())
        for view in views:
            for style in ("french", "tarot"):
                with recording() as items:
                    render(view, lang, style)
                for item in items:
                    used.setdefault(item.size, set()).update(item.shown)
    return used


DRAWN = _drawn()
SIZES = sorted(DRAWN)


def glyph(ch: str, size: int) -> np.ndarray:
    image = Image.new("1", (80, 80), 0)
    pen = ImageDraw.Draw(image)
    pen.fontmode = "1"
    pen.text((20, 56), ch, font=font(size), fill=1, anchor="ls")
    return np.array(image, dtype=bool)


def difference(a: str, b: str, size: int) -> int:
    """Pixels that differ between ``a`` and ``b`` at their best horizontal alignment."""
    ga, gb = glyph(a, size), glyph(b, size)
    return min(int((ga ^ np.roll(gb, dx, axis=1)).sum()) for dx in (-1, 0, 1))


def parts(ch: str, size: int) -> int:
    count, _ = cv2.connectedComponents(glyph(ch, size).astype(np.uint8), connectivity=8)
    return count - 1


def test_the_sizes_drawn_are_the_declared_ones():
    assert {SMALL, MEDIUM, LARGE, HUGE} <= set(SIZES) <= {9, SMALL, MEDIUM, LARGE, HUGE}
    assert FONT_PATH.name == "TarotmateSansCondensed-Bold.ttf"


@pytest.mark.parametrize("size", SIZES)
def test_every_character_drawn_has_a_glyph_with_ink(size):
    face = font(size)
    missing = face.getmask("\U0010fffd").getbbox()  # what the face draws for a missing glyph
    for ch in sorted(DRAWN[size]):
        if ch.isspace():
            continue
        assert glyph(ch, size).any(), f"{ch!r} draws nothing at {size} px"
        if missing is not None:
            assert face.getmask(ch).getbbox() != missing or ch in "□", f"{ch!r} is missing at {size} px"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("pair", CONFUSABLE)
def test_confusable_characters_differ(pair, size):
    a, b = pair
    n = difference(a, b, size)
    assert n >= MIN_DIFFERENT_PIXELS, f"{a!r} and {b!r} differ in only {n} pixels at {size} px"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ch", sorted(SEPARATE_PARTS))
def test_dots_stay_apart_from_their_stems(ch, size):
    assert parts(ch, size) == SEPARATE_PARTS[ch], f"{ch!r} at {size} px: its dot touches the rest"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ch", sorted(MIN_INK))
def test_signs_are_not_specks(ch, size):
    assert int(glyph(ch, size).sum()) >= MIN_INK[ch], f"{ch!r} lights fewer than {MIN_INK[ch]} pixels at {size} px"


def test_the_measure_catches_the_original_face():
    """The measure is not idle: DejaVu's own hinting fails it where users saw it fail."""
    from PIL import ImageFont

    plain = ImageFont.truetype(str(FONT_PATH.with_name("DejaVuSansCondensed-Bold.ttf")), SMALL,
                               layout_engine=ImageFont.Layout.BASIC)
    image = Image.new("1", (80, 80), 0)
    pen = ImageDraw.Draw(image)
    pen.fontmode = "1"
    pen.text((20, 56), "?", font=plain, fill=1, anchor="ls")
    count, _ = cv2.connectedComponents(np.array(image, dtype=np.uint8), connectivity=8)
    assert count - 1 == 1  # the dot of "?" touches it: "Marta 7"

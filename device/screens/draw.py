"""Drawing helpers shared by every screen: the canvas, the font, text fitting.

Every screen is a 128x64 one-bit image. Text goes through :class:`Canvas`,
which never lets a string run past its box: a string too wide is either cut
with an ellipsis ("…") or, when the caller passes a ``scroll`` tick, shown as a
window that moves one character per tick (a marquee).

While :func:`recording` is active, every string drawn is recorded with its
box and how it was fitted, so tests can check that nothing leaves the screen
and that no string is cut without an ellipsis.
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from PIL import Image, ImageDraw, ImageFont

WIDTH = 128
HEIGHT = 64
FONT_PATH = Path(__file__).resolve().parent.parent / "fonts" / "TarotmateSansCondensed-Bold.ttf"

# Font sizes (pixels). SMALL is the normal text size; the line pitch leaves
# room for accents on capitals and for descenders.
SMALL = 10
MEDIUM = 12
LARGE = 16
HUGE = 24
LINE = {SMALL: 13, MEDIUM: 15, LARGE: 19, HUGE: 28}
HEADER_HEIGHT = 13
TINY = 9  # the type of the thin title band and of the rows of five-player tables
BAND_HEIGHT = 9  # the thin title band of five-row screens (rows 0..8)
ROW5_PITCH = 11  # the rows under the thin band: 9 + 5 * 11 = 64
RIGHT_MIN_W = 60  # the room a header's right part may always take
ELLIPSIS = "…"
SCROLL_GAP = "   "


@lru_cache(maxsize=None)
def font(size: int) -> ImageFont.FreeTypeFont:
    """The screens' font: DejaVu Sans Condensed Bold with glyphs and hinting
    made for one-bit pixels (``device/fonts/build_font.py`` says what changed).

    The basic layout engine is used on purpose: its whole-pixel advances give
    evener spacing in one-bit rendering than Raqm, and the images do not
    depend on whether Pillow was built with Raqm.
    """
    return ImageFont.truetype(str(FONT_PATH), size, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=4096)
def text_width(text: str, size: int) -> int:
    """Width in pixels of ``text`` drawn at ``size`` (ink box, rounded up)."""
    if not text:
        return 0
    left, _, right, _ = font(size).getbbox(text, anchor="la")
    return int(right - min(left, 0))


def ellipsize(text: str, size: int, max_width: int) -> str:
    """``text`` if it fits in ``max_width``, else its longest prefix plus "…"."""
    if text_width(text, size) <= max_width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # longest prefix whose ellipsized form fits
        mid = (lo + hi + 1) // 2
        if text_width(text[:mid].rstrip() + ELLIPSIS, size) <= max_width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + ELLIPSIS if lo else ELLIPSIS


def scroll_window(text: str, size: int, max_width: int, tick: int) -> str:
    """The part of a too-long ``text`` to show at scroll step ``tick``.

    The text loops with a gap of spaces; each tick moves one character.
    A text that fits is returned unchanged, whatever the tick.
    """
    if text_width(text, size) <= max_width:
        return text
    loop = text + SCROLL_GAP
    start = tick % len(loop)
    doubled = loop[start:] + loop + loop
    lo, hi = 1, len(doubled)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text_width(doubled[:mid], size) <= max_width:
            lo = mid
        else:
            hi = mid - 1
    return doubled[:lo]


@dataclass(frozen=True)
class DrawnText:
    """One string as drawn: what was asked, what was shown, where and how."""

    wanted: str
    shown: str
    box: tuple[int, int, int, int]
    fit: str  # "full", "ellipsis" or "scroll"
    size: int = SMALL


def ink_box(text: str, size: int, xy: tuple[int, int]) -> tuple[int, int, int, int]:
    """The pixels ``text`` really covers when drawn at ``xy`` (x0, y0, x1, y1 exclusive).

    Drawn on a scratch image with a wide margin, so that ink falling outside
    the screen is measured rather than clipped. Empty text gives an empty box
    at ``xy``.
    """
    margin = 64
    scratch = Image.new("1", (WIDTH + 2 * margin, HEIGHT + 2 * margin), 0)
    pen = ImageDraw.Draw(scratch)
    pen.fontmode = "1"
    pen.text((xy[0] + margin, xy[1] + margin), text, font=font(size), fill=1, anchor="la")
    box = scratch.getbbox()
    if box is None:
        return (xy[0], xy[1], xy[0], xy[1])
    return (box[0] - margin, box[1] - margin, box[2] - margin, box[3] - margin)


_recorder: contextvars.ContextVar[list[DrawnText] | None] = contextvars.ContextVar(
    "tarotmate_screen_recorder", default=None
)


@contextlib.contextmanager
def recording() -> Iterator[list[DrawnText]]:
    """Collect every string drawn by the screens inside the ``with`` block."""
    items: list[DrawnText] = []
    token = _recorder.set(items)
    try:
        yield items
    finally:
        _recorder.reset(token)


class Canvas:
    """A blank 128x64 one-bit image with text and shape helpers."""

    def __init__(self) -> None:
        self.image = Image.new("1", (WIDTH, HEIGHT), 0)
        self.draw = ImageDraw.Draw(self.image)
        self.draw.fontmode = "1"

    def text(
        self,
        xy: tuple[int, int],
        text: str,
        size: int = SMALL,
        *,
        max_width: int | None = None,
        align: str = "left",
        scroll: int | None = None,
        fill: int = 1,
        clip: tuple[int, int, int, int] | None = None,
    ) -> int:
        """Draw ``text`` with its top-left (or top-centre/right) at ``xy``.

        ``max_width`` defaults to the room left on the screen in the drawing
        direction. ``clip`` (x0, y0, x1, y1 exclusive) keeps the ink inside a
        box, e.g. the descenders of a title in a thin band. Returns the width
        drawn.
        """
        x, y = xy
        if max_width is None:
            max_width = {
                "left": WIDTH - x,
                "right": x + 1,
                "center": 2 * min(x, WIDTH - x),
            }[align]
        if scroll is not None:
            shown = scroll_window(text, size, max_width, scroll)
            fit = "full" if shown == text else "scroll"
        else:
            shown = ellipsize(text, size, max_width)
            fit = "full" if shown == text else "ellipsis"
        w = text_width(shown, size)
        left = {"left": x, "right": x + 1 - w, "center": x - w // 2}[align]
        before = self.image.copy() if clip is not None and shown else None
        if shown:
            self.draw.text((left, y), shown, font=font(size), fill=fill, anchor="la")
        if before is not None:  # keep only the ink inside the clip box
            before.paste(self.image.crop(clip), clip[:2])
            self.image.paste(before)
        items = _recorder.get()
        if items is not None:
            box = ink_box(shown, size, (left, y))
            if clip is not None:
                box = (max(box[0], clip[0]), max(box[1], clip[1]), min(box[2], clip[2]), min(box[3], clip[3]))
                box = box if box[0] < box[2] and box[1] < box[3] else (left, y, left, y)
            items.append(DrawnText(text, shown, box, fit, size))
        return w

    def header(self, left: str, right: str = "", *, scroll: int | None = None) -> None:
        """The inverted title band at the top (rows 0..12): ``left``, and ``right`` aligned right.

        ``right`` gets what ``left`` leaves, and at least 60 pixels; ``scroll``
        (a tick) makes either part scroll when it is too long instead of being
        cut.
        """
        self.draw.rectangle((0, 0, WIDTH - 1, HEADER_HEIGHT - 1), fill=1)
        right_w = 0
        if right:
            room = max(RIGHT_MIN_W, WIDTH - 8 - text_width(left, SMALL))
            right_w = self.text((WIDTH - 2, 0), right, SMALL, align="right", max_width=room, fill=0, scroll=scroll)
        room = WIDTH - 4 - (right_w + 4 if right_w else 0)
        self.text((2, 0), left, SMALL, max_width=room, scroll=scroll, fill=0)

    def band(self, left: str, right: str = "", *, right_max: int = 70) -> None:
        """The thin inverted title band (rows 0..8) of screens with five rows
        under it (five players): ``left``, and ``right`` aligned right."""
        self.draw.rectangle((0, 0, WIDTH - 1, BAND_HEIGHT - 1), fill=1)
        band = (0, 0, WIDTH, BAND_HEIGHT)  # descenders stay in the band
        right_w = self.text((WIDTH - 2, -1), right, TINY, align="right", max_width=right_max, fill=0,
                            clip=band) if right else 0
        self.text((2, -1), left, TINY, max_width=WIDTH - 4 - (right_w + 4 if right_w else 0), fill=0, clip=band)

    def banner(self, title: str) -> None:
        """A big inverted title (rows 0..20) for alerts and announcements, in
        the largest type that fits."""
        size = largest_size(title, (LARGE, MEDIUM, SMALL), WIDTH - 4)
        self.draw.rectangle((0, 0, WIDTH - 1, 20), fill=1)
        self.text((WIDTH // 2, 10 - size // 2 - 1), title, size, align="center", max_width=WIDTH - 4, fill=0)

    def footer(self, hint: str) -> None:
        """A one-line hint at the bottom, above a thin rule (rows 51..63)."""
        self.draw.line((0, HEIGHT - 14, WIDTH - 1, HEIGHT - 14), fill=1)
        self.text((WIDTH // 2, HEIGHT - 13), hint, SMALL, align="center", max_width=WIDTH - 2)

    def inverted_row(self, y: int, height: int) -> None:
        """A filled band (a selected menu row, a marked card)."""
        self.draw.rectangle((0, y, WIDTH - 1, y + height - 1), fill=1)

    def frame(self) -> None:
        self.draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), outline=1)


def scaled(image: Image.Image, factor: int = 4) -> Image.Image:
    """A nearest-neighbour enlargement (for the docs and desktop windows)."""
    return image.convert("L").resize((image.width * factor, image.height * factor), Image.NEAREST)


def wrap(text: str, size: int, max_width: int, max_lines: int) -> list[str]:
    """Break ``text`` into at most ``max_lines`` lines that fit ``max_width``.

    Words longer than a line are cut with an ellipsis; when the text needs
    more lines, the last line ends with an ellipsis.
    """
    lines: list[str] = []
    words = text.split()
    current = ""
    for i, word in enumerate(words):
        candidate = f"{current} {word}".strip()
        if text_width(candidate, size) <= max_width:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = word
        if len(lines) == max_lines:
            break
    else:
        if current:
            lines.append(current)
        return [ellipsize(line, size, max_width) for line in lines]
    # Ran out of lines: end the last one with an ellipsis.
    last = lines[max_lines - 1] + " " + " ".join(words[i:])
    lines[max_lines - 1] = ellipsize(last, size, max_width)
    if lines[max_lines - 1] == last:  # pragma: no cover - cannot fit by construction
        lines[max_lines - 1] = ellipsize(last + ELLIPSIS, size, max_width)
    return [ellipsize(line, size, max_width) for line in lines[:max_lines]]


def first_fitting(candidates: list[str], size: int, max_width: int) -> str:
    """The first of ``candidates`` (longest wording first) that fits, else the last one."""
    for text in candidates:
        if text_width(text, size) <= max_width:
            return text
    return candidates[-1]


ROTATE_TICKS = 12  # marquee ticks each item of a rotating line stays shown


def rotating_slot(items: list[str], size: int, max_width: int, tick: int | None,
                  sep: str = " · ") -> tuple[str, int | None]:
    """One line for several short texts, and the tick to scroll it by.

    All of them when they fit together (scrolled by ``tick``), else one at a
    time, marked "(1/2)" where that still fits: each stays shown
    :data:`ROTATE_TICKS` ticks, or, when it is too long for the line, still
    from its start for half of that and then scrolled through once (the tick
    returned counts from when it came, so a long text is never first seen
    from its middle). The first one without a tick."""
    items = [i for i in items if i]
    if not items:
        return "", tick
    joined = sep.join(items)
    if len(items) == 1 or text_width(joined, size) <= max_width:
        return joined, tick
    shown = []
    for k, item in enumerate(items):
        marked = f"{item} ({k + 1}/{len(items)})"
        shown.append(marked if text_width(marked, size) <= max_width else item)
    if tick is None:
        return shown[0], None
    hold = ROTATE_TICKS // 2  # a long text is first shown still, from its start
    slots = [ROTATE_TICKS if text_width(t, size) <= max_width else hold + len(t + SCROLL_GAP) for t in shown]
    t = tick % sum(slots)
    for text, slot in zip(shown, slots):
        if t < slot:
            return text, (t if slot == ROTATE_TICKS else max(0, t - hold))
        t -= slot
    return shown[-1], 0  # not reached: t < sum(slots)


def largest_size(text: str, sizes: tuple[int, ...], max_width: int) -> int:
    """The first of ``sizes`` (largest first) at which ``text`` fits ``max_width``."""
    for size in sizes:
        if text_width(text, size) <= max_width:
            return size
    return sizes[-1]

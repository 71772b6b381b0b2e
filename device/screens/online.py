"""The table's network screens: the QR code of its live page, the club pairing code, the club status."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from device.i18n import N_, translator
from device.screens.draw import HEIGHT, LARGE, SMALL, WIDTH, Canvas, text_width, wrap

# Titles (the views carry these keys; the screen translates them).
TABLE_PAGE = N_("Table page")
CLUB_PAIRING = N_("Club pairing")
CLUB = N_("Club")


@dataclass(frozen=True)
class OnlineView:
    """A title, a few lines of text and, when ``qr`` is set, its QR code on the left."""

    title: str
    lines: tuple[str, ...] = ()
    qr: str | None = None
    big: str | None = None  # e.g. the pairing code, in large type


def qr_text(url: str) -> str:
    """A page URL as QR alphanumeric text: scheme and IP address are case-blind, and upper case
    packs "http://192.168.1.23:8080" into a version 1 code (21 modules: 2 pixels each on the OLED)."""
    return url.rstrip("/").upper() if url.isascii() else url


def qr_matrix(text: str) -> list[list[bool]]:
    """The QR code of ``text`` (a 2-module quiet zone included) as rows of dark modules."""
    import segno

    code = segno.make(qr_text(text), error="l", micro=False)
    return [[bool(m) for m in row] for row in code.matrix_iter(scale=1, border=2)]


def _url_lines(url: str, max_width: int) -> list[str]:
    """A URL cut where it fits (after "//", ":" or "/" when possible)."""
    rest = url.removeprefix("http://")
    lines, current = [], ""
    for ch in rest:
        if text_width(current + ch, SMALL) > max_width:
            lines.append(current)
            current = ""
        current += ch
    if current:
        lines.append(current)
    return lines


def render_online(view: OnlineView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    tr = translator(lang)
    c = Canvas()
    if view.qr is None:
        c.header(tr(view.title), scroll=tick)
        y = 16
        if view.big:
            c.text((WIDTH // 2, y), view.big, LARGE, align="center")
            y += 21
        for line in view.lines[: 4 - (2 if view.big else 0)]:
            c.text((2, y), line, SMALL, max_width=WIDTH - 4, scroll=tick)
            y += 12
        return c.image
    matrix = qr_matrix(view.qr)
    size = len(matrix)
    scale = max(1, HEIGHT // size)
    top = (HEIGHT - size * scale) // 2
    # the code is drawn light on dark, inverted: quiet zone white, modules black
    c.draw.rectangle((0, top, size * scale - 1, top + size * scale - 1), fill=1)
    for y, row in enumerate(matrix):
        for x, dark in enumerate(row):
            if dark:
                c.draw.rectangle((x * scale, top + y * scale, x * scale + scale - 1, top + y * scale + scale - 1),
                                 fill=0)
    left = size * scale + 3
    room = WIDTH - left - 1
    title = wrap(tr(view.title), SMALL, room, 2)
    y = 1
    for line in title:
        c.text((left, y), line, SMALL, max_width=room)
        y += 12
    y += 2
    for line in (list(view.lines) + _url_lines(view.qr, room))[: 5 - len(title)]:
        c.text((left, y), line, SMALL, max_width=room)
        y += 12
    return c.image

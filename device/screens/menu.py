"""The menu screen: a title and a list, the selected item inverted."""

from __future__ import annotations

from PIL import Image

from device.screens.draw import HEIGHT, SMALL, WIDTH, Canvas
from device.screens.views import MenuView

ROWS = (14, 26, 38, 50)
PITCH = 12
ARROW_W = 7


def visible_window(count: int, selected: int, rows: int = len(ROWS)) -> range:
    """The items shown: the selected one is kept on screen, one row from the edges when possible."""
    first = max(0, min(selected - 1, count - rows))
    return range(first, min(count, first + rows))


def _arrow(c: Canvas, y: int, up: bool) -> None:
    x = WIDTH - 5
    if up:
        c.draw.polygon(((x - 3, y + 3), (x + 3, y + 3), (x, y)), fill=1)
    else:
        c.draw.polygon(((x - 3, y), (x + 3, y), (x, y + 3)), fill=1)


def render_menu(view: MenuView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """Title band, up to four items, arrows when the list goes on above or below."""
    c = Canvas()
    c.header(view.title, view.hint)
    count = len(view.items)
    selected = max(0, min(view.selected, count - 1)) if count else 0
    window = visible_window(count, selected)
    scrolls = count > len(ROWS)
    room = WIDTH - 4 - (ARROW_W + 2 if scrolls else 0)
    for row, i in enumerate(window):
        y = ROWS[row]
        ink = 1
        if i == selected:
            c.draw.rectangle((0, y, WIDTH - 1 - (ARROW_W + 1 if scrolls else 0), y + PITCH - 1), fill=1)
            ink = 0
        mark_w = 0
        if i in view.marks:
            mark_w = c.text((room + 1, y), "✓", SMALL, align="right", max_width=12, fill=ink) + 3
        c.text((2, y), view.items[i], SMALL, max_width=room - mark_w, fill=ink,
               scroll=tick if (i == selected and tick is not None) else None)
    if scrolls and window.start > 0:
        _arrow(c, 15, up=True)
    if scrolls and window.stop < count:
        _arrow(c, HEIGHT - 5, up=False)
    return c.image

"""The end of a game: who won, after how many deals, and every total (ranked)."""

from __future__ import annotations

from PIL import Image

from device.i18n import N_, number, translator
from device.screens.draw import HEIGHT, SMALL, WIDTH, Canvas, text_width
from device.screens.views import GameOverView

PLAYED = {"deal": N_("{n} deals"), "game": N_("{n} games")}


def render_game_over(view: GameOverView, lang: str = "en", style: str = "french",
                     tick: int | None = None) -> Image.Image:
    """The winner in the title band (or "Tie"), then the players by total, the winner inverted."""
    tr = translator(lang)
    c = Canvas()
    if view.winner is None:
        title = tr(N_("Tie"))
    else:
        title = tr(N_("{name} wins")).format(name=view.players[view.winner])
    played = tr(PLAYED.get(view.unit, PLAYED["deal"])).format(n=view.deals)
    if text_width(title, SMALL) + text_width(played, SMALL) + 8 > WIDTH:
        played = ""  # the winner's name comes first; the count only where it fits
    c.header(title, played, scroll=tick)
    n = len(view.players)
    size, pitch, top = (SMALL, 12, 14) if n <= 4 else (9, 10, 14)
    ranked = sorted(range(n), key=lambda s: (-view.totals[s], s))
    for row, seat in enumerate(ranked):
        y = top + row * pitch
        if y + pitch > HEIGHT + 1:
            break
        ink = 1
        if seat == view.winner:
            c.inverted_row(y, pitch)
            ink = 0
        c.text((2, y), f"{row + 1}. {view.players[seat]}", size, max_width=86, fill=ink)
        c.text((WIDTH - 2, y), number(view.totals[seat], lang), size, align="right", max_width=38, fill=ink)
    return c.image

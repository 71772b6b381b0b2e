"""Trivium screens: the table (tercias, olla, Loco) and the big announcements."""

from __future__ import annotations

from PIL import Image

from device.i18n import N_, translator
from device.screens.draw import (BAND_HEIGHT, HEIGHT, HUGE, LARGE, ROW5_PITCH, SMALL, TINY, WIDTH, Canvas,
                                 rotating_slot)
from device.screens.labels import card_label
from device.screens.views import AnnouncementView, TriviumView

PITCH = 12
BOX_W, BOX_H, BOX_GAP = 7, 9, 3

LOCO_TEXT = {
    "unseen": N_("Loco: not seen"),
    "in_olla": N_("Loco: in the olla"),
    "wild": N_("Loco: wild for {seat}"),
    "stolen": N_("Loco: stolen by {seat}"),
}

CROSSED_BOX_TEXT = N_("⊠ not a valid tercia")
# a tercia being laid, of which the camera has seen some cards (one never seen: the menu's "Card not seen…")
LAYING_TEXT = N_("{seat} lays {cards}…")


def _tercia_boxes(c: Canvas, right: int, y: int, tercias, ink: int, laying: int = 0) -> int:
    """Three boxes, right-aligned at ``right``: filled = valid tercia, crossed = invalid; the
    box after them filled from the bottom by thirds for the cards seen of a tercia being laid.

    Returns the left edge of the boxes.
    """
    left = right - 3 * BOX_W - 2 * BOX_GAP
    for k in range(3):
        x0 = left + k * (BOX_W + BOX_GAP)
        box = (x0, y + 2, x0 + BOX_W - 1, y + 2 + BOX_H - 1)
        if k < len(tercias) and tercias[k].valid:
            c.draw.rectangle(box, fill=ink)
        else:
            c.draw.rectangle(box, outline=ink)
            if k < len(tercias):  # laid down but not a valid tercia
                c.draw.line(box, fill=ink)
                c.draw.line((box[0], box[3], box[2], box[1]), fill=ink)
            elif k == len(tercias) and laying:  # being laid: a third of the box a card seen
                height = round((BOX_H - 2) * min(laying, 3) / 3)
                c.draw.rectangle((box[0], box[3] - height, box[2], box[3]), fill=ink)
    return left


def render_trivium(view: TriviumView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """Each seat with its tercias (three boxes), the olla's top card, the Loco (and, in turn
    with it, the cards seen of a tercia being laid, so that a card never seen is noticed).

    Up to three seats use the normal type; four seats use a thin title band
    and smaller rows so that every name keeps its room.
    """
    tr = translator(lang)
    c = Canvas()
    top_card = card_label(view.olla_top, lang, style) if view.olla_top else "—"
    title, olla = tr(N_("Trivium")), tr(N_("Olla: {card}")).format(card=top_card)
    seats = view.seats[:4]
    if len(seats) <= 3:
        c.header(title, olla)
        size, pitch, first, rule, loco_y = SMALL, PITCH, 14, HEIGHT - 14, HEIGHT - 13
    else:
        c.band(title, olla)
        size, pitch, first, rule, loco_y = TINY, ROW5_PITCH, BAND_HEIGHT, 53, 53
    for i, seat in enumerate(seats):
        y = first + i * pitch
        ink = 1
        if i == view.current:
            c.draw.rectangle((0, y, WIDTH - 1, y + pitch - 1), fill=1)
            ink = 0
        boxes_left = _tercia_boxes(c, WIDTH - 4, y + (pitch - PITCH) // 2, seat.tercias, ink, len(seat.laying))
        c.text((2, y), seat.name, size, max_width=boxes_left - 6, fill=ink)
    loco = tr(LOCO_TEXT.get(view.loco, LOCO_TEXT["unseen"])).format(seat=view.loco_seat or "?")
    # A crossed box is explained on the bottom line, in turn with the Loco.
    crossed = any(not t.valid for seat in seats for t in seat.tercias)
    laying = [tr(LAYING_TEXT).format(seat=seat.name, cards=" ".join(seat.laying)) for seat in seats if seat.laying]
    line, line_tick = rotating_slot([loco, tr(CROSSED_BOX_TEXT) if crossed else "", *laying], size, WIDTH - 4, tick)
    c.draw.line((0, rule, WIDTH - 1, rule), fill=1)
    c.text((2, loco_y), line, size, max_width=WIDTH - 4, scroll=line_tick)
    return c.image


ANNOUNCEMENT_TITLES = {
    "trivium": N_("TRIVIUM!"),
    "cuadrivium": N_("CUADRIVIUM!"),
    "gran_cuadrivium": N_("GRAN CUADRIVIUM!"),
    "gran_maestre": N_("GRAN MAESTRE!"),
    "chelem": N_("CHELEM!"),
    "poignee": N_("POIGNÉE!"),
}


def render_announcement(view: AnnouncementView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """A full-screen announcement: the title, the points in large type, who."""
    tr = translator(lang)
    c = Canvas()
    title = tr(ANNOUNCEMENT_TITLES[view.kind]) if view.kind in ANNOUNCEMENT_TITLES else view.kind.replace("_", " ").upper()
    c.banner(title)
    if not view.valid:
        c.text((WIDTH // 2, 24), tr(N_("NOT VALID")), LARGE, align="center", max_width=WIDTH - 4)
    elif view.points is not None:
        c.text((WIDTH // 2, 20), str(view.points), HUGE, align="center", max_width=WIDTH - 4)
    c.text((WIDTH // 2, 50), view.seat, SMALL, align="center", max_width=WIDTH - 4, scroll=tick)
    return c.image

"""Camera and recognition screens: the camera's health, a lost camera, an uncertain card."""

from __future__ import annotations

from PIL import Image

from device.i18n import N_, number, translator
from device.screens.draw import SMALL, WIDTH, Canvas, first_fitting
from device.screens.labels import card_name, card_text
from device.screens.views import CameraLostView, CameraStatusView, ConfirmCardView

ROWS = (14, 26, 38, 50)
PITCH = 12

CAMERA_STATES = {
    "ok": N_("OK"),
    "starting": N_("starting"),
    "no_camera": N_("no camera"),
    "no_frames": N_("no frames"),
}


def percent(confidence: float) -> str:
    return f"{round(confidence * 100)}%"


def render_camera_status(view: CameraStatusView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """Camera state, frame rate, model, cards seen and the last card."""
    tr = translator(lang)
    c = Canvas()
    c.header(tr(N_("Camera")), tr(CAMERA_STATES.get(view.camera, view.camera)))
    c.text((2, ROWS[0]), tr(N_("{fps} frames/s")).format(fps=number(view.fps, lang, places=1)), SMALL)
    name = view.model or "—"
    short = name.split(" (")[0]  # "tarotmate-cards-v1 (efficientnet-lite0)": the name without the network
    model = first_fitting([tr(N_("Model: {name}")).format(name=name), tr(N_("Model: {name}")).format(name=short),
                           short], SMALL, WIDTH - 4)
    c.text((2, ROWS[1]), model, SMALL, scroll=tick)
    c.text((2, ROWS[2]), tr(N_("Cards seen: {n}")).format(n=view.cards_seen), SMALL)
    if view.last_card:
        conf = percent(view.confidence) if view.confidence is not None else ""
        conf_w = c.text((WIDTH - 2, ROWS[3]), conf, SMALL, align="right", max_width=30) if conf else 0
        room = WIDTH - 8 - conf_w
        c.text((2, ROWS[3]), card_text(view.last_card, lang, style, room, SMALL), SMALL, max_width=room)
    return c.image


CAMERA_PROBLEMS = {
    "no_camera": N_("It cannot be opened."),
    "no_frames": N_("It sends no pictures."),
    "failed": N_("It stopped with an error."),
    "ended": N_("The video has ended."),
}


def render_camera_lost(view: CameraLostView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """"Camera lost — retrying": what is wrong, and that the game goes on from the buttons."""
    tr = translator(lang)
    c = Canvas()
    if view.problem == "ended":
        c.header(tr(N_("No camera")))
    else:
        c.header(tr(N_("Camera lost")), tr(N_("{n} s")).format(n=view.seconds))
    c.text((2, ROWS[0]), tr(CAMERA_PROBLEMS.get(view.problem, CAMERA_PROBLEMS["failed"])), SMALL, scroll=tick)
    if view.problem != "ended":
        c.text((2, ROWS[1]), tr(N_("Retrying…")), SMALL, scroll=tick)
    c.text((2, ROWS[2]), tr(N_("Enter cards by hand:")), SMALL, scroll=tick)
    c.text((2, ROWS[3]), tr(N_("OK, then Correct a card")), SMALL, scroll=tick)
    return c.image


PLACE_TEXT = {
    "trick": N_("trick {n}"),
    "chien": N_("the chien"),
    "ecart": N_("the écart"),
    "olla": N_("the olla"),
}


def whose_card(view: ConfirmCardView, lang: str) -> str:
    """"Carmen · trick 4": who played the card and where it lies, as far as known."""
    tr = translator(lang)
    place = ""
    if view.place in PLACE_TEXT and (view.place != "trick" or view.trick is not None):
        place = tr(PLACE_TEXT[view.place]).format(n=view.trick)
    if view.seat and place:
        return tr(N_("{seat} · {place}")).format(seat=view.seat, place=place)
    if view.seat:
        return tr(N_("Played by {seat}")).format(seat=view.seat)
    return place[:1].upper() + place[1:]


def confirm_options(view: ConfirmCardView, lang: str, style: str) -> list[str]:
    """The choices of the confirm screen, in order: the card, its alternatives, "other"."""
    tr = translator(lang)
    return (
        ["✓ " + card_name(view.card, lang, style)]
        + [card_name(code, lang, style) for code in view.alternatives]
        + [tr(N_("Other card…"))]
    )


def render_confirm_card(view: ConfirmCardView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """"Check card": the seen card first, then the alternatives, then "Other card…". The
    camera's confidence in the title, but for a card it never saw (a missing card asked for:
    confidence 0), where a percentage would mean nothing. On a deck the card model cannot
    read (every card asked) the title says so instead of "Check card"."""
    tr = translator(lang)
    c = Canvas()
    title = tr(N_("Deck not read")) if view.unread else tr(N_("Check card"))
    c.header(title, percent(view.confidence) if view.confidence > 0 else "")
    rows = ROWS
    where = whose_card(view, lang)
    if where:  # whose card it is and where it lies, above the choices
        c.text((2, ROWS[0]), where, SMALL, max_width=WIDTH - 4, scroll=tick)
        c.draw.line((0, ROWS[1] - 1, WIDTH - 1, ROWS[1] - 1), fill=1)
        rows = ROWS[1:]
    options = confirm_options(view, lang, style)
    selected = max(0, min(view.selected, len(options) - 1))
    first = max(0, min(selected - 1, len(options) - len(rows)))
    for row, i in enumerate(range(first, min(len(options), first + len(rows)))):
        y = rows[row]
        ink = 1
        if i == selected:
            c.inverted_row(y, PITCH)
            ink = 0
        c.text((2, y), options[i], SMALL, max_width=WIDTH - 4, fill=ink, scroll=tick if i == selected else None)
    return c.image

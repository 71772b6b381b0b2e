"""Camera and recognition screens: the camera's health, a lost camera, an uncertain card."""

from __future__ import annotations

from PIL import Image

from device.i18n import N_, translator
from device.screens.draw import SMALL, WIDTH, Canvas
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
    c.text((2, ROWS[0]), tr(N_("{fps} frames/s")).format(fps=f"{view.fps:.1f}"), SMALL)
    c.text((2, ROWS[1]), tr(N_("Model: {name}")).format(name=view.model or "—"), SMALL, scroll=tick)
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


def confirm_options(view: ConfirmCardView, lang: str, style: str) -> list[str]:
    """The choices of the confirm screen, in order: the card, its alternatives, "other"."""
    tr = translator(lang)
    return (
        ["✓ " + card_name(view.card, lang, style)]
        + [card_name(code, lang, style) for code in view.alternatives]
        + [tr(N_("Other card…"))]
    )


def render_confirm_card(view: ConfirmCardView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """"Check card": the seen card first, then the alternatives, then "Other card…"."""
    tr = translator(lang)
    c = Canvas()
    title = tr(N_("Check card"))
    if view.seat:
        title = f"{title} · {view.seat}"
    c.header(title, percent(view.confidence))
    options = confirm_options(view, lang, style)
    selected = max(0, min(view.selected, len(options) - 1))
    first = max(0, min(selected - 1, len(options) - len(ROWS)))
    for row, i in enumerate(range(first, min(len(options), first + len(ROWS)))):
        y = ROWS[row]
        ink = 1
        if i == selected:
            c.inverted_row(y, PITCH)
            ink = 0
        c.text((2, y), options[i], SMALL, max_width=WIDTH - 4, fill=ink, scroll=tick if i == selected else None)
    return c.image

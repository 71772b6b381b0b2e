"""Deck enrollment screens: the card to show, keep it or not, cards too alike, the end.

The buttons (see :mod:`device.enroll.on_device`): OK keeps, back redoes, a long
OK skips the card, up shows the previous card again, a long back stops (the
progress is saved). In the review of two cards too alike, OK keeps them,
back shows both again, a long OK keeps every remaining pair.
"""

from __future__ import annotations

from PIL import Image

from device.i18n import N_, translator
from device.screens.draw import LARGE, MEDIUM, SMALL, WIDTH, Canvas, largest_size
from device.screens.labels import card_name
from device.screens.views import EnrollCardView, EnrollConfirmView, EnrollDoneView, EnrollReviewView

ROWS = (14, 26, 38, 50)
HINT_ROWS = (27, 39, 51)
BAR_TOP = 53
BAR_HEIGHT = 9

CAPTURE_TEXT = {
    "waiting": N_("Put it on the table"),
    "moving": N_("Hold still…"),
    "captured": N_("Captured {k}/{n}"),
    "remove": N_("Take the last card away"),
}
END_TEXT = {
    "building": N_("Saving the profile…"),
    "saved": N_("Profile saved"),
    "stopped": N_("Stopped: progress saved"),
}


def _progress(number: int, total: int) -> str:
    return f"{number}/{total}"


def _name_line(c: Canvas, code: str, lang: str, style: str, top: int, room: int, sizes, tick) -> int:
    """The card's name centred in the band starting at ``top`` ``room`` pixels high, in the largest type that fits."""
    name = card_name(code, lang, style)
    size = largest_size(name, sizes, WIDTH - 4)
    y = top + max(0, (room - size - 3) // 2)
    c.text((WIDTH // 2, y), name, size, align="center", max_width=WIDTH - 4, scroll=tick)
    return size


def render_enroll_card(view: EnrollCardView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """ "Show card 12/78", the card's name in large type, what the camera sees, the captures as a bar."""
    tr = translator(lang)
    c = Canvas()
    c.header(tr(N_("Show card")), _progress(view.number, view.total))
    _name_line(c, view.card, lang, style, 14, 22, (LARGE, MEDIUM, SMALL), tick)
    state = view.state if view.state in CAPTURE_TEXT else "waiting"
    if state == "captured" and view.captures == 0:
        state = "moving"
    text = tr(CAPTURE_TEXT[state]).format(k=view.captures, n=view.captures_needed)
    c.text((WIDTH // 2, 37), text, SMALL, align="center", max_width=WIDTH - 4)
    # the card's code at the bottom right (as printed in its corner), the captures beside it
    code_w = c.text((WIDTH - 2, 51), view.card, SMALL, align="right", max_width=30)
    _capture_bar(c, 2, WIDTH - 2 - code_w - 6, view.captures, view.captures_needed)
    return c.image


def _capture_bar(c: Canvas, left: int, right: int, done: int, needed: int) -> None:
    """One box per capture, filled once taken."""
    needed = max(1, needed)
    done = max(0, min(done, needed))
    gap = 3
    width = (right - left - gap * (needed - 1)) / needed
    for i in range(needed):
        x0 = round(left + i * (width + gap))
        x1 = round(left + i * (width + gap) + width) - 1
        c.draw.rectangle((x0, BAR_TOP, x1, BAR_TOP + BAR_HEIGHT - 1), outline=1, fill=1 if i < done else 0)


def render_enroll_confirm(view: EnrollConfirmView, lang: str = "en", style: str = "french",
                          tick: int | None = None) -> Image.Image:
    """The card captured: OK keeps it, back redoes it, a long OK skips it."""
    tr = translator(lang)
    c = Canvas()
    c.header(tr(N_("Keep it?")), _progress(view.number, view.total))
    _name_line(c, view.card, lang, style, 13, 14, (MEDIUM, SMALL), tick)
    hints = (tr(N_("OK: keep")), tr(N_("BACK: redo")), tr(N_("Hold OK: skip card")))
    for y, hint in zip(HINT_ROWS, hints):
        c.text((2, y), hint, SMALL, max_width=WIDTH - 4)
    return c.image


def render_enroll_review(view: EnrollReviewView, lang: str = "en", style: str = "french",
                         tick: int | None = None) -> Image.Image:
    """Two cards too alike and their similarity; OK keeps them, back shows both again."""
    tr = translator(lang)
    c = Canvas()
    c.header(tr(N_("Too alike")), f"{view.similarity:.3f}")
    for y, code in zip(ROWS, (view.first, view.second)):
        code_w = c.text((WIDTH - 2, y), code, SMALL, align="right", max_width=30)
        c.text((2, y), card_name(code, lang, style), SMALL, max_width=WIDTH - 8 - code_w, scroll=tick)
    c.draw.line((0, 38, WIDTH - 1, 38), fill=1)
    c.text((2, 39), tr(N_("OK: keep both")), SMALL, max_width=WIDTH - 4)
    c.text((2, 51), tr(N_("BACK: show again")), SMALL, max_width=WIDTH - 4)
    return c.image


def render_enroll_done(view: EnrollDoneView, lang: str = "en", style: str = "french",
                       tick: int | None = None) -> Image.Image:
    """The deck's name in the title, the cards enrolled and skipped, the pairs too alike, and whether the profile is saved."""
    tr = translator(lang)
    c = Canvas()
    c.header(view.deck, scroll=tick)
    c.text((2, ROWS[0]), tr(N_("Enrolled: {n}/{total}")).format(n=view.enrolled, total=view.total), SMALL)
    c.text((2, ROWS[1]), tr(N_("Skipped: {n}")).format(n=view.skipped), SMALL)
    if view.pairs:
        c.text((2, ROWS[2]), tr(N_("Too alike: {n} pairs")).format(n=view.pairs), SMALL)
    c.footer(tr(END_TEXT.get(view.state, END_TEXT["saved"])))
    return c.image


"""The camera check's words and its OLED screen: the worst problem first, the others by a key.

The codes come from :func:`vision.camera_check.check_frame` (worst first);
:data:`ADVICE` is what each asks the players to do (``tarotmate camera
check``, the live view), :data:`TITLES` its name on the OLED.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from device.i18n import N_, translator
from device.screens.draw import SMALL, WIDTH, Canvas, wrap

ADVICE = {
    "dim": N_("Too dark: light the table more."),
    "blur": N_("Out of focus: focus the camera on the table."),
    "glare": N_("Glare on the cards: move the lamp or the camera."),
    "cut": N_("Cards cut off at the picture's edge: centre the camera over the table."),
    "small_cards": N_("Cards too small: bring the camera closer to the table."),
    "tilted": N_("Camera tilted: aim it straight down at the table."),
    "noisy": N_("Grainy picture: more light on the table."),
    "no_card": N_("No card seen: lay a card face up in the middle."),
    "ok": N_("The picture is good."),
}

TITLES = {
    "dim": N_("Too dark"),
    "blur": N_("Out of focus"),
    "glare": N_("Glare"),
    "cut": N_("Cards cut off"),
    "small_cards": N_("Cards too small"),
    "tilted": N_("Camera tilted"),
    "noisy": N_("Grainy picture"),
    "no_card": N_("No card seen"),
    "ok": N_("Picture OK"),
}


def advice_texts(lang: str = "en") -> dict[str, str]:
    """Every advice code's words in ``lang``."""
    tr = translator(lang)
    return {code: tr(text) for code, text in ADVICE.items()}


@dataclass(frozen=True)
class CameraCheckView:
    """The camera check's advice codes (worst first, or ``("ok",)``) and the one shown."""

    advice: tuple[str, ...] = ("ok",)
    shown: int = 0


def render_camera_check(view: CameraCheckView, lang: str = "en", style: str = "french",
                        tick: int | None = None) -> Image.Image:
    """"Camera check  1/3", the problem's name, what to do, and the key to the next one."""
    tr = translator(lang)
    codes = view.advice or ("ok",)
    i = max(0, min(view.shown, len(codes) - 1))
    code = codes[i]
    c = Canvas()
    c.header(tr(N_("Camera check")), f"{i + 1}/{len(codes)}" if len(codes) > 1 else "")
    c.text((2, 14), tr(TITLES.get(code, code)), SMALL, max_width=WIDTH - 4)
    text = tr(ADVICE.get(code, code))
    text = text.split(": ", 1)[1] if ": " in text else text  # the title says the first part
    text = text[:1].upper() + text[1:]
    for row, line in enumerate(wrap(text, SMALL, WIDTH - 4, 2)):
        c.text((2, 26 + 12 * row), line, SMALL, max_width=WIDTH - 4)
    hint = tr(N_("▼ next · OK: play")) if len(codes) > 1 else tr(N_("OK: play"))
    c.text((2, 51), hint, SMALL, max_width=WIDTH - 4)
    return c.image

"""The engines' reasons in the screen's language.

A reason (:class:`engine.reasons.Reason`) is a message id, the English
template, with arguments. Here the template goes through the catalogue of the
language, and each argument is shown as a player at the table reads it: a seat
as the player's name, a card as its compact label, a contract, a phase, a
poignée level or a court rank as its word in the language.
"""

from __future__ import annotations

from typing import Any, Sequence

from device.i18n import N_, translator
from device.screens.labels import BID_NAMES, card_label
from engine.reasons import Reason, kind_of

WORDS = {
    # phases of a French tarot deal
    "bidding": N_("bidding"), "calling": N_("calling"), "chien": N_("chien"), "ecart": N_("écart"),
    "play": N_("play"), "done": N_("done"), "redeal": N_("redeal"),
    # poignée levels
    "simple": N_("single"), "double": N_("double"), "triple": N_("triple"),
    # court ranks
    "Jack": N_("Jack"), "Knight": N_("Knight"), "Queen": N_("Queen"), "King": N_("King"),
    # suits, as the evidence of a violation names them ("trumped on hearts")
    "spades": N_("spades"), "hearts": N_("hearts"), "diamonds": N_("diamonds"), "clubs": N_("clubs"),
    "trumps": N_("trumps"), "the Excuse": N_("the Excuse"),
}


def reason_text(why: Reason, lang: str, style: str, names: Sequence[str] = ()) -> str:
    """``why`` as a sentence in ``lang``: "Carmen : S02 a déjà été joué au pli 1 par Ana"."""
    tr = translator(lang)

    def value(name: str, arg: Any) -> str:
        kind = kind_of(name)
        if kind == "seat" and isinstance(arg, int) and not isinstance(arg, bool):
            return names[arg] if 0 <= arg < len(names) else tr(N_("seat {n}")).format(n=arg)
        if kind == "card" and isinstance(arg, str):
            return _label(arg, lang, style)
        if kind == "cards" and not isinstance(arg, str):
            return ", ".join(_label(c, lang, style) for c in arg)
        if kind == "word" and isinstance(arg, str):
            if arg in BID_NAMES:  # "garde ne couvre pas prise"
                return tr(BID_NAMES[arg]).lower()
            return tr(WORDS[arg]) if arg in WORDS else arg
        return str(arg)

    return why.render(value, tr)


def _label(code: str, lang: str, style: str) -> str:
    try:
        return card_label(code, lang, style)
    except ValueError:  # not a card code after all: as the engine gave it
        return code

"""Translated words the screens and menus share: contracts, bids, suits, cards (the names of the games are
their :attr:`device.app.registry.Game.title`)."""

from __future__ import annotations

from engine import card_names
from engine.cards import card
from device.i18n import N_, translator

CONTRACT_NAMES = {
    "prise": N_("Prise"),
    "petite": N_("Prise"),
    "garde": N_("Garde"),
    "garde_sans": N_("Garde sans"),
    "garde_contre": N_("Garde contre"),
}
BID_NAMES = {"pass": N_("Pass"), **CONTRACT_NAMES}
POIGNEE_NAMES = {
    "simple": N_("Single poignée"),
    "double": N_("Double poignée"),
    "triple": N_("Triple poignée"),
}
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def contract_name(key: str, lang: str) -> str:
    return translator(lang)(CONTRACT_NAMES.get(key, key))


def bid_name(key: str, lang: str) -> str:
    return translator(lang)(BID_NAMES.get(key, key))


def card_name(code: str, lang: str, style: str) -> str:
    """The full display name (``Roi de Cœur``, ``Rey de Copas``)."""
    return card_names.name(code, lang, style)


def card_label(code: str, lang: str, style: str) -> str:
    """A compact label for lists and tricks.

    French suits use the suit symbol (``R♥``, ``10♣``); Spanish/tarot suits
    use the index letters of :func:`engine.card_names.short_name`.
    """
    c = card(code)
    short = card_names.short_name(c, lang, style)
    if style == "french" and c.is_suit_card:
        return short[:-2] + SUIT_SYMBOLS[c.suit]  # the suit index is two letters
    return short


def suit_name(suit: str, lang: str, style: str) -> str:
    """A suit's display name (``Hearts``, ``Cœur``, ``Copas``), as in the card names.

    ``"T"`` gives the word for trumps.
    """
    if suit == "T":
        return translator(lang)(N_("Trumps"))
    ace = card_names.name(suit + "01", lang, style)  # "Ace of Hearts", "As de Copas"
    return ace.split(" of " if lang == "en" else " de ", 1)[1]


def card_text(code: str, lang: str, style: str, max_width: int, size: int) -> str:
    """The full name if it fits ``max_width`` at ``size``, else the compact label."""
    from device.screens.draw import text_width

    full = card_name(code, lang, style)
    return full if text_width(full, size) <= max_width else card_label(code, lang, style)

"""Display names of the cards, per language and suit style.

The rules never use these; the screens and the command line do.

* ``style="french"``: French suits (pique, cœur, carreau, trèfle).
* ``style="tarot"``: Spanish / Rider-Waite-Smith suits (espadas, copas, oros,
  bastos; swords, cups, pentacles, wands).

Suit letters map as S = spades/swords, H = hearts/cups,
D = diamonds/coins/pentacles, C = clubs/wands/batons.
"""

from __future__ import annotations

from engine.cards import Card, card

LANGUAGES = ("en", "fr", "es")
STYLES = ("french", "tarot")

_SUITS = {
    ("en", "french"): {"S": "Spades", "H": "Hearts", "D": "Diamonds", "C": "Clubs"},
    ("en", "tarot"): {"S": "Swords", "H": "Cups", "D": "Pentacles", "C": "Wands"},
    ("fr", "french"): {"S": "Pique", "H": "Cœur", "D": "Carreau", "C": "Trèfle"},
    ("fr", "tarot"): {"S": "Épées", "H": "Coupes", "D": "Deniers", "C": "Bâtons"},
    ("es", "french"): {"S": "Picas", "H": "Corazones", "D": "Diamantes", "C": "Tréboles"},
    ("es", "tarot"): {"S": "Espadas", "H": "Copas", "D": "Oros", "C": "Bastos"},
}

_COURTS = {
    ("en", "french"): {11: "Jack", 12: "Knight", 13: "Queen", 14: "King"},
    ("en", "tarot"): {11: "Page", 12: "Knight", 13: "Queen", 14: "King"},
    ("fr", "french"): {11: "Valet", 12: "Cavalier", 13: "Dame", 14: "Roi"},
    ("fr", "tarot"): {11: "Valet", 12: "Cavalier", 13: "Reine", 14: "Roi"},
    ("es", "french"): {11: "Sota", 12: "Caballo", 13: "Reina", 14: "Rey"},
    ("es", "tarot"): {11: "Sota", 12: "Caballo", 13: "Reina", 14: "Rey"},
}

# Short index letters, as printed in the card corners, except where a corner
# letter would read as something else: the English Knight is "Kn" (a "C" reads
# as Clubs) and an ace is "A"/"As" (a "1" does not say "Ace of ...").
_COURT_INDEX = {
    "en": {11: "J", 12: "Kn", 13: "Q", 14: "K"},
    "fr": {11: "V", 12: "C", 13: "D", 14: "R"},
    "es": {11: "S", 12: "C", 13: "Ra", 14: "R"},
}
_ACE_INDEX = {"en": "A", "fr": "As", "es": "As"}
_SUIT_INDEX = {
    ("en", "french"): {"S": "Sp", "H": "He", "D": "Di", "C": "Cl"},
    ("en", "tarot"): {"S": "Sw", "H": "Cu", "D": "Pe", "C": "Wa"},
    ("fr", "french"): {"S": "Pi", "H": "Co", "D": "Ca", "C": "Tr"},
    ("fr", "tarot"): {"S": "Ep", "H": "Cp", "D": "De", "C": "Ba"},
    ("es", "french"): {"S": "Pi", "H": "Co", "D": "Di", "C": "Tr"},
    ("es", "tarot"): {"S": "Es", "H": "Cp", "D": "Or", "C": "Ba"},
}

_ROMAN = [
    (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
]


def roman(n: int) -> str:
    out = []
    for value, letters in _ROMAN:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)


def _check(lang: str, style: str) -> None:
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: expected one of {', '.join(LANGUAGES)}")
    if style not in STYLES:
        raise ValueError(f"unknown card style {style!r}: expected one of {', '.join(STYLES)}")


def name(c: Card | str, lang: str = "en", style: str = "french") -> str:
    """Full name, e.g. ``Roi de Cœur``, ``Rey de Copas``, ``7 of Hearts``."""
    _check(lang, style)
    c = card(c)
    if c.is_excuse:
        return {
            ("en", "french"): "Excuse", ("en", "tarot"): "The Fool",
            ("fr", "french"): "Excuse", ("fr", "tarot"): "Le Mat",
            ("es", "french"): "Excusa", ("es", "tarot"): "El Loco",
        }[(lang, style)]
    if c.is_trump:
        if style == "tarot":
            return {"en": "Trump {r}", "fr": "Atout {r}", "es": "Arcano {r}"}[lang].format(
                r=roman(c.rank)
            )
        if c.rank == 1 and lang == "fr":
            return "Petit"
        return {"en": "Trump {n}", "fr": "{n} d'atout", "es": "Triunfo {n}"}[lang].format(n=c.rank)
    suit = _SUITS[(lang, style)][c.suit]  # type: ignore[index]
    if c.rank >= 11:
        rank = _COURTS[(lang, style)][c.rank]
    elif c.rank == 1:
        rank = {"en": "Ace", "fr": "As", "es": "As"}[lang]
    else:
        rank = str(c.rank)
    if lang == "en":
        return f"{rank} of {suit}"
    if lang == "fr":
        return f"{rank} de {suit}"
    return f"{rank} de {suit}"


def short_name(c: Card | str, lang: str = "en", style: str = "french") -> str:
    """A compact label of at most 5 characters for small screens, e.g. ``R Co``, ``T21``."""
    _check(lang, style)
    c = card(c)
    if c.is_excuse:
        return {("en", "tarot"): "Fool", ("es", "french"): "Exc"}.get(
            (lang, style), {"en": "Exc", "fr": "Exc", "es": "Loco"}[lang]
        )
    if c.is_trump:
        return f"T{c.rank}"
    if c.rank >= 11:
        rank = _COURT_INDEX[lang][c.rank]
    elif c.rank == 1:
        rank = _ACE_INDEX[lang]
    else:
        rank = str(c.rank)
    return f"{rank}{_SUIT_INDEX[(lang, style)][c.suit]}"  # type: ignore[index]

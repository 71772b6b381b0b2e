"""Which namer names a deck's cards: the shipped card model, or an enrolled
deck's prototypes over that model's embeddings.

    namer = load_namer(deck=None)          # the shipped model (``default``)
    namer = load_namer(deck="my-marseille")  # an enrolled deck profile

:mod:`vision.namer` knows the ONNX model only and :mod:`vision.enroll` the
prototype heads; this module is the one place that knows both.
"""

from __future__ import annotations

from pathlib import Path

from engine.errors import TarotmateError
from vision.deck_profiles import list_profiles
from vision.enroll import load_deck_namer
from vision.namer import BUILTIN_ALIASES, DEFAULT_DECK, Namer


def available_decks() -> list[str]:
    """Deck names :func:`load_namer` accepts: ``default`` (the shipped model)
    plus the enrolled deck profiles (:mod:`vision.deck_profiles`)."""
    return [DEFAULT_DECK] + sorted({p.name for p in list_profiles()} - {DEFAULT_DECK})


def check_deck(deck: str | None) -> str:
    """``deck`` as :func:`load_namer` takes it (``default`` for the shipped model and its
    aliases); a name that is neither the model nor an enrolled profile is a one-line error."""
    deck = DEFAULT_DECK if not deck or deck in BUILTIN_ALIASES else deck
    if deck != DEFAULT_DECK and deck not in (decks := available_decks()):
        raise TarotmateError(f"unknown deck {deck!r}; available decks: {', '.join(decks)}")
    return deck


def load_namer(
    deck: str | None = None,
    models_dir: str | Path | None = None,
    threads: int = 1,
    threshold: float | None = None,
    at_table: bool = False,
):
    """The namer of ``deck``: ``None``, ``"default"`` or ``"builtin"`` for the shipped
    model (:meth:`vision.namer.Namer.load`); another name must be a deck profile
    (see :func:`available_decks`). ``threads`` and ``threshold`` as for the model; ``at_table``: a
    profile's namer for the tracker (:class:`vision.enroll.PrototypeNamer`), not for a still image."""
    deck = check_deck(deck)
    if deck == DEFAULT_DECK:
        return Namer.load(models_dir, threads=threads, threshold=threshold)
    return load_deck_namer(deck, base_namer=Namer.load(models_dir, threads=threads, threshold=threshold),
                           at_table=at_table)

"""The 78 tarot cards: codes, suits, ranks, points and oudlers.

Codes are the project's interchange vocabulary, shared by both games, the deal
records, the recognition model's labels and the device:

* trumps ``T01`` .. ``T21`` (``T01`` is the Petit, ``T21`` the Monde),
* the Excuse ``EX`` (El Loco in Trivium),
* suit cards ``S|H|D|C`` followed by ``01`` .. ``10``, ``J`` (valet/sota/page),
  ``N`` (cavalier/caballo/knight), ``Q`` (dame/reina/queen), ``K`` (roi/rey/king).

Display names live in :mod:`engine.card_names`; this module holds only facts
the rules need.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from engine.errors import UnknownCardError

SUITS = ("S", "H", "D", "C")
TRUMP = "T"
COURT_LETTERS = {"J": 11, "N": 12, "Q": 13, "K": 14}
_RANK_TO_LETTER = {v: k for k, v in COURT_LETTERS.items()}

# Card values in half points (the deck totals 182 half points = 91 points).
_HALF_POINTS_COURT = {11: 3, 12: 5, 13: 7, 14: 9}
TOTAL_HALF_POINTS = 182


@dataclass(frozen=True, slots=True)
class Card:
    """One of the 78 cards. Instances are unique: compare with ``==`` or ``is``.

    ``suit`` is one of ``S H D C`` for suit cards, ``T`` for trumps and
    ``None`` for the Excuse. ``rank`` is 1..14 for suit cards (J=11, N=12,
    Q=13, K=14), 1..21 for trumps and 0 for the Excuse.
    """

    code: str
    suit: str | None
    rank: int
    index: int  # position in DECK, also the recognition model's class index

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    @property
    def is_trump(self) -> bool:
        return self.suit == TRUMP

    @property
    def is_excuse(self) -> bool:
        return self.suit is None

    @property
    def is_suit_card(self) -> bool:
        return self.suit in SUITS

    @property
    def is_oudler(self) -> bool:
        return self.suit is None or (self.suit == TRUMP and self.rank in (1, 21))

    @property
    def is_king(self) -> bool:
        return self.is_suit_card and self.rank == 14

    @property
    def is_court(self) -> bool:
        """Jack (valet/sota), Knight, Queen or King."""
        return self.is_suit_card and self.rank >= 11

    @property
    def is_petit(self) -> bool:
        return self.suit == TRUMP and self.rank == 1

    @property
    def half_points(self) -> int:
        """French tarot value in half points (an oudler or King is 9)."""
        if self.is_oudler:
            return 9
        if self.is_court:
            return _HALF_POINTS_COURT[self.rank]
        return 1

    @property
    def points(self) -> float:
        """French tarot value in points (4.5 for an oudler or a King)."""
        return self.half_points / 2


def _make_deck() -> tuple[Card, ...]:
    codes: list[tuple[str, str | None, int]] = []
    for n in range(1, 22):
        codes.append((f"T{n:02d}", TRUMP, n))
    codes.append(("EX", None, 0))
    for suit in SUITS:
        for rank in range(1, 15):
            label = f"{rank:02d}" if rank <= 10 else _RANK_TO_LETTER[rank]
            codes.append((suit + label, suit, rank))
    return tuple(Card(code, suit, rank, i) for i, (code, suit, rank) in enumerate(codes))


DECK: tuple[Card, ...] = _make_deck()
"""All 78 cards in canonical order: T01..T21, EX, then S, H, D, C from 01 to K."""

BY_CODE: dict[str, Card] = {c.code: c for c in DECK}
CODES: tuple[str, ...] = tuple(c.code for c in DECK)
EXCUSE = BY_CODE["EX"]
PETIT = BY_CODE["T01"]
MONDE = BY_CODE["T21"]
OUDLERS = frozenset((PETIT, MONDE, EXCUSE))


def card(code: str | Card) -> Card:
    """The card for ``code``; raise UnknownCardError otherwise.

    The one rule for card codes, wherever they come from (the command line, a
    deal or Trivium record, a deck folder): letters in either case, spaces
    around ignored (``" h07"`` is ``H07``). Tarotmate always writes the
    canonical upper-case code (:attr:`Card.code`).
    """
    if isinstance(code, Card):
        return code
    if not isinstance(code, str):
        raise UnknownCardError(f"not a card code: {code!r}")
    found = BY_CODE.get(code.strip().upper())
    if found is None:
        raise UnknownCardError(
            f"unknown card code {code!r}: expected T01..T21, EX, or a suit letter "
            "S/H/D/C followed by 01..10, J, N, Q or K (e.g. H07, CK)"
        )
    return found


def cards(codes: Iterable[str | Card]) -> list[Card]:
    """Parse several codes, keeping their order."""
    return [card(c) for c in codes]


def parse_distinct(codes: Iterable[str | Card]) -> list[Card]:
    """Parse several codes and refuse a card given twice."""
    result = cards(codes)
    seen: set[Card] = set()
    for c in result:
        if c in seen:
            raise UnknownCardError(f"card {c.code} is given twice")
        seen.add(c)
    return result


def half_points(cs: Iterable[Card]) -> int:
    return sum(c.half_points for c in cs)


def sort_key(c: Card) -> tuple[int, int]:
    """Display order of a hand: trumps high to low, Excuse, then suits by rank."""
    if c.is_trump:
        return (0, -c.rank)
    if c.is_excuse:
        return (1, 0)
    return (2 + SUITS.index(c.suit), -c.rank)  # type: ignore[arg-type]

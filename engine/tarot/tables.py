"""Fixed facts of French tarot, precomputed for speed.

Inside the engine a card is its index in :data:`engine.cards.DECK` (an int
0..77: ``T01``..``T21`` are 0..20, the Excuse 21, then spades, hearts,
diamonds and clubs from the ace to the King). The public API speaks card codes;
these tables let the hot paths work on small ints.
"""

from __future__ import annotations

from typing import Iterable

from engine.cards import DECK, Card, card

N_CARDS = 78
EXCUSE = 21
PETIT = 0
MONDE = 20
TRUMP = 4  # suit number of trumps; suits are 0..3 (S H D C); the Excuse has 5
EXCUSE_SUIT = 5
SUIT_LETTERS = ("S", "H", "D", "C", "T", None)
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs", "trumps", "the Excuse")

SUIT = tuple(
    TRUMP if c.is_trump else EXCUSE_SUIT if c.is_excuse else "SHDC".index(c.suit)
    for c in DECK
)
RANK = tuple(c.rank for c in DECK)
HALF = tuple(c.half_points for c in DECK)
OUDLER = tuple(c.is_oudler for c in DECK)
CODE = tuple(c.code for c in DECK)
TRUMPS = frozenset(range(0, 21))
SUIT_CARDS = tuple(frozenset(i for i in range(N_CARDS) if SUIT[i] == s) for s in range(4))
ALL_SUIT_CARDS = frozenset().union(*SUIT_CARDS)
TRUMPS_ABOVE = tuple(frozenset(range(r, 21)) for r in range(22))
"""TRUMPS_ABOVE[r]: trumps of rank above r (index r.. since T(r+1) has index r)."""
KINGS = frozenset(i for i in range(N_CARDS) if RANK[i] == 14 and SUIT[i] < 4)
COURTS = frozenset(i for i in range(N_CARDS) if RANK[i] >= 11 and SUIT[i] < 4)

CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")
MULTIPLIER = {"prise": 1, "garde": 2, "garde_sans": 4, "garde_contre": 6}
BID_NAMES = ("pass",) + CONTRACTS
BID_ALIASES = {"petite": "prise", "passe": "pass"}
CONTRACT_LABEL = {"prise": "Prise", "garde": "Garde", "garde_sans": "Garde sans",
                  "garde_contre": "Garde contre"}

HAND_SIZE = {3: 24, 4: 18, 5: 15}
CHIEN_SIZE = {3: 6, 4: 6, 5: 3}
TARGETS = (56, 51, 41, 36)
POIGNEE_LEVELS = ("simple", "double", "triple")
POIGNEE_THRESHOLDS = {3: (13, 15, 18), 4: (10, 13, 15), 5: (8, 10, 13)}
POIGNEE_BONUS = {"simple": 20, "double": 30, "triple": 40}
MISERE_KINDS = ("atout", "tete")


INDEX_OF_CODE = {code: i for i, code in enumerate(CODE)}


def index_of(c: str | Card | int) -> int:
    """The engine's int for a card code, a Card or an int already."""
    found = INDEX_OF_CODE.get(c) if isinstance(c, str) else None
    if found is not None:
        return found
    if isinstance(c, int) and not isinstance(c, bool):
        if 0 <= c < N_CARDS:
            return c
        raise ValueError(f"card index out of range: {c}")
    return card(c).index


def indices(cs: Iterable[str | Card | int]) -> list[int]:
    return [index_of(c) for c in cs]


def codes(cs: Iterable[int]) -> list[str]:
    return [CODE[i] for i in cs]


def describe_suit(s: int) -> str:
    return SUIT_NAMES[s]


def trick_winner_index(cards: list[int], excuse_wins: bool = False) -> int:
    """Position in ``cards`` of the card that wins the trick.

    The highest trump, else the highest card of the suit of the first card
    that is not the Excuse. The Excuse never wins, unless ``excuse_wins``
    (the last trick of a chelem).
    """
    if excuse_wins and EXCUSE in cards:
        return cards.index(EXCUSE)
    best = -1
    best_key = -1
    led = -1
    for pos, c in enumerate(cards):
        s = SUIT[c]
        if s == EXCUSE_SUIT:
            continue
        if led < 0:
            led = s
        if s == TRUMP:
            key = 100 + RANK[c]
        elif s == led:
            key = RANK[c]
        else:
            continue
        if key > best_key:
            best_key, best = key, pos
    if best < 0:  # only the Excuse: cannot happen with 3 or more players
        return 0
    return best


def target_for(oudlers: int) -> int:
    return TARGETS[oudlers]

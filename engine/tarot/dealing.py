"""The deal itself: who deals, the cut, the packets, the chien, a misdeal.

FFT rules ("Direction, dealer, shuffle and cut" of the rules reference):

* play goes counter-clockwise; seat ``s + 1`` is the player to the right of
  seat ``s``, who bids first and leads the first trick when ``s`` deals;
* the first dealer is the player who draws the lowest card (trumps outrank
  suit cards, ties between suits are broken spades > hearts > diamonds >
  clubs, so the ace of clubs is the lowest card; the Excuse means drawing again);
* the player on the dealer's left cuts, and both parts of the cut hold more
  than 3 cards;
* the cards go out in packets (4 cards at 3 players, 3 at 4 and 5), starting
  with the player to the dealer's right, while the dealer puts cards into the
  chien one at a time; the first and the last card of the pack never go to
  the chien (ambiguity A11: only those two, as the FFT says);
* a misdeal is redealt by the same dealer; any other end of a deal (a deal
  played out, everyone passing, a petit sec) passes the deal to the right.

Positions in the pack are 0-based here: ``0`` is the first card dealt, ``77``
the last. Every function is pure and raises :class:`DealingError`, naming the
rule, for an argument the rules forbid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Iterable, Sequence

from engine.cards import Card, card
from engine.errors import TarotmateError

PACK_SIZE = 78
MIN_CUT_PART = 4
"""Each part of the cut holds more than 3 cards."""

PLAYERS = (3, 4, 5)
_PACKET = {3: 4, 4: 3, 5: 3}
_HAND = {3: 24, 4: 18, 5: 15}
_CHIEN = {3: 6, 4: 6, 5: 3}
_DRAW_SUIT_ORDER = {"C": 0, "D": 1, "H": 2, "S": 3}  # higher wins a tie of ranks


class DealingError(TarotmateError, ValueError):
    """A cut, a chien position, a pack or a draw that the dealing rules forbid."""


def _check_players(players: int) -> int:
    if isinstance(players, bool) or players not in PLAYERS:
        raise DealingError(f"players: French tarot is played by 3, 4 or 5, not {players!r}")
    return players


def _check_seat(seat: int, players: int, what: str) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise DealingError(f"{what}: expected a seat 0..{players - 1}, got {seat!r}")
    return seat


def packet_size(players: int) -> int:
    """Cards in each packet of the deal: 4 at 3 players, 3 at 4 and 5."""
    return _PACKET[_check_players(players)]


def hand_size(players: int) -> int:
    """Cards each player is dealt: 24, 18 or 15 for 3, 4 or 5 players."""
    return _HAND[_check_players(players)]


def chien_size(players: int) -> int:
    """Cards in the chien: 6 at 3 and 4 players, 3 at 5."""
    return _CHIEN[_check_players(players)]


def packets_per_player(players: int) -> int:
    """How many packets each player receives (6 at every table size but 5)."""
    return hand_size(players) // packet_size(players)


# --- who deals ---------------------------------------------------------------

def first_bidder(dealer: int, players: int) -> int:
    """The player to the dealer's right: bids first, gets the first packet,
    and leads the first trick unless a chelem is announced."""
    _check_players(players)
    return (_check_seat(dealer, players, "dealer") + 1) % players


def next_dealer(dealer: int, players: int, *, misdeal: bool = False) -> int:
    """Who deals next: the same dealer after a misdeal, else the player to the
    right (after a deal played out, everyone passing or a petit sec)."""
    _check_players(players)
    _check_seat(dealer, players, "dealer")
    return dealer if misdeal else (dealer + 1) % players


def draw_key(code: str | Card) -> tuple[int, int, int]:
    """Sort key of a card drawn to choose the first dealer (lowest deals).

    Trumps outrank suit cards; between suit cards the rank counts first, then
    the suit (spades > hearts > diamonds > clubs). The Excuse has no place in
    the draw: it raises, since its drawer draws again.
    """
    c = card(code)
    if c.is_excuse:
        raise DealingError("draw: the Excuse is drawn again, it does not count")
    if c.is_trump:
        return (1, c.rank, 0)
    return (0, c.rank, _DRAW_SUIT_ORDER[c.suit])  # type: ignore[index]


def first_dealer(draws: Sequence[str | Card]) -> int:
    """The seat (index in ``draws``) that drew the lowest card, who deals first.

    ``draws`` holds one card per player, in seat order: 3, 4 or 5 distinct cards,
    none of them the Excuse (whoever drew it draws again first).
    """
    cards = [card(c) for c in draws]
    _check_players(len(cards))
    if len(set(cards)) != len(cards):
        raise DealingError("draw: each player draws a different card")
    keys = [draw_key(c) for c in cards]
    return min(range(len(cards)), key=keys.__getitem__)


# --- the cut -----------------------------------------------------------------

def cut_range(pack_size: int = PACK_SIZE) -> range:
    """Where the pack may be cut: the number of cards lifted off the top, each
    part holding more than 3 cards (4..74 for the 78-card pack)."""
    return range(MIN_CUT_PART, pack_size - MIN_CUT_PART + 1)


def is_valid_cut(lifted: int, pack_size: int = PACK_SIZE) -> bool:
    """Whether lifting ``lifted`` cards leaves both parts with more than 3."""
    return not isinstance(lifted, bool) and isinstance(lifted, int) and lifted in cut_range(pack_size)


def cut(pack: Sequence[str], lifted: int) -> tuple[str, ...]:
    """The pack after the cut: the ``lifted`` top cards go under the rest.

    Position 0 is the top of the pack (the first card dealt).
    """
    if not is_valid_cut(lifted, len(pack)):
        raise DealingError(f"cut: each part must hold more than {MIN_CUT_PART - 1} cards; "
                           f"lifting {lifted!r} of {len(pack)} leaves "
                           f"{_parts(lifted, len(pack))}")
    return tuple(pack[lifted:]) + tuple(pack[:lifted])


def _parts(lifted: object, size: int) -> str:
    if isinstance(lifted, int) and not isinstance(lifted, bool) and 0 <= lifted <= size:
        return f"{lifted} and {size - lifted}"
    return "no valid cut"


# --- the chien ---------------------------------------------------------------

def chien_position_allowed(position: int, pack_size: int = PACK_SIZE) -> bool:
    """Whether the card at ``position`` (0-based) of the pack may go to the
    chien: any but the first and the last card."""
    return (not isinstance(position, bool) and isinstance(position, int)
            and 0 < position < pack_size - 1)


def allowed_chien_positions(pack_size: int = PACK_SIZE) -> range:
    """The positions of the pack that may go to the chien (1..76 of 0..77)."""
    return range(1, pack_size - 1)


def check_chien_positions(positions: Collection[int], players: int) -> frozenset[int]:
    """The positions as a set, once checked: as many as the chien holds,
    distinct, and never the first or the last card of the pack."""
    want = chien_size(players)
    as_list = list(positions)
    chosen = frozenset(as_list)
    if len(chosen) != len(as_list):
        raise DealingError("chien positions: each card goes to the chien once")
    if len(chosen) != want:
        raise DealingError(f"chien positions: the chien holds {want} cards at {players} players, "
                           f"got {len(chosen)} positions")
    for p in as_list:
        if not chien_position_allowed(p):
            if p in (0, PACK_SIZE - 1):
                which = "first" if p == 0 else "last"
                raise DealingError(f"chien positions: the {which} card of the pack (position {p}) "
                                   "may not go to the chien")
            raise DealingError(f"chien positions: expected positions 1..{PACK_SIZE - 2}, got {p!r}")
    return chosen


@dataclass(frozen=True, slots=True)
class DealtCards:
    """What a deal gives out: each seat's cards (in the order received) and the chien."""

    hands: tuple[tuple[str, ...], ...]
    chien: tuple[str, ...]

    def hand(self, seat: int) -> tuple[str, ...]:
        return self.hands[seat]


def deal_pack(pack: Sequence[str | Card], players: int, dealer: int,
              chien_positions: Iterable[int]) -> DealtCards:
    """Deal the 78-card ``pack`` (position 0 dealt first).

    The cards at ``chien_positions`` go to the chien; the others go out in
    packets of :func:`packet_size`, counter-clockwise from the player to the
    dealer's right (seat ``dealer + 1``), so each seat ends with
    :func:`hand_size` cards.
    """
    _check_players(players)
    _check_seat(dealer, players, "dealer")
    cards = [card(c).code for c in pack]
    if len(cards) != PACK_SIZE or len(set(cards)) != PACK_SIZE:
        raise DealingError(f"pack: expected the 78 different cards, got {len(cards)} cards, "
                           f"{len(set(cards))} different")
    to_chien = check_chien_positions(list(chien_positions), players)
    size = packet_size(players)
    hands: list[list[str]] = [[] for _ in range(players)]
    chien: list[str] = []
    dealt = 0  # cards given to players so far
    for position, code in enumerate(cards):
        if position in to_chien:
            chien.append(code)
            continue
        seat = (dealer + 1 + dealt // size) % players
        hands[seat].append(code)
        dealt += 1
    return DealtCards(tuple(tuple(h) for h in hands), tuple(chien))


__all__ = [
    "PACK_SIZE", "MIN_CUT_PART", "DealingError", "DealtCards", "packet_size", "hand_size",
    "chien_size", "packets_per_player", "first_bidder", "next_dealer", "draw_key",
    "first_dealer", "cut_range", "is_valid_cut", "cut", "chien_position_allowed",
    "allowed_chien_positions", "check_chien_positions", "deal_pack",
]

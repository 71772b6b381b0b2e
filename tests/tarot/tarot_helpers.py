"""Helpers for the French tarot tests: synthetic tricks and scripted deals."""

from __future__ import annotations

from engine.tarot import TarotDeal
from engine.tarot.operations import Bid, Ecart, Play, RevealChien
from engine.tarot.scoring import FinishedTrick
from engine.tarot.tables import CODE, HAND_SIZE, index_of

ALL_CODES = list(CODE)


def trick(leader: int, winner: int, cards: list[str], players: int) -> FinishedTrick:
    ints = tuple(index_of(c) for c in cards)
    seats = tuple((leader + i) % players for i in range(players))
    return FinishedTrick(leader, seats, ints, winner)


def chunk_tricks(players: int, winner: int, cards: list[str]) -> list[FinishedTrick]:
    """Tricks of ``players`` cards from ``cards``, all won (and led) by ``winner``."""
    assert len(cards) % players == 0, len(cards)
    return [trick(winner, winner, cards[i:i + players], players)
            for i in range(0, len(cards), players)]


def rest_of_deck(*taken: list[str]) -> list[str]:
    used = {c for group in taken for c in group}
    return [c for c in ALL_CODES if c not in used]


def play_out(deal: TarotDeal, cards: list[str]) -> TarotDeal:
    """Play ``cards`` in order, each by the seat whose turn it is."""
    for c in cards:
        deal.apply(Play(deal.to_play, c))
    return deal


def bid_to(deal: TarotDeal, taker: int, contract: str) -> TarotDeal:
    """Everyone passes except ``taker``, who bids ``contract``."""
    for _ in range(deal.players):
        seat = deal.to_speak
        deal.apply(Bid(seat, contract if seat == taker else "pass"))
    return deal


def take_chien(deal: TarotDeal, ecart: list[str] | None) -> TarotDeal:
    deal.apply(RevealChien())
    deal.apply(Ecart(None if ecart is None else tuple(ecart)))
    return deal


def hand_size(players: int) -> int:
    return HAND_SIZE[players]

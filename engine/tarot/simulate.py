"""Random complete deals, for the demo, the benchmarks and the property tests.

``random_deal(players, seed)`` shuffles, deals, bids, calls, makes a legal
écart, shows the poignées a player holds, and plays random legal cards to the
end. The same seed always gives the same deal.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.tarot.operations import (AnnounceChelem, Bid, CallCard, DeclarePoignee, Ecart,
                                     Play, RevealChien)
from engine.tarot.options import FFT, TarotOptions
from engine.tarot.state import TarotDeal
from engine.tarot.tables import (CHIEN_SIZE, CODE, CONTRACTS, EXCUSE, HAND_SIZE, KINGS, OUDLER,
                                 POIGNEE_LEVELS, POIGNEE_THRESHOLDS, SUIT, TRUMP)


@dataclass(frozen=True, slots=True)
class InjectedFault:
    """Where :func:`random_deal_with_revoke` made a seat play an illegal card."""

    trick: int
    seat: int
    card: str


def deal_cards(players: int, rng: random.Random) -> tuple[dict[int, list[int]], list[int]]:
    """Shuffle and deal: hands by seat and the chien (never petit sec)."""
    hand_size = HAND_SIZE[players]
    while True:
        deck = list(range(78))
        rng.shuffle(deck)
        hands = {s: sorted(deck[s * hand_size:(s + 1) * hand_size]) for s in range(players)}
        chien = sorted(deck[players * hand_size:])
        if not any(_petit_sec(h) for h in hands.values()):
            return hands, chien


def _petit_sec(hand: list[int]) -> bool:
    trumps = [c for c in hand if SUIT[c] == TRUMP]
    return trumps == [0] and EXCUSE not in hand


def _random_bids(players: int, dealer: int, rng: random.Random) -> list[tuple[int, str]]:
    weights = (50, 35, 10, 5)
    best = -1
    bids = []
    for k in range(players):
        seat = (dealer + 1 + k) % players
        if best < len(CONTRACTS) - 1 and (rng.random() < 0.35 or (k == players - 1 and best < 0)):
            choices = list(range(best + 1, len(CONTRACTS)))
            best = rng.choices(choices, weights=[weights[i] for i in choices])[0]
            bids.append((seat, CONTRACTS[best]))
        else:
            bids.append((seat, "pass"))
    return bids


def _choose_call(hand: set[int], rng: random.Random) -> int:
    for rank in (14, 13, 12, 11):
        cards = [22 + 14 * s + rank - 1 for s in range(4)]
        if not all(c in hand for c in cards) or rank == 11:
            return rng.choice(cards)
    raise AssertionError("unreachable")


def _choose_ecart(hand: set[int], size: int, rng: random.Random) -> list[int]:
    eligible = [c for c in sorted(hand) if SUIT[c] < TRUMP and c not in KINGS]
    if len(eligible) >= size:
        return rng.sample(eligible, size)
    trumps = [c for c in sorted(hand) if SUIT[c] == TRUMP and not OUDLER[c]]
    return eligible + rng.sample(trumps, size - len(eligible))


def _poignee_for(hand: set[int], players: int) -> DeclarePoignee | None:
    trumps = sorted((c for c in hand if SUIT[c] == TRUMP), reverse=True)
    count = len(trumps) + (1 if EXCUSE in hand else 0)
    for level, need in reversed(list(zip(POIGNEE_LEVELS, POIGNEE_THRESHOLDS[players]))):
        if len(trumps) >= need:
            return DeclarePoignee(0, level, tuple(CODE[c] for c in trumps[:need]))
        if count == need:  # the Excuse stands in for the missing trump
            return DeclarePoignee(0, level, tuple(CODE[c] for c in trumps) + ("EX",))
    return None


def random_deal(players: int, seed: int | None = None, *, options: TarotOptions = FFT,
                dealer: int | None = None, hidden: bool = False, poignee_rate: float = 0.5,
                chelem_rate: float = 0.0) -> TarotDeal:
    """A random complete deal played with legal cards.

    ``hidden=True`` builds the deal without hands (as at a real table), the
    plays still chosen legally from the hands dealt.
    """
    deal, _fault = _play(players, seed, options=options, dealer=dealer, hidden=hidden,
                         poignee_rate=poignee_rate, chelem_rate=chelem_rate, revoke_after=None)
    return deal


def random_deal_with_revoke(players: int, seed: int | None = None, *,
                            options: TarotOptions = FFT) -> tuple[TarotDeal, InjectedFault]:
    """A random deal, hands hidden, in which one play breaks the rules.

    From a random point of the deal, the first seat that has an illegal card
    to play plays it; every other play is legal. Returns the deal and where
    the fault was injected.
    """
    rng = random.Random(seed)
    while True:
        deal, fault = _play(players, rng.randrange(2 ** 32), options=options, dealer=None,
                            hidden=True, poignee_rate=0.0, chelem_rate=0.0,
                            revoke_after=rng.randrange(HAND_SIZE[players] * players - players))
        if fault is not None:
            return deal, fault


def _play(players: int, seed: int | None, *, options: TarotOptions, dealer: int | None,
          hidden: bool, poignee_rate: float, chelem_rate: float,
          revoke_after: int | None) -> tuple[TarotDeal, InjectedFault | None]:
    rng = random.Random(seed)
    if dealer is None:
        dealer = rng.randrange(players)
    hands, chien = deal_cards(players, rng)
    deal = TarotDeal(players, dealer, options,
                     hands=None if hidden else {s: [CODE[c] for c in h] for s, h in hands.items()},
                     chien=None if hidden else [CODE[c] for c in chien])
    held = {s: set(h) for s, h in hands.items()}
    for seat, bid in _random_bids(players, dealer, rng):
        deal.apply(Bid(seat, bid))
    taker = deal.taker
    assert taker is not None
    called = None
    if players == 5:
        called = _choose_call(held[taker], rng)
        deal.apply(CallCard(CODE[called]))
    if deal.phase == "chien":
        deal.apply(RevealChien(tuple(CODE[c] for c in chien)))
        held[taker] |= set(chien)
        ecart = _choose_ecart(held[taker], CHIEN_SIZE[players], rng)
        held[taker] -= set(ecart)
        deal.apply(Ecart(tuple(CODE[c] for c in ecart)))
    if chelem_rate and rng.random() < chelem_rate:
        deal.apply(AnnounceChelem())
    declared: set[int] = set()
    fault: InjectedFault | None = None
    step = 0
    while deal.phase == "play":
        seat = deal.to_play
        assert seat is not None
        if seat not in declared:
            declared.add(seat)
            p = _poignee_for(held[seat], players) if poignee_rate else None
            if p is not None and rng.random() < poignee_rate:
                deal.apply(DeclarePoignee(seat, p.level, p.shown))
        legal = deal.legal_among(held[seat])
        choice = None
        if revoke_after is not None and fault is None and step >= revoke_after:
            illegal = sorted(held[seat] - set(legal))
            if illegal:
                choice = rng.choice(illegal)
                fault = InjectedFault(deal.trick_number, seat, CODE[choice])
        if choice is None:
            choice = legal[rng.randrange(len(legal))] if len(legal) > 1 else legal[0]
        held[seat].discard(choice)
        deal.apply(Play(seat, CODE[choice]))
        step += 1
    return deal, fault


__all__ = ["random_deal", "random_deal_with_revoke", "InjectedFault", "deal_cards"]

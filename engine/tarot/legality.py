"""Which cards may be played to a trick.

Two views of the same rule, kept consistent by the tests:

* :func:`legal_cards` — with a known hand, exactly the playable set;
* :func:`forbidden_if_held` — for a card actually played, the cards whose
  possession would have made that play illegal. At a table where hands are
  hidden this is the evidence kept per seat: if the seat later plays one of
  those cards, the earlier play was illegal.

A play ``c`` is illegal exactly when the hand held some card of
``forbidden_if_held(c, ...)``; :func:`legal_cards` is the fast direct form.

The rules (FFT): follow the suit led; without it, trump; with a trump already
in the trick, overtrump it if you can (even a partner's), else play any trump;
discard only with neither the suit nor a trump. On a trump lead, beat the
highest trump of the trick if you can. The Excuse may always be played; if it
opens a trick, the next card sets the suit. Lead restrictions: 5 players, the
opening lead of the deal may not be in the called suit unless it is the called
card; the ``no_trump_lead_until_broken`` variant forbids leading a trump until
a trump has been played in an earlier trick, unless the hand has no suit card.
The Excuse is never forbidden, and never counts as "another card the player
could have led".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from engine.cards import Card, card
from engine.tarot.tables import (ALL_SUIT_CARDS, EXCUSE, EXCUSE_SUIT, RANK, SUIT,
                                 SUIT_CARDS, TRUMP, TRUMPS, TRUMPS_ABOVE, index_of)

_EMPTY: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class LeadRules:
    """Restrictions on the card that sets the suit of a trick.

    ``called_card``: the 5-player called card when this is the opening trick
    and the restriction applies to this lead (else None). ``no_trump_lead``:
    the variant is on and trumps are not yet broken.
    """

    called_card: int | None = None
    no_trump_lead: bool = False


NO_LEAD_RULES = LeadRules()


def _led_suit_and_top_trump(trick: Sequence[int]) -> tuple[int, int]:
    """(suit set by the trick, rank of its highest trump), -1 / 0 when none."""
    led = -1
    top = 0
    for c in trick:
        s = SUIT[c]
        if s == EXCUSE_SUIT:
            continue
        if led < 0:
            led = s
        if s == TRUMP and RANK[c] > top:
            top = RANK[c]
    return led, top


def legal_plays(hand: Iterable[int], trick: Sequence[int],
                lead: LeadRules = NO_LEAD_RULES) -> list[int]:
    """The playable cards (ints) of a known ``hand`` on ``trick`` (ints so far)."""
    hand = list(hand)
    led, top = _led_suit_and_top_trump(trick)
    if led < 0:
        return _legal_leads(hand, lead)
    if led != TRUMP:
        follow = [c for c in hand if SUIT[c] == led]
        if follow:
            if EXCUSE in hand:
                follow.append(EXCUSE)
            return follow
    trumps = [c for c in hand if SUIT[c] == TRUMP]
    if not trumps:
        return hand
    higher = [c for c in trumps if RANK[c] > top]
    result = higher or trumps
    if EXCUSE in hand:
        result.append(EXCUSE)
    return result


def _legal_leads(hand: list[int], lead: LeadRules) -> list[int]:
    result = hand
    called = lead.called_card
    if called is not None:
        called_suit = SUIT[called]
        others = [c for c in result if c != EXCUSE and (SUIT[c] != called_suit or c == called)]
        if others:
            result = others + ([EXCUSE] if EXCUSE in hand else [])
    if lead.no_trump_lead:
        if any(SUIT[c] < TRUMP for c in result):
            result = [c for c in result if SUIT[c] != TRUMP]
    return result


def forbidden_if_held(played: int, trick: Sequence[int],
                      lead: LeadRules = NO_LEAD_RULES) -> frozenset[int]:
    """Cards whose possession would have made playing ``played`` on ``trick`` illegal."""
    if played == EXCUSE:
        return _EMPTY
    s = SUIT[played]
    led, top = _led_suit_and_top_trump(trick)
    if led < 0:  # this card sets the suit
        forbidden: set[int] = set()
        called = lead.called_card
        restricted_suit = -1
        if called is not None:
            restricted_suit = SUIT[called]
            if s == restricted_suit and played != called:
                return frozenset(c for c in range(78)
                                 if c != EXCUSE and (SUIT[c] != restricted_suit or c == called))
        if lead.no_trump_lead and s == TRUMP:
            forbidden = set(ALL_SUIT_CARDS)
            if restricted_suit >= 0:
                forbidden -= SUIT_CARDS[restricted_suit] - {called}
            return frozenset(forbidden)
        return _EMPTY
    if led != TRUMP and s == led:
        return _EMPTY
    if s == TRUMP:
        under = TRUMPS_ABOVE[top] if RANK[played] < top else _EMPTY
        if led == TRUMP:
            return under
        return SUIT_CARDS[led] | under
    # a discard: neither the suit led nor a trump
    if led == TRUMP:
        return TRUMPS
    return SUIT_CARDS[led] | TRUMPS


def legal_cards(hand: Iterable[str | Card | int], trick: Sequence[str | Card | int] = (), *,
                called_card: str | Card | None = None, opening_lead: bool = False,
                trumps_broken: bool = True, no_trump_lead_until_broken: bool = False,
                ) -> list[Card]:
    """The cards of ``hand`` that may be played on ``trick`` (cards in play order).

    ``called_card`` with ``opening_lead=True`` applies the 5-player rule on the
    deal's first lead; ``no_trump_lead_until_broken`` with
    ``trumps_broken=False`` applies the Michelsen variant. Cards are returned in
    the order of ``hand``.
    """
    h = [index_of(c) for c in hand]
    t = [index_of(c) for c in trick]
    lead = LeadRules(
        called_card=index_of(called_card) if (called_card is not None and opening_lead) else None,
        no_trump_lead=no_trump_lead_until_broken and not trumps_broken,
    )
    from engine.cards import DECK
    return [DECK[i] for i in legal_plays(h, t, lead)]


def is_legal(card_played: str | Card, hand: Iterable[str | Card], trick: Sequence[str | Card] = (),
             **kwargs) -> bool:
    """Whether ``card_played`` may be played from ``hand`` on ``trick``."""
    return card(card_played) in legal_cards(hand, trick, **kwargs)

"""What the cards have proven about hidden hands, and the violations it shows.

At a real table the device sees only the cards played. Each play is a piece
of evidence: a seat that trumped on hearts had no heart; a seat that played
T05 under T12 had no trump above T12; a seat that discarded had neither the
suit nor a trump. The seat holds, from then on, none of the cards
:func:`~engine.tarot.legality.forbidden_if_held` names for that play — until
it plays one: then the earlier play was illegal and a :class:`Violation` is
reported at the earlier trick, the moment the later card proves it.

Because every card a seat plays was in its hand since the deal, this is exact:
at the end of a complete deal it finds the same violations as replaying the
tricks with the hands rebuilt from the plays (:func:`audit_tricks`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from engine.reasons import Reason
from engine.tarot.legality import LeadRules, forbidden_if_held, legal_plays
from engine.tarot.tables import (CODE, EXCUSE_SUIT, RANK, SUIT, SUIT_CARDS, SUIT_NAMES,
                                 TRUMP, TRUMPS)


BEFORE_PLAY = 1  # the trick number of a violation decided before the first card


@dataclass(frozen=True, slots=True)
class Violation:
    """An illegal play (or announcement) proven by the cards.

    ``trick`` counts from 1, as players say them (deal-record.md): what is
    decided before the first card (the écart, the call) is reported at trick 1
    (:data:`BEFORE_PLAY`), its ``rule`` telling it apart. ``seat`` counts from
    0; ``rule`` is a short name (``follow_suit``, ``must_trump``,
    ``must_overtrump``, ``lead_out_of_turn``, ``no_trump_lead``,
    ``called_suit_lead``, ``poignee``, ``misere``, ``ecart``, ``call``).
    ``evidence`` is the proof in English (records, ``replay --json``); ``why``
    the same as a :class:`~engine.reasons.Reason`, for a screen in any
    language (None for a violation read back from a record).
    """

    trick: int
    seat: int
    rule: str
    evidence: str
    why: Reason | None = field(default=None, compare=False, repr=False)

    @classmethod
    def proven(cls, trick: int, seat: int, rule: str, why: Reason) -> "Violation":
        """A violation whose proof is ``why`` (its English sentence the ``evidence``)."""
        return cls(trick, seat, rule, str(why), why)

    def to_dict(self) -> dict[str, Any]:
        return {"trick": self.trick, "seat": self.seat, "rule": self.rule,
                "evidence": self.evidence}

    def __str__(self) -> str:
        return f"trick {self.trick}, seat {self.seat}: {self.rule}: {self.evidence}"


@dataclass(slots=True)
class Constraint:
    """From ``trick`` on, the seat held none of ``forbidden`` (or ``what`` was illegal)."""

    trick: int
    forbidden: frozenset[int]
    rule_if_suit: str
    rule_if_trump: str
    what: Reason
    reported: bool = False
    violation: Violation | None = None   # as reported

    def rule_for(self, card: int) -> str:
        return self.rule_if_trump if SUIT[card] == TRUMP else self.rule_if_suit


def play_constraint(card: int, trick: Sequence[int], trick_no: int,
                    lead: LeadRules) -> Constraint | None:
    """The evidence a play gives, or None when it proves nothing."""
    forbidden = forbidden_if_held(card, trick, lead)
    if not forbidden:
        return None
    led = next((SUIT[c] for c in trick if SUIT[c] != EXCUSE_SUIT), -1)
    code = CODE[card]
    if led < 0:
        if SUIT[card] == TRUMP:
            return Constraint(trick_no, forbidden, "no_trump_lead", "no_trump_lead",
                              Reason("led {card} before trumps were broken", {"card": code}))
        return Constraint(trick_no, forbidden, "called_suit_lead", "called_suit_lead",
                          Reason("led {card} in the called suit at the opening lead", {"card": code}))
    top = max((RANK[c] for c in trick if SUIT[c] == TRUMP), default=0)
    if led == TRUMP:
        if SUIT[card] == TRUMP:
            return Constraint(trick_no, forbidden, "must_overtrump", "must_overtrump",
                              Reason("played {card} under {top_card}", {"card": code, "top_card": f"T{top:02d}"}))
        return Constraint(trick_no, forbidden, "must_trump", "must_trump",
                          Reason("discarded {card} on a trump lead", {"card": code}))
    suit = SUIT_NAMES[led]
    if SUIT[card] == TRUMP:
        what = (Reason("trumped on {suit} with {card} under {top_card}",
                       {"suit": suit, "card": code, "top_card": f"T{top:02d}"}) if RANK[card] < top
                else Reason("trumped on {suit}", {"suit": suit}))
        return Constraint(trick_no, forbidden, "follow_suit", "must_overtrump", what)
    return Constraint(trick_no, forbidden, "follow_suit", "must_trump",
                      Reason("discarded {card} on {suit}", {"card": code, "suit": suit}))


class Evidence:
    """The constraints proven so far for every seat, checked on each new play."""

    __slots__ = ("constraints", "corrections")

    def __init__(self, players: int) -> None:
        self.constraints: list[list[Constraint]] = [[] for _ in range(players)]
        # (reported, corrected): a violation first proven by a trump, whose rule a
        # card of the suit led later settles ("trumped on hearts under T12" then
        # T15: no overtrump, or no heart followed? H07 afterwards: follow_suit)
        self.corrections: list[tuple[Violation, Violation]] = []

    def add(self, seat: int, constraint: Constraint | None) -> None:
        if constraint is not None:
            self.constraints[seat].append(constraint)

    def check(self, seat: int, card: int, trick_no: int) -> list[Violation]:
        """Violations proven by ``seat`` playing ``card`` at ``trick_no``."""
        found = []
        for k in self.constraints[seat]:
            if card not in k.forbidden:
                continue
            if k.reported and not (k.violation is not None and SUIT[card] != TRUMP
                                   and k.violation.rule != k.rule_for(card)):
                continue
            v = Violation.proven(
                k.trick or BEFORE_PLAY, seat, k.rule_for(card),
                Reason("{what} at trick {trick} but played {card} at trick {later}",
                       {"what": k.what, "trick": k.trick, "card": CODE[card], "later": trick_no})
                if k.trick else Reason("{what} but played {card} at trick {later}",
                                       {"what": k.what, "card": CODE[card], "later": trick_no}),
            )
            if k.violation is not None and k.reported:
                self.corrections.append((k.violation, v))
            else:
                found.append(v)
            k.reported = True
            k.violation = v
        return found


def proven_facts(constraints: Sequence[Constraint]) -> list[str]:
    """What a seat's plays have proven, in words ("no hearts since trick 4")."""
    voids: dict[int, int] = {}
    no_trump: int | None = None
    trump_cap: tuple[int, int] | None = None  # (highest trump possibly held, since trick)
    for k in constraints:
        if k.reported or k.rule_if_suit in ("poignee", "misere", "ecart"):
            continue
        for s in range(4):
            if SUIT_CARDS[s] <= k.forbidden and s not in voids:
                voids[s] = k.trick
        trumps = k.forbidden & TRUMPS
        if trumps == TRUMPS:
            if no_trump is None:
                no_trump = k.trick
        elif trumps:
            cap = min(trumps)  # the lowest forbidden trump's index is the cap's rank
            if trump_cap is None or cap < trump_cap[0]:
                trump_cap = (cap, k.trick)
    facts = [f"no {SUIT_NAMES[s]} since trick {t}" for s, t in sorted(voids.items(), key=lambda x: x[1])]
    if no_trump is not None:
        facts.append(f"no trump since trick {no_trump}")
    elif trump_cap is not None:
        facts.append(f"no trump above T{trump_cap[0]:02d} since trick {trump_cap[1]}")
    return facts


def audit_tricks(players: int, tricks: Sequence[tuple[int, Sequence[int], Sequence[int]]],
                 lead_rules: Sequence[Sequence[LeadRules]]) -> list[Violation]:
    """Exact audit of a complete deal: hands rebuilt from the plays.

    ``tricks``: (leader, seats, cards) per trick; ``lead_rules[i][j]``: the lead
    restrictions in force for the j-th card of trick i (only used when that
    card sets the suit). Returns the play violations, in trick order.
    """
    hands: list[set[int]] = [set() for _ in range(players)]
    order: list[list[int]] = [[] for _ in range(players)]
    for _, seats, cards in tricks:
        for s, c in zip(seats, cards):
            hands[s].add(c)
            order[s].append(c)
    found: list[Violation] = []
    for i, (_, seats, cards) in enumerate(tricks):
        for j, (s, c) in enumerate(zip(seats, cards)):
            legal = legal_plays(hands[s], cards[:j], lead_rules[i][j])
            if c not in legal:
                k = play_constraint(c, cards[:j], i + 1, lead_rules[i][j])
                assert k is not None
                later = [x for x in order[s] if x in k.forbidden and x in hands[s] and x != c]
                # holding the suit led, the rule broken is following it
                first = next((x for x in later if SUIT[x] != TRUMP), later[0]) if later else None
                found.append(Violation.proven(
                    i + 1, s, k.rule_for(first) if later else "illegal",
                    Reason("{what} at trick {trick} while holding {cards}",
                           {"what": k.what, "trick": i + 1, "cards": [CODE[x] for x in later]})))
            hands[s].discard(c)
    return found


__all__ = ["BEFORE_PLAY", "Violation", "Evidence", "Constraint", "play_constraint",
           "audit_tricks", "proven_facts"]

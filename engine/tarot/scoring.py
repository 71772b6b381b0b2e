"""Counting the cards and scoring a finished deal (FFT rules).

Pure functions on the finished tricks; cards are ints (see ``tables``).

* Card points are counted in half points (the deck is 182), so 3- and
  5-player totals ending in .5 are exact.
* The Excuse stays with its owner's side, which gives the trick's winner half
  a point (ambiguity A1: always, even if that side never takes a trick). At
  the last trick it goes to the trick's winner, except in a chelem: when its
  side took every earlier trick it wins the trick; when the attack takes every
  trick, the defence's Excuse stays with the defence (the FFT's example: a
  chelem without the Excuse counts 87).
* The unseen cards are the écart (prise, garde, garde sans: attack) or the
  chien (garde contre: defence).
* Win or loss is decided on the exact total; the half point goes to the
  winning side: ``diff`` is ``ceil(|points - target|)``.
* unit = ±(25 + diff) × multiplier ± petit au bout (10 × multiplier, to the
  side that takes the last trick) ± poignées (to the winning side, not
  multiplied) + chelem bonus (not multiplied).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from engine.tarot.options import FFT, TarotOptions
from engine.tarot.tables import (EXCUSE, HALF, MULTIPLIER, OUDLER, PETIT, POIGNEE_BONUS,
                                 TARGETS)


@dataclass(frozen=True, slots=True)
class FinishedTrick:
    leader: int
    seats: tuple[int, ...]
    cards: tuple[int, ...]
    winner: int


@dataclass(frozen=True, slots=True)
class DealResult:
    """The score of a finished deal, from the attack's side."""

    players: int
    taker: int
    partner: int | None
    contract: str
    multiplier: int
    attack_half_points: int
    attack_oudlers: int
    target: int
    won: bool
    diff: int
    petit_au_bout: str | None      # "attack", "defence" or None
    chelem: str | None             # "attack", "defence" or None
    chelem_announced: bool
    base: int                      # ±(25 + diff) × multiplier
    petit_au_bout_bonus: int       # signed, from the attack's side
    poignee_bonus: int             # signed, from the attack's side
    chelem_bonus: int              # signed, from the attack's side
    unit: int
    misere: tuple[tuple[int, str], ...]
    scores: tuple[int, ...]

    @property
    def attack_points(self) -> float:
        return self.attack_half_points / 2

    @property
    def defence_points(self) -> float:
        return (182 - self.attack_half_points) / 2

    def to_dict(self) -> dict[str, Any]:
        return {
            "taker": self.taker, "partner": self.partner, "contract": self.contract,
            "multiplier": self.multiplier, "attack_points": self.attack_points,
            "attack_oudlers": self.attack_oudlers, "target": self.target, "won": self.won,
            "diff": self.diff, "petit_au_bout": self.petit_au_bout, "chelem": self.chelem,
            "base": self.base, "petit_au_bout_bonus": self.petit_au_bout_bonus,
            "poignee_bonus": self.poignee_bonus, "chelem_bonus": self.chelem_bonus,
            "unit": self.unit, "scores": list(self.scores),
        }


def excuse_won_last_trick(tricks: Sequence[FinishedTrick]) -> bool:
    """Whether the last trick was won by the Excuse itself (chelem case)."""
    if not tricks:
        return False
    last = tricks[-1]
    return EXCUSE in last.cards and last.seats[last.cards.index(EXCUSE)] == last.winner


def count_cards(tricks: Sequence[FinishedTrick], attack: frozenset[int],
                unseen: Sequence[int], unseen_to_attack: bool,
                last_index: int | None = None) -> tuple[int, int]:
    """(attack half points, attack oudlers) from the tricks and the unseen cards.

    ``last_index``: the index of the deal's last trick (default: the last one
    given; pass the real one while the deal is in progress).
    """
    half = 0
    oudlers = 0
    if last_index is None:
        last_index = len(tricks) - 1
    # in the attack's chelem the defence's Excuse stays with the defence, even
    # at the last trick (the FFT's example: the taker counts 87)
    chelem = bool(tricks) and all(t.winner in attack for t in tricks)
    for i, t in enumerate(tricks):
        winner_attack = t.winner in attack
        for seat, c in zip(t.seats, t.cards):
            if c == EXCUSE and (i != last_index or (chelem and seat not in attack)):
                owner_attack = seat in attack
                if owner_attack:
                    half += HALF[c]
                    oudlers += 1
                if owner_attack != winner_attack:
                    # the Excuse's side gives the winner a card worth half a point
                    half += -1 if owner_attack else 1
                continue
            if winner_attack:
                half += HALF[c]
                oudlers += OUDLER[c]
    if unseen_to_attack:
        half += sum(HALF[c] for c in unseen)
        oudlers += sum(OUDLER[c] for c in unseen)
    return half, oudlers


def diff_and_won(attack_half: int, target: int) -> tuple[int, bool]:
    """(difference with the half point given to the winner, won)."""
    d2 = attack_half - 2 * target
    return (abs(d2) + 1) // 2, d2 >= 0


def petit_au_bout_side(tricks: Sequence[FinishedTrick], attack: frozenset[int],
                       hand_size: int) -> str | None:
    if len(tricks) != hand_size or not tricks:
        return None
    last = tricks[-1]
    if PETIT in last.cards:
        return "attack" if last.winner in attack else "defence"
    if excuse_won_last_trick(tricks) and len(tricks) >= 2 and PETIT in tricks[-2].cards:
        return "attack" if tricks[-2].winner in attack else "defence"
    return None


def poignee_levels_bonus(levels: Sequence[str]) -> int:
    return sum(POIGNEE_BONUS[lv] for lv in levels)


def score_deal(*, players: int, taker: int, partner: int | None, contract: str,
               tricks: Sequence[FinishedTrick], unseen: Sequence[int],
               poignees: Sequence[str] = (), chelem_announced: bool = False,
               misere: Sequence[tuple[int, str]] = (), hand_size: int | None = None,
               options: TarotOptions = FFT) -> DealResult:
    """Score a finished deal. ``unseen``: the écart (prise/garde) or the chien."""
    from engine.tarot.tables import HAND_SIZE
    hand_size = hand_size or HAND_SIZE[players]
    attack = frozenset({taker} if partner is None else {taker, partner})
    mult = MULTIPLIER[contract]
    half, oudlers = count_cards(tricks, attack, unseen, contract != "garde_contre")
    target = TARGETS[oudlers]
    diff, won = diff_and_won(half, target)
    sign = 1 if won else -1
    base = sign * (25 + diff) * mult

    pab = petit_au_bout_side(tricks, attack, hand_size)
    pab_bonus = 0 if pab is None else (10 * mult if pab == "attack" else -10 * mult)
    poignee = sign * poignee_levels_bonus(poignees)

    attack_all = bool(tricks) and all(t.winner in attack for t in tricks)
    defence_all = bool(tricks) and all(t.winner not in attack for t in tricks)
    chelem = "attack" if attack_all else "defence" if defence_all else None
    chelem_bonus = 0
    if chelem_announced:
        chelem_bonus = (options.chelem_announced_bonus if attack_all
                        else -options.chelem_failed_penalty)
    elif attack_all:
        chelem_bonus = options.chelem_unannounced_bonus
    if defence_all and options.defence_chelem_bonus:
        chelem_bonus -= options.defence_chelem_value

    unit = base + pab_bonus + poignee + chelem_bonus
    scores = settle(players, taker, partner, unit, chelem_bonus, options)
    scores = add_misere(scores, misere, options)
    return DealResult(
        players=players, taker=taker, partner=partner, contract=contract, multiplier=mult,
        attack_half_points=half, attack_oudlers=oudlers, target=target, won=won, diff=diff,
        petit_au_bout=pab, chelem=chelem, chelem_announced=chelem_announced, base=base,
        petit_au_bout_bonus=pab_bonus, poignee_bonus=poignee, chelem_bonus=chelem_bonus,
        unit=unit, misere=tuple(misere), scores=tuple(scores),
    )


def settle(players: int, taker: int, partner: int | None, unit: int, chelem_bonus: int = 0,
           options: TarotOptions = FFT) -> list[int]:
    """Marks by seat: each defender −unit, the taker (and partner) the rest."""
    scores = [-unit] * players
    if partner is None or partner == taker:
        scores[taker] = (players - 1) * unit
        return scores
    if options.partner_shares_bonuses:
        scores[taker] = 2 * unit
        scores[partner] = unit
    else:  # the chelem bonus goes to the taker alone
        rest = unit - chelem_bonus
        scores[taker] = 2 * rest + 3 * chelem_bonus
        scores[partner] = rest
    return scores


def add_misere(scores: list[int], misere: Sequence[tuple[int, str]],
               options: TarotOptions = FFT) -> list[int]:
    n = len(scores)
    out = list(scores)
    for seat, _kind in misere:
        for s in range(n):
            out[s] += options.misere_bonus * (n - 1) if s == seat else -options.misere_bonus
    return out

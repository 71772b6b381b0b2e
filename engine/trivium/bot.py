"""A simple Trivium player, and ``random_game``: a whole game between bots.

The simulated table and the property tests use :func:`random_game`. The bot
sees its own hand, the olla and the laid groups, never the other hands:

* goal: the courts (Cuadrivium, Gran Maestre) when it holds three or more
  courts or El Loco with two; otherwise tercias (Trivium);
* exchange: takes the olla's top card when it completes a tercia or brings a
  missing court, else draws from the pozo; it discards its least useful card
  (never El Loco);
* then: steals with El Loco when the steal wins or stops a player holding two
  tercias (sometimes just because it can), lays down every real tercia it
  holds, the XXI + Loco pair, and a Loco-completed tercia only as the third,
  and declares the best Cuadrivium / Gran Cuadrivium / Gran Maestre it holds.
"""

from __future__ import annotations

import random
from itertools import combinations as subsets
from typing import Sequence

from engine.cards import CODES, card
from engine.trivium.combinations import DISPLAY, POINTS, check_tercia, classify
from engine.trivium.game import TriviumGame
from engine.trivium.operations import (
    Deal,
    Declare,
    DrawFromPozo,
    LayTercia,
    Operation,
    PozoEmpty,
    Steal,
    TakeFromOlla,
)
from engine.trivium.options import TriviumOptions
from engine.trivium.state import LOCO, TriviumState

MUNDO = "T21"
DECLARABLE = ("gran_maestre", "gran_cuadrivium", "cuadrivium")


def _value(code: str) -> int | None:
    c = card(code)
    return None if c.is_court or c.is_excuse else c.rank


def _is_court(code: str) -> bool:
    return card(code).is_court


class Bot:
    """Chooses the operations of one seat; ``rng`` makes its rare random choices."""

    def __init__(self, seat: int, rng: random.Random, steal_chance: float = 0.3):
        self.seat = seat
        self.rng = rng
        self.steal_chance = steal_chance

    # ------------------------------------------------------------------ reading the table

    def hand(self, state: TriviumState) -> list[str]:
        return list(state.hands[self.seat].known)

    def goal(self, hand: Sequence[str]) -> str:
        court_ranks = {card(c).rank for c in hand if _is_court(c)}
        has_loco = LOCO in hand
        return "courts" if len(court_ranks) + has_loco >= 3 else "tercias"

    def available(self, state: TriviumState, hand: Sequence[str]) -> dict[int, int]:
        """Per tercia value, how many such cards the bot has not seen out of play."""
        seen = set(hand) | set(state.olla) | {c for groups in state.laid for g in groups for c in g.cards}
        counts: dict[int, int] = {}
        for code in CODES:
            v = _value(code)
            if v is not None and code not in seen:
                counts[v] = counts.get(v, 0) + 1
        return counts

    def usefulness(self, state: TriviumState, hand: Sequence[str], code: str) -> float:
        """Higher is better to keep."""
        if code == LOCO:
            return 1000.0
        goal = self.goal(hand)
        if _is_court(code):
            if goal != "courts":
                return -10.0
            same_rank = [c for c in hand if _is_court(c) and card(c).rank == card(code).rank]
            return 50.0 if same_rank[0] == code else -5.0
        if code == MUNDO:
            return 500.0 if LOCO in hand else -8.0
        value = _value(code)
        counts = self.available(state, hand)
        score = 0.0
        for other in hand:
            w = _value(other)
            if other == code or w is None or other == MUNDO:
                continue
            need = 21 - value - w
            if need == 0 or need > 20 or need < 0:
                continue
            score += counts.get(need, 0) + (10 if any(_value(x) == need for x in hand if x not in (code, other)) else 0)
        return score - (100 if goal == "courts" and not self._tercia_members(hand, code) else 0)

    def _tercia_members(self, hand: Sequence[str], code: str) -> bool:
        return any(code in t for t in self.real_tercias(hand))

    def least_useful(self, state: TriviumState, hand: Sequence[str], keep: str | None = None) -> str:
        choices = [c for c in hand if c != keep and c != LOCO] or [c for c in hand if c != keep]
        return min(choices, key=lambda c: (self.usefulness(state, hand, c), c))

    @staticmethod
    def real_tercias(hand: Sequence[str]) -> list[tuple[str, ...]]:
        numbered = [c for c in hand if _value(c) is not None]
        return [t for t in subsets(numbered, 3) if sum(_value(c) for c in t) == 21]

    # ------------------------------------------------------------------ the turn

    def exchange(self, state: TriviumState) -> Operation:
        hand = self.hand(state)
        top = state.olla_top
        if top is not None and self._wants(state, hand, top):
            new_hand = hand + [top]
            return TakeFromOlla(self.seat, self.least_useful(state, new_hand, keep=top), taken=top)
        if not state.pozo:
            new_pozo = None
            if state.options.pozo_exhausted == "reshuffle":
                under = list(state.olla[:-1])
                self.rng.shuffle(under)
                new_pozo = tuple(under)
            return PozoEmpty(self.seat, new_pozo)
        return DrawFromPozo(self.seat, self.least_useful(state, hand))

    def _wants(self, state: TriviumState, hand: Sequence[str], top: str) -> bool:
        if self.goal(hand) == "courts":
            return _is_court(top) and card(top).rank not in {card(c).rank for c in hand if _is_court(c)}
        if top == MUNDO:
            return LOCO in hand
        return any(top in t for t in self.real_tercias(list(hand) + [top]))

    def next_action(self, state: TriviumState) -> Operation | None:
        """The next thing to do after the exchange, or None to end the turn."""
        steal = self._steal(state)
        if steal is not None:
            return steal
        hand = self.hand(state)
        declaration = self.best_declaration(hand, state.options)
        if declaration is not None:
            return Declare(self.seat, declaration)
        tercias = self.real_tercias(hand)
        if tercias:
            return LayTercia(self.seat, tercias[0])
        if MUNDO in hand and LOCO in hand:
            return LayTercia(self.seat, (MUNDO, LOCO))
        if LOCO in hand and state.valid_tercias(self.seat) == 2:
            numbered = [c for c in hand if _value(c) is not None and c != MUNDO]
            for a, b in subsets(numbered, 2):
                if check_tercia((a, b, LOCO)).is_combination:
                    return LayTercia(self.seat, (a, b, LOCO))
        return None

    def _steal(self, state: TriviumState) -> Steal | None:
        hand = self.hand(state)
        if LOCO not in hand or state.steal_spent:
            return None
        targets = [
            (state.valid_tercias(s), s, i)
            for s in range(state.n) if s != self.seat
            for i, g in enumerate(state.laid[s]) if g.valid
        ]
        if not targets:
            return None
        count, victim, index = max(targets)
        if state.valid_tercias(self.seat) == 2 or count == 2 or self.rng.random() < self.steal_chance:
            return Steal(self.seat, victim, index)
        return None

    @staticmethod
    def best_declaration(hand: Sequence[str], options: TriviumOptions) -> tuple[str, ...] | None:
        """The cards of the best declarable combination in ``hand``, or None."""
        candidates = [c for c in hand if _is_court(c) or c == LOCO]
        if len(candidates) < 4:
            return None
        best: tuple[int, tuple[str, ...]] | None = None
        for size in (7, 4):
            for group in subsets(hand, size):
                verdict = classify(group, options)
                if verdict.combination in DECLARABLE:
                    points = POINTS[verdict.combination]
                    if best is None or points > best[0]:
                        best = (points, group)
        return best[1] if best else None


def deal_order(seed: int | None) -> list[str]:
    cards = list(CODES)
    random.Random(seed).shuffle(cards)
    return cards


def random_game(
    players: Sequence[str] | int = 3,
    seed: int | None = None,
    options: TriviumOptions | None = None,
    dealer: int = 0,
    max_exchanges: int = 2000,
) -> TriviumGame:
    """A complete game between bots on a known, shuffled deal (``seed``).

    Returns the finished game (a winner, or no winner when the pozo ran out
    with ``pozo_exhausted="draw"``). Raises RuntimeError if it does not end
    within ``max_exchanges`` exchanges.
    """
    game = TriviumGame(players, options)
    n = len(game.players)
    rng = random.Random(seed)
    order = deal_order(rng.randrange(2**32))
    hands = tuple(tuple(order[9 * s: 9 * s + 9]) for s in range(n))
    game.apply(Deal(dealer, hands, tuple(order[9 * n:])))
    bots = [Bot(s, rng) for s in range(n)]
    while game.phase == "play":
        if game.state.exchanges > max_exchanges:
            raise RuntimeError(f"the game did not end in {max_exchanges} exchanges")
        play_turn(game, bots[game.state.next_to_exchange])
    return game


def play_turn(game: TriviumGame, bot: Bot) -> None:
    """One whole turn of ``bot``: its exchange, then its actions."""
    game.apply(bot.exchange(game.state))
    if game.phase != "play" or not game.state.exchanged:
        return  # the game ended, or the pozo was reshuffled and the exchange comes next
    while game.phase == "play":
        action = bot.next_action(game.state)
        if action is None:
            return
        game.apply(action)


def table_view(game: TriviumGame) -> list[Operation]:
    """The operations of ``game`` as a camera sees them: hidden hands, unseen
    draws, reshuffles of unknown order. Replayed on a fresh game they must all
    be accepted (the hidden-hand validation of the same game)."""
    seen: list[Operation] = []
    for op in game.operations:
        if isinstance(op, Deal):
            first = TriviumGame.replay(game.players, game.options, [op])
            seen.append(Deal(op.dealer, None, None, starter=first.state.turn))
        elif isinstance(op, DrawFromPozo):
            seen.append(DrawFromPozo(op.seat, op.discard))
        elif isinstance(op, PozoEmpty):
            seen.append(PozoEmpty(op.seat))
        else:
            seen.append(op)
    return seen


def describe(game: TriviumGame) -> str:
    """One line: who won with what."""
    if game.winner is None:
        return "no winner"
    return f"{game.players[game.winner]}: {DISPLAY[game.result.combination]}, {game.result.points}"

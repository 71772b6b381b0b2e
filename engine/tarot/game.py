"""A game of several deals: dealer rotation, running totals, history.

    game = TarotGame(4, names=["Ana", "Luis", "Marta", "Pau"])
    deal = game.new_deal()          # dealt by game.dealer
    ... apply operations to deal ...
    game.finish_deal(deal)          # scores added, the deal passes to the next dealer

A deal that ends in a redeal (everyone passed, or a petit sec) scores nothing
and the next player deals, as the FFT rules say. With the ``game_target``
option the game is over once a player's total reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from engine.cards import Card
from engine.errors import TarotmateError
from engine.tarot.options import FFT, TarotOptions
from engine.tarot.state import TarotDeal


@dataclass(frozen=True, slots=True)
class DealSummary:
    """One finished deal of a game."""

    number: int
    dealer: int
    taker: int | None
    contract: str | None
    won: bool | None
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    record: dict[str, Any]


class TarotGame:
    """Several deals at one table, with running totals."""

    def __init__(self, players: int, *, dealer: int = 0,
                 options: TarotOptions | Mapping | None = None,
                 names: Sequence[str] | None = None) -> None:
        if players not in (3, 4, 5):
            raise TarotmateError(f"players: French tarot is played by 3, 4 or 5, not {players!r}")
        if not 0 <= dealer < players:
            raise TarotmateError(f"dealer: expected a seat 0..{players - 1}, got {dealer!r}")
        if options is None:
            options = FFT
        elif not isinstance(options, TarotOptions):
            options = TarotOptions.from_dict(options)
        self.players = players
        self.options = options
        self.names = tuple(names) if names is not None else None
        if self.names is not None and len(self.names) != players:
            raise TarotmateError(f"names: expected {players} names, got {len(self.names)}")
        self.dealer = dealer
        self._deals: list[DealSummary] = []
        self._totals = [0] * players

    @property
    def deals(self) -> tuple[DealSummary, ...]:
        return tuple(self._deals)

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self._totals)

    def history(self, seat: int) -> list[int]:
        """The seat's score in every deal, in order."""
        return [d.scores[seat] for d in self._deals]

    def running_totals(self, seat: int) -> list[int]:
        out, total = [], 0
        for d in self._deals:
            total += d.scores[seat]
            out.append(total)
        return out

    def new_deal(self, *, hands: Mapping[int, Iterable[str | Card]] | None = None,
                 chien: Iterable[str | Card] | None = None) -> TarotDeal:
        """A fresh deal dealt by the current dealer."""
        if self.is_over():
            raise TarotmateError("the game is over: the target is reached")
        return TarotDeal(self.players, self.dealer, self.options, names=self.names,
                         hands=hands, chien=chien)

    def finish_deal(self, deal: TarotDeal) -> DealSummary:
        """Add a finished (or redealt) deal's scores; the next player deals."""
        if deal.players != self.players or deal.dealer != self.dealer:
            raise TarotmateError(f"this deal is not the game's current deal (dealer {self.dealer})")
        if deal.phase == "redeal":
            scores: tuple[int, ...] = (0,) * self.players
            won = None
        elif deal.phase == "done":
            result = deal.result()
            scores, won = result.scores, result.won
        else:
            raise TarotmateError(f"the deal is not finished (phase {deal.phase})")
        for s, v in enumerate(scores):
            self._totals[s] += v
        summary = DealSummary(len(self._deals) + 1, deal.dealer, deal.taker, deal.contract, won,
                              tuple(scores), tuple(self._totals), deal.to_record())
        self._deals.append(summary)
        self.dealer = (self.dealer + 1) % self.players
        return summary

    def is_over(self) -> bool:
        target = self.options.game_target
        return target is not None and max(self._totals) >= target

    def leaders(self) -> list[int]:
        """The seats with the highest total."""
        best = max(self._totals)
        return [s for s, v in enumerate(self._totals) if v == best]

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players, "names": list(self.names) if self.names else None,
            "options": self.options.to_dict(), "dealer": self.dealer,
            "totals": list(self._totals),
            "deals": [d.record for d in self._deals],
        }

    @classmethod
    def from_records(cls, records: Sequence[Mapping[str, Any]], *, dealer: int | None = None,
                     options: TarotOptions | Mapping | None = None,
                     names: Sequence[str] | None = None) -> "TarotGame":
        """Rebuild a game from its deals' records (played in order)."""
        from engine.tarot.record import deal_from_record
        if not records:
            raise TarotmateError("a game needs at least one deal record")
        first = deal_from_record(records[0])
        game = cls(first.players, dealer=first.dealer if dealer is None else dealer,
                   options=options if options is not None else first.options,
                   names=names if names is not None else first.names)
        for rec in records:
            deal = deal_from_record(rec)
            game.dealer = deal.dealer
            game.finish_deal(deal)
        return game

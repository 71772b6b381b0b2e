"""A game of several deals: dealer rotation, running totals, history.

    game = TarotGame(4, names=["Ana", "Luis", "Marta", "Pau"])
    deal = game.new_deal()          # dealt by game.dealer
    ... apply operations to deal ...
    game.finish_deal(deal)          # scores added, the deal passes to the next dealer

A deal that ends in a redeal (everyone passed, or a petit sec) scores nothing
and the next player deals, as the FFT rules say. With the ``game_target``
option the game is over once a player's total reaches it. The rotation, the
totals and the end are :class:`engine.match.Match`'s; this class adds the
deals' records.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from engine.cards import Card
from engine.errors import TarotmateError
from engine.match import Match
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
        self._match = Match(players, first_dealer=dealer, target=options.game_target)
        self._deals: list[DealSummary] = []

    @property
    def dealer(self) -> int:
        """The seat dealing the next deal."""
        return self._match.dealer

    @dealer.setter
    def dealer(self, seat: int) -> None:
        self._match.dealer = seat

    @property
    def match(self) -> Match:
        return self._match

    @property
    def deals(self) -> tuple[DealSummary, ...]:
        return tuple(self._deals)

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self._match.totals)

    def history(self, seat: int) -> list[int]:
        """The seat's score in every deal, in order."""
        return [d.scores[seat] for d in self._deals]

    def running_totals(self, seat: int) -> list[int]:
        return self._match.running_totals(seat)

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
        if not deal.is_over():
            raise TarotmateError(f"the deal is not finished (phase {deal.phase})")
        won = deal.result().won if deal.phase == "done" else None
        scores = deal.scores
        totals = self._match.add(scores)
        summary = DealSummary(len(self._deals) + 1, deal.dealer, deal.taker, deal.contract, won,
                              tuple(scores), tuple(totals), deal.to_record())
        self._deals.append(summary)
        return summary

    def is_over(self) -> bool:
        return self._match.is_over()

    def leaders(self) -> list[int]:
        """The seats with the highest total."""
        return self._match.leaders()

    @property
    def winner(self) -> int | None:
        """The seat with the highest total once the game is over (None if tied or not over)."""
        return self._match.winner

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players, "names": list(self.names) if self.names else None,
            "options": self.options.to_dict(), "dealer": self.dealer,
            "totals": list(self.totals),
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

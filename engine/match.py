"""``Match``: several deals (or games) at one table, for either game.

    match = Match(4, first_dealer=0, target=1000)   # or length=8 deals, or both
    match.dealer          # who deals the next deal
    match.add(scores)     # a finished deal's points per seat (a redeal: zeros)
    match.totals, match.is_over(), match.winner

The dealer moves one seat each deal (a redeal too). The match is over after
``length`` deals, or once a total reaches ``target``, whichever comes first;
the winner is the one highest total then (``None`` on a tie). A match is
rebuilt from the scores of its deals in order, as a deal log keeps them
(``Match(..., scores=[...])``): it holds no other state.

French tarot's :class:`~engine.tarot.game.TarotGame` (option
``game_target``, e.g. Michelsen's 1000) and Trivium's
:class:`~engine.trivium.match.TriviumMatch` (a target total or a number of
games) are this match with their games' records around it.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from engine.errors import TarotmateError


class MatchError(TarotmateError):
    """A match operation refused now (a deal still being played, the match over...)."""


def _positive(value: int | None, what: str) -> int | None:
    if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0):
        raise MatchError(f"the {what} must be positive, not {value!r}")
    return value


class Match:
    """Deals at one table with running totals; see the module's docstring."""

    def __init__(self, players: int, *, first_dealer: int = 0, target: int | None = None,
                 length: int | None = None, scores: Iterable[Sequence[float]] = ()) -> None:
        if not isinstance(players, int) or isinstance(players, bool) or players < 2:
            raise MatchError(f"a match needs at least 2 players, not {players!r}")
        if not isinstance(first_dealer, int) or not 0 <= first_dealer < players:
            raise MatchError(f"dealer: expected a seat 0..{players - 1}, got {first_dealer!r}")
        self.players = players
        self.first_dealer = first_dealer
        self.target = _positive(target, "target total")
        self.length = _positive(length, "number of deals")
        self._scores: list[tuple[float, ...]] = []
        self.dealer = first_dealer
        for deal in scores:
            self._record(deal)

    # ------------------------------------------------------------ deals
    def add(self, scores: Sequence[float]) -> tuple[float, ...]:
        """Add a finished deal's points per seat; the next seat deals. Returns the totals."""
        if self.is_over():
            raise MatchError("the match is over")
        self._record(scores)
        return self.totals

    def _record(self, scores: Sequence[float]) -> None:
        scores = tuple(scores)
        if len(scores) != self.players:
            raise MatchError(f"a deal's scores have {len(scores)} values for {self.players} players")
        self._scores.append(scores)
        self.dealer = (self.dealer + 1) % self.players

    @property
    def deals(self) -> int:
        """How many deals are finished."""
        return len(self._scores)

    @property
    def scores(self) -> tuple[tuple[float, ...], ...]:
        """Each finished deal's points per seat, in order."""
        return tuple(self._scores)

    @property
    def totals(self) -> tuple[float, ...]:
        return tuple(sum(deal[s] for deal in self._scores) for s in range(self.players))

    def running_totals(self, seat: int) -> list[float]:
        out, total = [], 0
        for deal in self._scores:
            total += deal[seat]
            out.append(total)
        return out

    # ------------------------------------------------------------ the end
    def is_over(self) -> bool:
        if self.length is not None and self.deals >= self.length:
            return True
        return self.target is not None and bool(self._scores) and max(self.totals) >= self.target

    def leaders(self) -> list[int]:
        """The seats with the highest total."""
        totals = self.totals
        best = max(totals)
        return [s for s, v in enumerate(totals) if v == best]

    @property
    def winner(self) -> int | None:
        """The seat with the highest total once the match is over (None if tied or not over)."""
        if not self.is_over():
            return None
        leaders = self.leaders()
        return leaders[0] if len(leaders) == 1 else None

    def __repr__(self) -> str:
        return (f"Match(players={self.players}, deals={self.deals}, totals={list(self.totals)}, "
                f"target={self.target}, length={self.length})")

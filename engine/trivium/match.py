"""``TriviumMatch``: several games with running totals.

The match ends after an agreed number of games, or when a player reaches an
agreed total (whichever comes first when both are set). Only the winner of a
game scores: the value of their combination. The totals, the end and the
winner are :class:`engine.match.Match`'s, rebuilt from the finished games;
this class adds the games themselves and the ``trivium-match/1`` record.
"""

from __future__ import annotations

from typing import Sequence

from engine.match import Match, MatchError
from engine.trivium.game import TriviumGame
from engine.trivium.options import TriviumOptions

__all__ = ["MatchError", "TriviumMatch"]


class TriviumMatch:
    """Games of Trivium between the same players; the dealer moves one seat each game."""

    def __init__(
        self,
        players: Sequence[str],
        options: TriviumOptions | None = None,
        target_total: int | None = None,
        games: int | None = None,
        first_dealer: int = 0,
    ):
        if target_total is None and games is None:
            raise MatchError("a match needs a number of games or a target total")
        if target_total is not None and target_total <= 0:
            raise MatchError("the target total must be positive")
        if games is not None and games <= 0:
            raise MatchError("the number of games must be positive")
        self.players = tuple(players)
        self.options = options or TriviumOptions()
        self.target_total = target_total
        self.game_count = games
        self.first_dealer = first_dealer
        self.games: list[TriviumGame] = []
        TriviumGame(self.players, self.options)  # validates the players now

    @property
    def current(self) -> TriviumGame | None:
        """The game being played, if any."""
        if self.games and self.games[-1].phase != "finished":
            return self.games[-1]
        return None

    @property
    def finished_games(self) -> list[TriviumGame]:
        return [g for g in self.games if g.phase == "finished"]

    @property
    def match(self) -> Match:
        """The match of the finished games (totals, end, winner)."""
        return Match(len(self.players), first_dealer=self.first_dealer % len(self.players),
                     target=self.target_total, length=self.game_count,
                     scores=[game.scores for game in self.finished_games])

    @property
    def totals(self) -> tuple[int, ...]:
        """Running totals per seat over the finished games."""
        return tuple(self.match.totals)

    @property
    def is_over(self) -> bool:
        return self.current is None and self.match.is_over()

    @property
    def winner(self) -> int | None:
        """The seat with the highest total once the match is over (None if tied or not over)."""
        return self.match.winner if self.is_over else None

    @property
    def next_dealer(self) -> int:
        return (self.first_dealer + len(self.games)) % len(self.players)

    def new_game(self) -> TriviumGame:
        """Start the next game (its Deal operation is the caller's, with ``next_dealer``)."""
        self._check_can_add()
        game = TriviumGame(self.players, self.options)
        self.games.append(game)
        return game

    def add_game(self, game: TriviumGame) -> None:
        """Add a game played elsewhere (a replayed record) with the same players and options."""
        self._check_can_add()
        if game.players != self.players or game.options != self.options:
            raise MatchError("the game's players or options differ from the match's")
        self.games.append(game)

    def _check_can_add(self) -> None:
        if self.current is not None:
            raise MatchError("the current game is not finished")
        if self.is_over:
            raise MatchError("the match is over")

    def to_dict(self) -> dict:
        """A JSON-ready ``trivium-match/1`` object (each game a ``trivium-game/1`` record)."""
        from engine.trivium.record import game_to_record

        return {
            "format": "trivium-match/1",
            "players": list(self.players),
            "options": self.options.to_dict(),
            "target_total": self.target_total,
            "games_agreed": self.game_count,
            "first_dealer": self.first_dealer,
            "games": [game_to_record(g) for g in self.games],
            "totals": list(self.totals),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "TriviumMatch":
        from engine.trivium.record import RecordError, game_from_record

        if not isinstance(data, dict) or data.get("format") != "trivium-match/1":
            raise RecordError("not a trivium-match/1 record")
        match = cls(
            data["players"],
            TriviumOptions.from_dict(data.get("options") or {}),
            target_total=data.get("target_total"),
            games=data.get("games_agreed"),
            first_dealer=data.get("first_dealer", 0),
        )
        for record in data.get("games", []):
            match.games.append(game_from_record(record))
        return match

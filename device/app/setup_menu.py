"""The setup menu: game, player count, variant and the players' names.

Its decision is ``('setup', game, variant, players)``: the game's menu key
(``tarot``, ``trivium``), the variant key and the tuple of player names,
chosen from the configuration's list.
"""

from __future__ import annotations

from typing import Sequence

from device.app.flows import Decision, Flow, Step
from device.app.registry import game_of_key, games
from device.i18n import N_
from engine.errors import TarotmateError


class SetupFlow(Flow):
    """Game, player count, variant and the players' names (chosen from the config list)."""

    def __init__(self, names: Sequence[str], variants: dict[str, list[tuple[str, str]]] | None = None,
                 lang: str = "en", style: str = "french") -> None:
        super().__init__(lang, style)
        if len(names) < 2:
            raise TarotmateError("the config lists fewer than 2 player names")
        self.names = list(names)
        self.variants = variants or {g.key: list(g.variants) for g in games()}
        self.game = self.variant = ""
        self.count = 0
        self.players: list[str] = []
        choices = [(self.tr(g.title), g.key) for g in games()]
        self.push(Step(self.tr(N_("Game")), choices, self._game))

    def _game(self, game: str) -> list[Decision]:
        self.game = game
        low, high = game_of_key(game).players
        counts = [c for c in range(low, high + 1) if c <= len(self.names)]
        if not counts:
            raise TarotmateError(f"the config lists too few player names for {game}")
        options = [(self.tr(N_("{n} players")).format(n=c), c) for c in counts]
        self.push(Step(self.tr(N_("Players")), options, self._count))
        return []

    def _count(self, count: int) -> list[Decision]:
        self.count = count
        variants = self.variants.get(self.game) or [("—", "standard")]
        if len(variants) == 1:
            return self._variant(variants[0][1])
        self.push(Step(self.tr(N_("Variant")), list(variants), self._variant))
        return []

    def _variant(self, key: str) -> list[Decision]:
        self.variant = key
        self.players = []
        return self._ask_player()

    def _ask_player(self) -> list[Decision]:
        if len(self.players) == self.count:
            self.finish()
            return [("setup", self.game, self.variant, tuple(self.players))]
        left = [(n, n) for n in self.names if n not in self.players]
        title = self.tr(N_("Seat {n}")).format(n=len(self.players) + 1)
        self.push(Step(title, left, self._player, on_back=self._unpick))
        return []

    def _player(self, name: str) -> list[Decision]:
        self.players.append(name)
        return self._ask_player()

    def _unpick(self) -> list[Decision]:
        self.steps.pop()
        if self.players:
            self.players.pop()
        return []

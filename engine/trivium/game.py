"""``TriviumGame``: a game as a state plus the list of operations that made it.

The game contract of :mod:`engine.contract`: applying an operation either
succeeds (the next immutable state replaces the current one) or raises
:class:`IllegalOperation` and leaves the game exactly as it was; ``undo``
takes back the last operation by replaying the others from the start, which
gives the same state: this is also how records and logs are read back.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from engine.contract import GameState, Refusal
from engine.trivium.operations import IllegalOperation, Operation
from engine.trivium.options import TriviumOptions
from engine.trivium.rules import step
from engine.trivium.state import (
    Announcement,
    LocoStatus,
    SeatView,
    Phase,
    TriviumState,
    initial_state,
)


class TriviumGame(GameState[Operation]):
    """One game of Trivium for 2-4 players.

    >>> game = TriviumGame(["Marta", "Luis"])
    >>> game.phase == "deal"
    True
    """

    Phase = Phase

    def __init__(self, players: Sequence[str] | int, options: TriviumOptions | None = None):
        if isinstance(players, int):
            players = [f"Player {i + 1}" for i in range(players)]
        super().__init__()
        self._initial = initial_state(players, options)
        self._state = self._initial

    @classmethod
    def replay(cls, players: Sequence[str], options: TriviumOptions | None, operations: Iterable[Operation]) -> "TriviumGame":
        """A game rebuilt from its operations; raise IllegalOperation at the first refused one."""
        game = cls(players, options)
        for i, op in enumerate(operations):
            try:
                game.apply(op)
            except IllegalOperation as exc:
                raise IllegalOperation(f"operation {i + 1} ({op.kind}) is refused: {exc}", exc.rule, op) from None
        return game

    # ------------------------------------------------------------------ operations

    @property
    def state(self) -> TriviumState:
        return self._state

    def can(self, op: Operation) -> Refusal | None:
        """None if ``op`` is allowed now, else the :class:`Refusal` (rule and reason)."""
        try:
            step(self._state, op)
        except IllegalOperation as exc:
            return exc.refusal
        return None

    def _advance(self, op: Operation) -> None:
        self._state = step(self._state, op)

    def _restart(self) -> None:
        self._state = self._initial

    def is_over(self) -> bool:
        return self._state.phase == Phase.FINISHED

    # ------------------------------------------------------------------ the table

    @property
    def players(self) -> tuple[str, ...]:
        return self.state.players

    @property
    def options(self) -> TriviumOptions:
        return self.state.options

    @property
    def phase(self) -> Phase:
        return Phase(self.state.phase)

    @property
    def to_play(self) -> int | None:
        return self.state.to_play

    @property
    def next_to_exchange(self) -> int | None:
        return self.state.next_to_exchange

    @property
    def winner(self) -> int | None:
        return self.state.winner

    @property
    def result(self):
        return self.state.result

    @property
    def scores(self) -> tuple[int, ...]:
        return self.state.scores

    @property
    def seats(self) -> tuple[SeatView, ...]:
        return self.state.seats

    @property
    def olla(self) -> tuple[str, ...]:
        return self.state.olla

    @property
    def olla_top(self) -> str | None:
        return self.state.olla_top

    @property
    def loco(self) -> LocoStatus:
        return self.state.loco

    @property
    def announcements(self) -> tuple[Announcement, ...]:
        return self.state.announcements

    def __repr__(self) -> str:
        return f"TriviumGame({list(self.players)!r}, phase={self.phase!r}, operations={len(self._operations)})"

"""``TriviumGame``: a game as a state plus the list of operations that made it.

Applying an operation either succeeds (a new immutable state is pushed) or
raises :class:`IllegalOperation` and leaves the game exactly as it was;
``undo`` pops the last operation. Replaying the operations from the start
gives the same state: this is how records and logs are read back.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from engine.errors import TarotmateError
from engine.trivium.operations import IllegalOperation, Operation
from engine.trivium.options import TriviumOptions
from engine.trivium.rules import step
from engine.trivium.state import (
    Announcement,
    LocoStatus,
    SeatView,
    TriviumState,
    initial_state,
)


class TriviumGame:
    """One game of Trivium for 2-4 players.

    >>> game = TriviumGame(["Marta", "Luis"])
    >>> game.phase
    'deal'
    """

    def __init__(self, players: Sequence[str] | int, options: TriviumOptions | None = None):
        if isinstance(players, int):
            players = [f"Player {i + 1}" for i in range(players)]
        self._states: list[TriviumState] = [initial_state(players, options)]
        self._operations: list[Operation] = []

    @classmethod
    def replay(cls, players: Sequence[str], options: TriviumOptions | None, operations: Iterable[Operation]) -> "TriviumGame":
        """A game rebuilt from its operations; raise IllegalOperation at the first refused one."""
        game = cls(players, options)
        for i, op in enumerate(operations):
            try:
                game.apply(op)
            except IllegalOperation as exc:
                raise IllegalOperation(f"operation {i + 1} ({op.kind}) is refused: {exc}") from None
        return game

    # ------------------------------------------------------------------ operations

    @property
    def state(self) -> TriviumState:
        return self._states[-1]

    @property
    def operations(self) -> tuple[Operation, ...]:
        return tuple(self._operations)

    def can(self, op: Operation) -> str | None:
        """None if ``op`` is allowed now, else the reason it is refused."""
        try:
            step(self.state, op)
        except IllegalOperation as exc:
            return str(exc)
        return None

    def apply(self, op: Operation) -> TriviumState:
        """Apply ``op`` and return the new state; IllegalOperation leaves the game untouched."""
        new_state = step(self.state, op)
        self._states.append(new_state)
        self._operations.append(op)
        return new_state

    def undo(self) -> Operation:
        """Take back the last operation and return it."""
        if not self._operations:
            raise TarotmateError("nothing to undo")
        self._states.pop()
        return self._operations.pop()

    # ------------------------------------------------------------------ the table

    @property
    def players(self) -> tuple[str, ...]:
        return self.state.players

    @property
    def options(self) -> TriviumOptions:
        return self.state.options

    @property
    def phase(self) -> str:
        return self.state.phase

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

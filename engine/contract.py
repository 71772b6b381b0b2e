"""The game contract: what every game of the engine offers, the shape
python-chess and pokerkit use.

A game state (a French tarot deal, a Trivium game) is built from its players
and options and moved on by small frozen operations:

    refusal = state.can(op)   # None when allowed, else a Refusal (rule + reason)
    state.apply(op)           # or IllegalOperation, the state untouched
    state.undo()              # the last operation, taken back
    state.operations          # what made the state, in order
    state.phase               # a StrEnum of the game
    state.is_over()           # no operation is expected any more
    state.scores              # points of this deal (or game) per seat

:class:`GameState` holds the parts both games share: the list of operations
and the one undo mechanism (start again, replay every operation but the
last: the operations are the truth, the state is derived from them).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import StrEnum
from typing import Any, Generic, TypeVar

from engine.errors import TarotmateError

Op = TypeVar("Op")


class Refusal(str):
    """Why an operation is refused: the reason (the string itself, in words
    for the table) and ``rule``, the name of the rule broken (``turn``,
    ``follow_suit``, ``olla_empty``...)."""

    rule: str

    def __new__(cls, reason: str, rule: str = "") -> "Refusal":
        self = super().__new__(cls, reason)
        self.rule = rule
        return self

    @property
    def reason(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Refusal({self.reason!r}, rule={self.rule!r})"

    def __reduce__(self):
        return (Refusal, (self.reason, self.rule))


class IllegalOperation(TarotmateError):
    """An operation the rules (or the physical table) do not allow now.

    ``rule`` names the rule broken; the message says why; ``operation`` is
    the operation refused, when known.
    """

    def __init__(self, message: str, rule: str = "", operation: Any = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.operation = operation

    @property
    def refusal(self) -> Refusal:
        return Refusal(str(self), self.rule)


class GameState(ABC, Generic[Op]):
    """A game moved on by operations; see the module's docstring.

    A game implements :meth:`_restart` (back to the state before any
    operation), :meth:`_advance` (check ``op`` and apply it, or raise
    :class:`IllegalOperation` leaving the state as it was), :meth:`can`,
    ``phase``, :meth:`is_over` and ``scores``.
    """

    Phase: type[StrEnum]

    def __init__(self) -> None:
        self._operations: list[Op] = []

    # ------------------------------------------------------------ the contract
    @property
    def operations(self) -> tuple[Op, ...]:
        return tuple(self._operations)

    @abstractmethod
    def can(self, op: Op) -> Refusal | None:
        """None when ``op`` is allowed now, else the :class:`Refusal`."""

    def apply(self, op: Op) -> "GameState[Op]":
        """Apply ``op`` or raise :class:`IllegalOperation` (the state is unchanged); returns the state."""
        self._advance(op)
        self._operations.append(op)
        return self

    def undo(self) -> Op:
        """Take back the last operation and return it (IllegalOperation when there is none)."""
        if not self._operations:
            raise IllegalOperation("nothing to undo", "undo")
        last = self._operations.pop()
        kept, self._operations = self._operations, []
        self._restart()
        for op in kept:
            self._advance(op)
            self._operations.append(op)
        return last

    @property
    @abstractmethod
    def phase(self) -> StrEnum: ...

    @abstractmethod
    def is_over(self) -> bool: ...

    @property
    @abstractmethod
    def scores(self) -> tuple[int, ...]:
        """Points per seat of this deal or game (zeros until it is over)."""

    # ------------------------------------------------------------ per game
    @abstractmethod
    def _restart(self) -> None: ...

    @abstractmethod
    def _advance(self, op: Op) -> None: ...

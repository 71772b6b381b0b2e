"""The engines as the table app sees them: one small adapter per game.

The session and the controller speak to :class:`Rules`; the adapters below
translate to the French tarot engine (``engine.tarot``) and the Trivium
engine (``engine.trivium``) without re-implementing any rule.
"""

from __future__ import annotations

from typing import Any, Protocol

from engine.contract import Refusal


def refusal_from(reason: str | None) -> Refusal | None:
    """The engines' ``can(op)`` answer: ``None`` when allowed, else a :class:`Refusal` (rule and reason)."""
    if reason is None or isinstance(reason, Refusal):
        return reason
    return Refusal(str(reason))


class Rules(Protocol):
    kind: str

    def new_state(self, game, setup: dict[str, Any]) -> Any: ...
    def setup_for(self, game, number: int, log) -> dict[str, Any]: ...
    def op_from_dict(self, data: dict[str, Any]) -> Any: ...
    def op_to_dict(self, op: Any) -> dict[str, Any]: ...
    def refusal(self, state: Any, op: Any) -> Refusal | None: ...
    def apply(self, state: Any, op: Any) -> None: ...
    def undo(self, state: Any) -> None: ...
    def is_over(self, state: Any) -> bool: ...
    def record(self, state: Any, game) -> dict[str, Any] | None: ...
    def scores(self, state: Any) -> list[float] | None: ...


class _EngineRules:
    """What both adapters share: a new state per deal (or game), the dealer
    rotating from the first one, operations as dicts, ``can``/``apply``/``undo``."""

    kind = ""

    def __init__(self, options: dict[str, Any] | None = None):
        self.options = dict(options or {})

    def setup_for(self, game, number: int, log) -> dict[str, Any]:
        """The dealer of deal ``number``: the first dealer, then the next seat each deal."""
        deals = log.deals(game.id)
        first = deals[0].setup.get("dealer", 0) if deals else 0
        return {"dealer": (first + number - 1) % game.players}

    def op_to_dict(self, op) -> dict[str, Any]:
        return op.to_dict()

    def refusal(self, state, op) -> Refusal | None:
        return refusal_from(state.can(op))

    def apply(self, state, op) -> None:
        state.apply(op)

    def undo(self, state) -> None:
        state.undo()


class TarotRules(_EngineRules):
    """French tarot through ``engine.tarot`` (one :class:`TarotDeal` per deal)."""

    kind = "french-tarot"

    def new_state(self, game, setup: dict[str, Any]):
        from engine.tarot import TarotDeal

        return TarotDeal(game.players, setup.get("dealer", 0), game.options or None, names=game.names)

    def op_from_dict(self, data: dict[str, Any]):
        from engine.tarot import operation_from_dict

        return operation_from_dict(data)

    def is_over(self, state) -> bool:
        return state.is_over()

    def record(self, state, game) -> dict[str, Any] | None:
        return state.to_record()

    def scores(self, state) -> list[float] | None:
        if state.phase == "redeal":
            return [0] * state.players
        return list(state.result().scores)


class TriviumRules(_EngineRules):
    """Trivium through ``engine.trivium`` (one :class:`TriviumGame` per game of a match)."""

    kind = "trivium"

    def new_state(self, game, setup: dict[str, Any]):
        from engine.trivium import TriviumGame, TriviumOptions

        return TriviumGame(list(game.names), TriviumOptions.from_dict(game.options or {}))

    def op_from_dict(self, data: dict[str, Any]):
        from engine.trivium import operation_from_dict

        return operation_from_dict(data)

    def is_over(self, state) -> bool:
        return state.phase == "finished"

    def record(self, state, game) -> dict[str, Any] | None:
        from engine.trivium import game_to_record

        return game_to_record(state)

    def scores(self, state) -> list[float] | None:
        return list(state.scores)


def rules_for(kind: str, options: dict[str, Any] | None = None):
    """The adapter for ``game.kind`` of the configuration."""
    if kind == "french-tarot":
        return TarotRules(options)
    if kind == "trivium":
        return TriviumRules(options)
    raise ValueError(f"unknown game {kind!r}")

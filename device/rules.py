"""The engines as the table app sees them: one small adapter per game.

The session and the controller speak to :class:`Rules`; the adapters below
translate to the French tarot engine (``engine.tarot``) and the Trivium
engine (``engine.trivium``) without re-implementing any rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Refusal:
    """Why the engine refuses an operation (its own words)."""

    reason: str
    rule: str = ""


def refusal_from(result: Any) -> Refusal | None:
    """Normalise what an engine's ``can(op)`` returns into a :class:`Refusal`.

    Accepted forms: ``None``/``True``/``""`` (legal); a string (the reason);
    ``False``; an object with ``ok``/``reason`` (and optionally ``rule``)."""
    if result is None or result is True or result == "":
        return None
    if result is False:
        return Refusal("refused by the rules")
    if isinstance(result, str):
        return Refusal(result)
    ok = getattr(result, "ok", None)
    if ok is None and isinstance(result, tuple) and len(result) == 2:
        ok, reason = result
        return None if ok else Refusal(str(reason))
    if ok is not None:
        if ok:
            return None
        return Refusal(str(getattr(result, "reason", result)), str(getattr(result, "rule", "") or ""))
    if hasattr(result, "__bool__") and not bool(result):
        return None
    return Refusal(str(result))


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


class TarotRules:
    """French tarot through ``engine.tarot`` (one :class:`TarotDeal` per deal)."""

    kind = "french-tarot"

    def __init__(self, options: dict[str, Any] | None = None):
        self.options = dict(options or {})

    def new_state(self, game, setup: dict[str, Any]):
        from engine.tarot import TarotDeal

        return TarotDeal(game.players, setup.get("dealer", 0), game.options or None, names=game.names)

    def setup_for(self, game, number: int, log) -> dict[str, Any]:
        """The dealer of deal ``number``: the first dealer, then the next seat each deal."""
        deals = log.deals(game.id)
        first = deals[0].setup.get("dealer", 0) if deals else 0
        return {"dealer": (first + number - 1) % game.players}

    def op_from_dict(self, data: dict[str, Any]):
        from engine.tarot import operation_from_dict

        return operation_from_dict(data)

    def op_to_dict(self, op) -> dict[str, Any]:
        return op.to_dict()

    def refusal(self, state, op) -> Refusal | None:
        return refusal_from(state.can(op))

    def apply(self, state, op) -> None:
        state.apply(op)

    def undo(self, state) -> None:
        state.undo()

    def is_over(self, state) -> bool:
        return state.is_over()

    def record(self, state, game) -> dict[str, Any] | None:
        return state.to_record()

    def scores(self, state) -> list[float] | None:
        if state.phase == "redeal":
            return [0] * state.players
        return list(state.result().scores)


class TriviumRules:
    """Trivium through ``engine.trivium`` (one :class:`TriviumGame` per game of a match)."""

    kind = "trivium"

    def __init__(self, options: dict[str, Any] | None = None):
        self.options = dict(options or {})

    def new_state(self, game, setup: dict[str, Any]):
        from engine.trivium import TriviumGame, TriviumOptions

        return TriviumGame(list(game.names), TriviumOptions.from_dict(game.options or {}))

    def setup_for(self, game, number: int, log) -> dict[str, Any]:
        deals = log.deals(game.id)
        first = deals[0].setup.get("dealer", 0) if deals else 0
        return {"dealer": (first + number - 1) % game.players}

    def op_from_dict(self, data: dict[str, Any]):
        from engine.trivium import operation_from_dict

        return operation_from_dict(data)

    def op_to_dict(self, op) -> dict[str, Any]:
        return op.to_dict()

    def refusal(self, state, op) -> Refusal | None:
        return refusal_from(state.can(op))

    def apply(self, state, op) -> None:
        state.apply(op)

    def undo(self, state) -> None:
        state.undo()

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

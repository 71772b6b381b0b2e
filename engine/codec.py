"""One operation codec for every game: an operation as a JSON object and back.

An operation is a frozen dataclass with a ``kind`` (its ``"op"`` in JSON);
its fields are written in order, tuples as lists, except those it names in
``omit_when_empty`` (left out when empty). Reading builds the dataclass from
the object, whose ``__post_init__`` checks and normalises the fields.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Iterable, Mapping

from engine.errors import TarotmateError


class OperationError(TarotmateError, ValueError):
    """An operation that cannot even be built (unknown kind, bad field)."""


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def operation_to_dict(op: Any) -> dict[str, Any]:
    """``{"op": kind, field: value, ...}`` with tuples as lists."""
    out: dict[str, Any] = {"op": op.kind}
    omit = getattr(op, "omit_when_empty", ())
    for f in fields(op):
        value = getattr(op, f.name)
        if f.name in omit and not value:
            continue
        out[f.name] = _plain(value)
    return out


class OperationCodec:
    """Reads the operations of one game from their JSON objects.

    ``noun`` names them in errors (``"operation"``, ``"Trivium operation"``).
    """

    def __init__(self, types: Iterable[type], noun: str = "operation") -> None:
        self.types: dict[str, type] = {t.kind: t for t in types}
        self.noun = noun

    def to_dict(self, op: Any) -> dict[str, Any]:
        return operation_to_dict(op)

    def from_dict(self, data: Mapping[str, Any]) -> Any:
        """The operation ``to_dict`` wrote; OperationError naming what is wrong."""
        if not isinstance(data, Mapping) or "op" not in data:
            article = "an" if self.noun[0] in "aeiou" else "a"
            raise OperationError(f"not {article} {self.noun}: {data!r} (expected an object with an 'op' field)")
        kind = data["op"]
        cls = self.types.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise OperationError(f"unknown {self.noun} {kind!r}; known: {', '.join(self.types)}")
        names = {f.name for f in fields(cls)}
        args = {k: _frozen(v) for k, v in data.items() if k != "op"}
        unknown = sorted(set(args) - names)
        if unknown:
            raise OperationError(f"operation {kind!r} has no field(s) {', '.join(unknown)}")
        try:
            return cls(**args)
        except TypeError as exc:
            raise OperationError(f"operation {kind!r}: {exc}") from None

"""The decisions a controller takes, declared: each handler says which decision it takes, and its signature
says the arguments (their number and types), checked before the handler runs.

A decision is a tuple from the menus (``('bid', 2, 'garde')``, see
:mod:`device.app.flows`). A controller's method marked ``@decides("bid")``
takes it; :func:`handlers_of` lists a controller class's handlers, its own
and those it inherits (a game's handler of a kind replaces the shared one).
:meth:`DecisionHandler.check` refuses a decision whose arguments do not fit
the handler's parameters with a :class:`MalformedDecision` naming the
argument, so that an error inside a handler is never mistaken for a
malformed decision.

Types a parameter may be annotated with: ``int``, ``str``, ``bool``,
``dict``, ``Sequence[...]`` (a tuple or a list), ``X | None``, ``Any`` (or
no annotation). A handler with ``*_`` takes any further arguments and ignores
them.
"""

from __future__ import annotations

import collections.abc
import inspect
import types
import typing
from dataclasses import dataclass
from functools import cache
from typing import Any, Callable

from engine.errors import TarotmateError

MARK = "__decision_kind__"


class MalformedDecision(TarotmateError):
    """A decision whose arguments do not fit its handler: the decision's kind, the argument and why."""

    def __init__(self, kind: str, argument: str, problem: str) -> None:
        super().__init__(f"{kind}: {argument}: {problem}")
        self.kind, self.argument, self.problem = kind, argument, problem


def decides(kind: str) -> Callable[[Callable], Callable]:
    """Mark a controller method as the handler of the decisions ``(kind, ...)``."""

    def mark(method: Callable) -> Callable:
        setattr(method, MARK, kind)
        return method

    return mark


@dataclass(frozen=True)
class DecisionParam:
    name: str
    types: tuple[type, ...] | None  # None: any value
    required: bool

    def accepts(self, value: Any) -> bool:
        if self.types is None:
            return True
        if isinstance(value, bool) and bool not in self.types:
            return False  # True is no seat number
        return isinstance(value, self.types)

    def expected(self) -> str:
        names = {type(None): "nothing", collections.abc.Sequence: "a sequence"}
        return " or ".join(names.get(t, t.__name__) for t in self.types or ())


@dataclass(frozen=True)
class DecisionHandler:
    """One kind of decision: the method that takes it and the arguments it accepts."""

    kind: str
    method: str
    params: tuple[DecisionParam, ...]
    rest: bool  # takes (and ignores) any further arguments

    def check(self, args: tuple) -> None:
        """Raise :class:`MalformedDecision` unless ``args`` fit the parameters."""
        required = sum(p.required for p in self.params)
        if len(args) < required or (len(args) > len(self.params) and not self.rest):
            count = (f"at least {required}" if self.rest else str(required) if required == len(self.params)
                     else f"{required} to {len(self.params)}")
            names = ", ".join(p.name for p in self.params) or "none"
            raise MalformedDecision(self.kind, "arguments", f"expected {count} ({names}), got {len(args)}")
        for param, value in zip(self.params, args):
            if not param.accepts(value):
                raise MalformedDecision(self.kind, param.name, f"expected {param.expected()}, got {value!r}")

    def take(self, controller: Any, args: tuple) -> Any:
        """Check ``args``, then run the handler (its errors are its own)."""
        self.check(args)
        return getattr(controller, self.method)(*args)


def _types(hint: Any) -> tuple[type, ...] | None:
    if hint is inspect.Parameter.empty or hint is Any:
        return None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        parts = [_types(h) for h in typing.get_args(hint)]
        return None if any(p is None for p in parts) else tuple(t for p in parts for t in p)  # type: ignore[union-attr]
    if hint is type(None):
        return (type(None),)
    if origin is not None:
        hint = origin
    if hint in (collections.abc.Sequence, tuple, list):
        return (tuple, list)
    if isinstance(hint, type):
        return (hint,)
    raise TypeError(f"a decision parameter cannot be annotated {hint!r}")


def _handler(kind: str, name: str, method: Callable) -> DecisionHandler:
    hints = typing.get_type_hints(method)
    params, rest = [], False
    for p in list(inspect.signature(method).parameters.values())[1:]:  # after self
        if p.kind is p.VAR_POSITIONAL:
            rest = True
            continue
        params.append(DecisionParam(p.name, _types(hints.get(p.name, inspect.Parameter.empty)),
                                    p.default is inspect.Parameter.empty))
    return DecisionHandler(kind, name, tuple(params), rest)


@cache
def handlers_of(cls: type) -> dict[str, DecisionHandler]:
    """Every decision ``cls`` takes, by kind (the class's own handlers over those it inherits)."""
    found: dict[str, DecisionHandler] = {}
    for klass in reversed(cls.__mro__):
        for name, member in vars(klass).items():
            kind = getattr(member, MARK, None)
            if kind is not None:
                found[kind] = _handler(kind, name, member)
    return found

"""The operations of a Trivium game: small immutable facts, storable as JSON.

A game is its list of operations (see :mod:`engine.trivium.game`). Each
operation carries only what the table can see or be told: the device's camera
sees discards, laid groups, shown cards and El Loco when it is played; the
cards drawn from the pozo stay unknown unless the deal was given in full.

Seats are numbered ``0 .. n-1`` in the order of play (play passes to the
right, so seat ``s + 1`` plays after seat ``s``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Union

from engine.cards import card
from engine.codec import OperationCodec, OperationError, operation_to_dict  # noqa: F401 (OperationError: read here)
from engine.contract import IllegalOperation  # noqa: F401 (read here by the rules and the game)
from engine.errors import TarotmateError


def _code(value) -> str:
    return card(value).code


def _codes(values) -> tuple[str, ...]:
    if isinstance(values, str):
        values = values.split()
    return tuple(_code(v) for v in values)


def _seat(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TarotmateError(f"a seat is a number, not {value!r}")
    return value


class _Operation:
    """Shared behaviour: normalised card codes and ``to_dict``."""

    kind: ClassVar[str]

    def to_dict(self) -> dict:
        return operation_to_dict(self)


@dataclass(frozen=True, slots=True)
class Deal(_Operation):
    """The deal: 9 cards each, the rest face down as the pozo.

    ``hands`` (one tuple of 9 codes per seat) and ``pozo`` (top card first)
    are given when the deal is known (tests, the simulated table) and left
    None at a real table, where the hands are hidden. ``starter`` is the seat
    that starts: computed from known hands (and checked if given), required
    when the hands are hidden.
    """

    kind: ClassVar[str] = "deal"
    dealer: int = 0
    hands: tuple[tuple[str, ...], ...] | None = None
    pozo: tuple[str, ...] | None = None
    starter: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "dealer", _seat(self.dealer))
        if self.hands is not None:
            object.__setattr__(self, "hands", tuple(_codes(h) for h in self.hands))
        if self.pozo is not None:
            object.__setattr__(self, "pozo", _codes(self.pozo))
        if self.starter is not None:
            object.__setattr__(self, "starter", _seat(self.starter))


@dataclass(frozen=True, slots=True)
class DrawFromPozo(_Operation):
    """The exchange from the pozo: ``discard`` goes face up onto the olla, then
    the seat takes the pozo's top card (``drawn``: known in a known deal and
    checked if given; None when unseen)."""

    kind: ClassVar[str] = "draw_from_pozo"
    seat: int
    discard: str
    drawn: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "seat", _seat(self.seat))
        object.__setattr__(self, "discard", _code(self.discard))
        if self.drawn is not None:
            object.__setattr__(self, "drawn", _code(self.drawn))


@dataclass(frozen=True, slots=True)
class TakeFromOlla(_Operation):
    """The exchange from the olla: the seat takes its top card and puts
    ``discard`` from their hand onto it. ``taken`` (optional) is checked
    against the olla's top card."""

    kind: ClassVar[str] = "take_from_olla"
    seat: int
    discard: str
    taken: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "seat", _seat(self.seat))
        object.__setattr__(self, "discard", _code(self.discard))
        if self.taken is not None:
            object.__setattr__(self, "taken", _code(self.taken))


@dataclass(frozen=True, slots=True)
class LayTercia(_Operation):
    """The seat lays a group face up in front of them (after their exchange).

    The group is kept even when it is not a tercia: it is flagged, with its
    sum, until the seat takes it back (:class:`Withdraw`)."""

    kind: ClassVar[str] = "lay_tercia"
    seat: int
    cards: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "seat", _seat(self.seat))
        object.__setattr__(self, "cards", _codes(self.cards))


@dataclass(frozen=True, slots=True)
class Withdraw(_Operation):
    """The seat takes back into their hand a laid group flagged as not a
    tercia (``group``: its index among the seat's laid groups)."""

    kind: ClassVar[str] = "withdraw"
    seat: int
    group: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "seat", _seat(self.seat))
        object.__setattr__(self, "group", _seat(self.group))


@dataclass(frozen=True, slots=True)
class Steal(_Operation):
    """El Loco the thief: the seat gives El Loco to ``victim`` and takes the
    victim's laid tercia number ``group`` as a laid tercia of their own."""

    kind: ClassVar[str] = "steal"
    seat: int
    victim: int
    group: int

    def __post_init__(self) -> None:
        for name in ("seat", "victim", "group"):
            object.__setattr__(self, name, _seat(getattr(self, name)))


@dataclass(frozen=True, slots=True)
class Declare(_Operation):
    """The seat shows a Cuadrivium, Gran Cuadrivium or Gran Maestre.

    ``cards`` come from the hand or from the seat's own valid laid tercias
    (a Gran Maestre may use one of them). A Trivium is never declared: it is
    won by laying (or stealing) its third tercia."""

    kind: ClassVar[str] = "declare"
    seat: int
    cards: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "seat", _seat(self.seat))
        object.__setattr__(self, "cards", _codes(self.cards))


@dataclass(frozen=True, slots=True)
class PozoEmpty(_Operation):
    """The seat about to exchange finds the pozo empty (option ``pozo_exhausted``).

    With ``reshuffle`` the olla except its top card becomes the new pozo,
    ``new_pozo`` giving its order (top first) when it is known; with ``draw``
    the game ends with no winner (``new_pozo`` must be None)."""

    kind: ClassVar[str] = "pozo_empty"
    seat: int
    new_pozo: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "seat", _seat(self.seat))
        if self.new_pozo is not None:
            object.__setattr__(self, "new_pozo", _codes(self.new_pozo))


Operation = Union[Deal, DrawFromPozo, TakeFromOlla, LayTercia, Withdraw, Steal, Declare, PozoEmpty]
OPERATION_TYPES: dict[str, type] = {
    t.kind: t for t in (Deal, DrawFromPozo, TakeFromOlla, LayTercia, Withdraw, Steal, Declare, PozoEmpty)
}


CODEC = OperationCodec(OPERATION_TYPES.values(), noun="Trivium operation")


def operation_from_dict(data: dict) -> Operation:
    """The operation a ``to_dict()`` result describes (as stored in a log)."""
    return CODEC.from_dict(data)

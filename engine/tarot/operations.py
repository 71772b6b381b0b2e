"""The operations of a deal: small immutable values, stored as JSON in a log.

Each operation has ``to_dict()``; :func:`operation_from_dict` reads it back.
Cards are kept as codes (strings), so an operation is readable as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from engine.cards import BY_CODE, card
from engine.codec import OperationCodec, OperationError, operation_to_dict
from engine.errors import UnknownCardError
from engine.tarot.tables import BID_ALIASES, BID_NAMES, MISERE_KINDS, POIGNEE_LEVELS


def _code(c: Any, what: str) -> str:
    if isinstance(c, str) and c in BY_CODE:
        return c
    try:
        return card(c).code
    except UnknownCardError as exc:
        raise OperationError(f"{what}: {exc}") from None


def _codes(cs: Any, what: str) -> tuple[str, ...] | None:
    if cs is None:
        return None
    if isinstance(cs, (str, bytes)) or not hasattr(cs, "__iter__"):
        raise OperationError(f"{what}: expected a list of card codes, got {cs!r}")
    return tuple(_code(c, f"{what}[{i}]") for i, c in enumerate(cs))


def _seat(s: Any, what: str = "seat") -> int:
    if not isinstance(s, int) or isinstance(s, bool) or s < 0:
        raise OperationError(f"{what}: expected a seat number (0, 1, ...), got {s!r}")
    return s


class Operation:
    """Base of the operations; ``kind`` is the name used in ``to_dict``."""

    kind: ClassVar[str] = ""
    omit_when_empty: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        return operation_to_dict(self)


@dataclass(frozen=True, slots=True)
class PetitSec(Operation):
    """``seat`` shows a hand whose only trump is the Petit (no Excuse): redeal."""

    seat: int
    kind: ClassVar[str] = "petit_sec"

    def __post_init__(self) -> None:
        _seat(self.seat)


@dataclass(frozen=True, slots=True)
class Bid(Operation):
    """``seat`` speaks: ``pass``, ``prise``, ``garde``, ``garde_sans`` or ``garde_contre``."""

    seat: int
    bid: str
    kind: ClassVar[str] = "bid"

    def __post_init__(self) -> None:
        _seat(self.seat)
        name = str(self.bid).strip().lower().replace(" ", "_").replace("-", "_")
        name = BID_ALIASES.get(name, name)
        if name not in BID_NAMES:
            raise OperationError(f"bid: {self.bid!r} is not one of {', '.join(BID_NAMES)}")
        object.__setattr__(self, "bid", name)


@dataclass(frozen=True, slots=True)
class CallCard(Operation):
    """5 players: the taker calls a King (or a Queen... when holding all the Kings)."""

    card: str
    kind: ClassVar[str] = "call"

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", _code(self.card, "card"))


@dataclass(frozen=True, slots=True)
class RevealChien(Operation):
    """Prise or garde: the chien is turned face up (``cards`` None when not recorded)."""

    cards: tuple[str, ...] | None = None
    kind: ClassVar[str] = "chien"

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", _codes(self.cards, "cards"))


@dataclass(frozen=True, slots=True)
class Ecart(Operation):
    """The taker's discard. ``cards`` None when unseen; ``trumps_shown`` are the
    trumps discarded (they must be shown to the defence)."""

    cards: tuple[str, ...] | None = None
    trumps_shown: tuple[str, ...] = ()
    kind: ClassVar[str] = "ecart"
    omit_when_empty: ClassVar[tuple[str, ...]] = ("trumps_shown",)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", _codes(self.cards, "cards"))
        object.__setattr__(self, "trumps_shown", _codes(self.trumps_shown, "trumps_shown") or ())


@dataclass(frozen=True, slots=True)
class AnnounceChelem(Operation):
    """The taker announces a chelem (and then leads the first trick)."""

    kind: ClassVar[str] = "chelem"


@dataclass(frozen=True, slots=True)
class DeclarePoignee(Operation):
    """``seat`` shows a poignée (``simple``/``double``/``triple``) before its first card."""

    seat: int
    level: str
    shown: tuple[str, ...]
    kind: ClassVar[str] = "poignee"

    def __post_init__(self) -> None:
        _seat(self.seat)
        if self.level not in POIGNEE_LEVELS:
            raise OperationError(f"level: {self.level!r} is not one of {', '.join(POIGNEE_LEVELS)}")
        object.__setattr__(self, "shown", _codes(self.shown, "shown") or ())


@dataclass(frozen=True, slots=True)
class DeclareMisere(Operation):
    """Variant ``misere``: ``seat`` declares a misère ``atout`` (no trump) or
    ``tete`` (no King, Queen, Knight or Jack) before its first card."""

    seat: int
    misere: str
    kind: ClassVar[str] = "misere"

    def __post_init__(self) -> None:
        _seat(self.seat)
        if self.misere not in MISERE_KINDS:
            raise OperationError(f"misere: {self.misere!r} is not one of {', '.join(MISERE_KINDS)}")


@dataclass(frozen=True, slots=True)
class Play(Operation):
    """``seat`` plays ``card`` to the current trick."""

    seat: int
    card: str
    kind: ClassVar[str] = "play"

    def __post_init__(self) -> None:
        _seat(self.seat)
        object.__setattr__(self, "card", _code(self.card, "card"))


OPERATION_TYPES: dict[str, type[Operation]] = {
    t.kind: t for t in (PetitSec, Bid, CallCard, RevealChien, Ecart, AnnounceChelem,
                        DeclarePoignee, DeclareMisere, Play)
}
CODEC = OperationCodec(OPERATION_TYPES.values())


def operation_from_dict(d: Mapping[str, Any]) -> Operation:
    """The operation written by ``op.to_dict()``."""
    return CODEC.from_dict(d)

"""A card the camera got wrong, fixed where it lies: the operation that holds it, with the right card.

The camera's cards go into the deal as operations (a card played, the
chien's six cards, a tercia, a discard...). When one of those cards is wrong,
the player does not undo the trick or re-enter the chien: they choose the
wrong card and name the right one, and the operation is replaced in place
(:meth:`device.app.session.GameSession.replace`, refused when the deal would
no longer replay).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.cards import CODES


def cards_of(op: Any) -> list[str]:
    """The card codes an operation holds, in its fields' order."""
    out = []
    for f in dataclasses.fields(op):
        value = getattr(op, f.name)
        if isinstance(value, str) and value in CODES:
            out.append(value)
        elif isinstance(value, (tuple, list)):
            out += [v for v in value if isinstance(v, str) and v in CODES]
    return out


def latest_holding(operations, code: str) -> int | None:
    """The index of the latest operation that holds the card ``code``; ``None``: none does."""
    for index in range(len(operations) - 1, -1, -1):
        op = operations[index]
        if dataclasses.is_dataclass(op) and code in cards_of(op):
            return index
    return None


def swap_card(op: Any, wrong: str, right: str) -> Any | None:
    """``op`` with its card ``wrong`` replaced by ``right`` (the first place it stands);
    ``None`` when it holds no ``wrong``."""
    if not dataclasses.is_dataclass(op):
        return None
    for f in dataclasses.fields(op):
        value = getattr(op, f.name)
        if value == wrong:
            return dataclasses.replace(op, **{f.name: right})
        if isinstance(value, (tuple, list)) and wrong in value:
            items = list(value)
            items[items.index(wrong)] = right
            return dataclasses.replace(op, **{f.name: type(value)(items)})
    return None


def fixable(operations, last: int = 12) -> list[tuple[int, str, int | None]]:
    """(operation index, card, seat or None) of the cards of the deal's last ``last``
    operations that hold cards, the latest first: what a player may choose to fix."""
    out = []
    for index in range(len(operations) - 1, -1, -1):
        op = operations[index]
        cards = cards_of(op) if dataclasses.is_dataclass(op) else []
        seat = getattr(op, "seat", None)
        out += [(index, c, seat if isinstance(seat, int) else None) for c in cards]
        if len({i for i, _, _ in out}) >= last:
            break
    return out

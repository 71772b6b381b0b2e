"""Reasons in words for any language: a message id with its arguments.

The engines say why they refuse an operation with a :class:`Reason`: a
template (the message id, in English, with named fields) and the values of
its fields. ``str(reason)`` is the English sentence the command line prints;
a screen translates the template (gettext) and renders each argument in its
own language: a seat as the player's name, a card as its name, a contract or a
phase as its word. The engines stay free of languages and of names.

Arguments are typed by their name:

* ``seat``, or a name ending in ``_seat``: a seat number (English: ``seat 2``);
* ``card``, or a name ending in ``_card``: a card code (English: the code);
* ``cards``: a list of card codes (English: ``S01, H07``);
* ``bid``/``contract`` (or ending so), ``phase``, ``level``, ``rank``, ``suit``: a key
  of the rules' vocabulary, shown as the key in English;
* a :class:`Reason`: a sub-sentence, rendered the same way;
* anything else (counts, trick numbers, player names): as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping


def kind_of(name: str) -> str:
    """The kind of an argument from its name: seat, card, cards, word or value."""
    if name == "seat" or name.endswith("_seat"):
        return "seat"
    if name == "card" or name.endswith("_card"):
        return "card"
    if name == "cards" or name.endswith("_cards"):
        return "cards"
    if name in ("bid", "contract", "phase", "level", "rank", "suit") or name.endswith(("_bid", "_contract", "_level", "_rank", "_suit")):
        return "word"
    return "value"


def _english(name: str, value: Any) -> str:
    if isinstance(value, Reason):
        return str(value)
    kind = kind_of(name)
    if kind == "seat" and isinstance(value, int):
        return f"seat {value}"
    if kind == "cards" and not isinstance(value, str):
        return ", ".join(str(v) for v in value)
    return str(value)


@dataclass(frozen=True)
class Reason:
    """A message id (an English template with named fields) and its arguments."""

    template: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.render(_english)

    def render(self, value: Callable[[str, Any], str], translate: Callable[[str], str] = lambda t: t) -> str:
        """The sentence with ``translate(template)`` and each argument as ``value(name, arg)``;
        sub-reasons are rendered the same way."""
        def one(name: str, arg: Any) -> str:
            if isinstance(arg, Reason):
                return arg.render(value, translate)
            return value(name, arg)

        text = translate(self.template)
        fields = {name: one(name, arg) for name, arg in self.args.items()}
        try:
            return text.format(**fields)
        except (KeyError, IndexError, ValueError):  # a catalogue that does not match: English
            return self.template.format(**fields)

    def to_dict(self) -> dict[str, Any]:
        return {"template": self.template,
                "args": {k: (v.to_dict() if isinstance(v, Reason) else v) for k, v in self.args.items()}}


def reason(template: str, **args: Any) -> Reason:
    """``reason("{card} is not in {seat}'s hand", card="H07", seat=2)``."""
    return Reason(template, args)


__all__ = ["Reason", "reason", "kind_of"]

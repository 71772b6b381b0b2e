"""Variant options of French tarot, FFT rules by default.

Every variant of the rules reference (section 2) and every ambiguity of its
section 3 that is a real choice is one named field of :class:`TarotOptions`.
``TarotOptions()`` is the FFT game. A deal record stores only the fields that
differ from the default (``to_dict``), and ``from_dict`` refuses an unknown
name with the list of known ones.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping

from engine.errors import TarotmateError


class OptionError(TarotmateError, ValueError):
    """An unknown option name or a value of the wrong kind."""


POIGNEE_OVERFULL_CHOICES = ("refuse", "trim")


@dataclass(frozen=True, slots=True)
class TarotOptions:
    """The rules in force for a deal or a game (FFT when left at the defaults)."""

    # --- variants (reference section 2) ---------------------------------
    no_trump_lead_until_broken: bool = False
    """Michelsen: no trump may be led until a trump has been played in an earlier
    trick; a hand of only trumps (and the Excuse) may still lead one."""
    game_target: int | None = None
    """Michelsen: the game ends when a player's total reaches this (e.g. 1000)."""
    misere: bool = False
    """House bonus: a player may declare a misère (no trump, or no honours)."""
    misere_bonus: int = 10
    """What each opponent pays a player who declared a misère."""
    misere_excuse_is_trump: bool = False
    """Whether the Excuse spoils a misère d'atout."""
    defence_chelem_bonus: bool = True
    """FFT: each defender gets an extra 200 when the defence takes every trick."""
    chelem_announced_bonus: int = 400
    chelem_unannounced_bonus: int = 200
    chelem_failed_penalty: int = 200
    defence_chelem_value: int = 200

    # --- ambiguities (reference section 3) ------------------------------
    excuse_wins_last_trick_for_defence: bool = True
    """A2: the Excuse played at the last trick by a side that took every earlier
    trick wins it for the defence too (symmetry with the taker's chelem)."""
    called_suit_after_excuse_lead: bool = True
    """A3 (5 players): after an opening lead of the Excuse, the next card may be
    in the called suit."""
    poignee_lower_level_allowed: bool = True
    """A4: a player may show a lower poignée than their trumps allow."""
    poignee_overfull: str = "refuse"
    """A5: a poignée with more cards than its level: "refuse" or "trim" (keep
    the highest trumps, the Excuse last)."""
    poignee_ecart_trump_exception: bool = True
    """A6: a taker may show again a trump discarded (and shown) in the écart."""
    partner_shares_bonuses: bool = True
    """A7 (5 players): the partner takes a third of the whole deal value,
    chelem bonus included; when off, the taker alone takes the chelem bonus."""

    def __post_init__(self) -> None:
        if self.poignee_overfull not in POIGNEE_OVERFULL_CHOICES:
            raise OptionError(
                f"option poignee_overfull: {self.poignee_overfull!r} is not one of "
                f"{', '.join(POIGNEE_OVERFULL_CHOICES)}"
            )
        if self.game_target is not None and (
            not isinstance(self.game_target, int) or isinstance(self.game_target, bool)
            or self.game_target <= 0
        ):
            raise OptionError(f"option game_target: expected a positive whole number or null, "
                              f"got {self.game_target!r}")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "TarotOptions":
        """Options from a mapping of names to values; ``{}`` or None is FFT."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise OptionError(f"options: expected an object of option names, got {data!r}")
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise OptionError(
                    f"unknown option {key!r}; known options: {', '.join(sorted(known))}"
                )
            default = known[key].default
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise OptionError(f"option {key}: expected true or false, got {value!r}")
            elif isinstance(default, int):
                if not isinstance(value, int) or isinstance(value, bool):
                    raise OptionError(f"option {key}: expected a whole number, got {value!r}")
            elif isinstance(default, str) and not isinstance(value, str):
                raise OptionError(f"option {key}: expected a string, got {value!r}")
            values[key] = value
        return cls(**values)

    def to_dict(self, *, all_fields: bool = False) -> dict[str, Any]:
        """The options that differ from FFT (or all of them)."""
        data = asdict(self)
        if all_fields:
            return data
        default = TarotOptions()
        return {k: v for k, v in data.items() if getattr(default, k) != v}


FFT = TarotOptions()

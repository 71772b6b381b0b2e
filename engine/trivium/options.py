"""The Trivium variant settings: every **Decision** of the rules reference.

``docs/trivium.md`` lists them with the rule each one settles.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from engine.errors import TarotmateError

POZO_EXHAUSTED_CHOICES = ("reshuffle", "draw")


@dataclass(frozen=True, slots=True)
class TriviumOptions:
    """How this table plays the points the rule sheet leaves open.

    * ``loco_in_gran_cuadrivium`` (default False): may El Loco stand for the
      missing court of a Gran Cuadrivium? Off: three courts of one suit plus
      El Loco score as a plain Cuadrivium (50). On: they score 100.
    * ``pozo_exhausted`` (default ``"reshuffle"``): when the pozo is empty and
      a player must draw, ``"reshuffle"`` turns the olla except its top card
      into a new pozo; ``"draw"`` ends the game with no winner.
    * ``loco_starts`` (default False): does El Loco count as the lowest major
      arcana when choosing who starts? Off: only majors 1-21 count, and if no
      one holds one the player to the dealer's right starts. On: if no one
      holds a major 1-21, the player holding El Loco starts (and only then the
      dealer's right).
    """

    loco_in_gran_cuadrivium: bool = False
    pozo_exhausted: str = "reshuffle"
    loco_starts: bool = False

    def __post_init__(self) -> None:
        if self.pozo_exhausted not in POZO_EXHAUSTED_CHOICES:
            raise TarotmateError(
                f"pozo_exhausted must be one of {', '.join(POZO_EXHAUSTED_CHOICES)}, "
                f"not {self.pozo_exhausted!r}"
            )
        for name in ("loco_in_gran_cuadrivium", "loco_starts"):
            if not isinstance(getattr(self, name), bool):
                raise TarotmateError(f"option {name} must be true or false")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "TriviumOptions":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise TarotmateError(f"unknown Trivium option(s): {', '.join(repr(k) for k in unknown)}; "
                                 f"known options: {', '.join(sorted(known))}")
        return cls(**data)

"""The simulator's action language: what happens at the table, one action at a time.

A script is a sequence of these frozen actions; :mod:`vision.simulator.timeline`
plans it into frames and :mod:`vision.simulator.scripts` writes whole deals in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from vision.zones import MIDDLE


@dataclass(frozen=True)
class Play:
    """``seat`` plays ``card`` into ``zone``: carried in by a hand, lands on the trick."""

    seat: int
    card: str
    zone: str = MIDDLE


@dataclass(frozen=True)
class Lay:
    """``seat`` lays ``cards`` side by side in its own zone (a Trivium tercia)."""

    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Show:
    """``seat`` lays ``cards`` face up in a row in ``zone`` (e.g. the chien shown)."""

    seat: int
    cards: tuple[str, ...]
    zone: str = MIDDLE


@dataclass(frozen=True)
class Sweep:
    """The cards of ``zone`` are gathered and taken away towards ``seat``."""

    zone: str
    seat: int


@dataclass(frozen=True)
class Hover:
    """``seat`` carries ``card`` over ``zone``, holds it a while, and takes it back: no event."""

    seat: int
    card: str
    zone: str = MIDDLE
    hold: int = 12


@dataclass(frozen=True)
class Move:
    """``seat`` takes ``card`` from where it lies and puts it in ``zone`` (e.g. a tercia stolen
    with El Loco): one ``moved`` event."""

    seat: int
    card: str
    zone: str


@dataclass(frozen=True)
class Take:
    """``seat`` takes ``card`` from the table back to its hand: ``removed`` (``cleared`` if it
    was the last card of its zone)."""

    seat: int
    card: str


@dataclass(frozen=True)
class Idle:
    """Nothing happens for ``frames`` frames."""

    frames: int


@dataclass(frozen=True)
class Light:
    """The light changes to ``gain`` (1.0 = the start) over ``frames`` frames."""

    gain: float
    frames: int = 15


Action = Union[Play, Lay, Show, Sweep, Hover, Move, Take, Idle, Light]


@dataclass(frozen=True)
class Trick:
    """One trick of a deal: the ``leader`` seat plays first, then the next seats in turn."""

    leader: int
    cards: tuple[str, ...]
    winner: int

"""The simulator's one error: a script, table or deck it cannot use."""

from __future__ import annotations

from engine.errors import TarotmateError


class SimulatorError(TarotmateError):
    """A script or deck the simulator cannot use."""

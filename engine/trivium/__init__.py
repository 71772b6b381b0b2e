"""Trivium, the Spanish draw-and-discard tarot game: combinations, game, match, records."""

from engine.trivium.combinations import POINTS, Verdict, classify
from engine.trivium.options import TriviumOptions

__all__ = ["POINTS", "TriviumOptions", "Verdict", "classify"]

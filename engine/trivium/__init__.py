"""Trivium, the Spanish draw-and-discard tarot game.

* :mod:`~engine.trivium.combinations`: which combination a set of cards forms;
* :mod:`~engine.trivium.operations`, :mod:`~engine.trivium.rules`,
  :mod:`~engine.trivium.state`, :mod:`~engine.trivium.game`: the game as a
  state machine (operations, ``can``, ``apply``, ``undo``);
* :mod:`~engine.trivium.match`: several games and running totals;
* :mod:`~engine.trivium.record`: the ``trivium-game/1`` JSON record;
* :mod:`~engine.trivium.bot`: a simple player and ``random_game``.

See ``docs/trivium.md``.
"""

from engine.trivium.bot import Bot, random_game, table_view
from engine.trivium.combinations import POINTS, Verdict, classify
from engine.trivium.game import TriviumGame
from engine.trivium.match import MatchError, TriviumMatch
from engine.trivium.operations import (
    Deal,
    Declare,
    DrawFromPozo,
    IllegalOperation,
    LayTercia,
    Operation,
    PozoEmpty,
    Steal,
    TakeFromOlla,
    Withdraw,
    operation_from_dict,
)
from engine.trivium.options import TriviumOptions
from engine.trivium.record import RecordError, game_from_record, game_to_record

__all__ = [
    "Bot", "Deal", "Declare", "DrawFromPozo", "IllegalOperation", "LayTercia", "MatchError",
    "Operation", "POINTS", "PozoEmpty", "RecordError", "Steal", "TakeFromOlla", "TriviumGame",
    "TriviumMatch", "TriviumOptions", "Verdict", "Withdraw", "classify", "game_from_record",
    "game_to_record", "operation_from_dict", "random_game", "table_view",
]

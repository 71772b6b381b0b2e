"""Tarotmate's table simulator: frames of a table seen from above, with ground truth.

One module per concept:

* :mod:`~vision.simulator.actions` — the action language of scripts (``Play``, ``Sweep``...);
* :mod:`~vision.simulator.layout` — seats, zones and card geometry;
* :mod:`~vision.simulator.deck` — card faces (built-in deck or scans);
* :mod:`~vision.simulator.conditions` — the easy or hard table (light, glare, hands, piles, camera);
* :mod:`~vision.simulator.timeline` — a script planned into movements, the state at a frame;
* :mod:`~vision.simulator.hands` — the hands over the table;
* :mod:`~vision.simulator.renderer` — pixels: table, cards, hands, light, noise;
* :mod:`~vision.simulator.truth` — expected events and per-frame card truth;
* :mod:`~vision.simulator.table` — :class:`TableSimulator`, which puts them together;
* :mod:`~vision.simulator.scripts` — whole deals as scripts;
* :mod:`~vision.simulator.recogniser` — a recogniser reading the ground truth;
* :mod:`~vision.simulator.scoring` — table events scored against the expected ones.

Everything a user needs is importable from ``vision.simulator`` itself.
"""

from vision.simulator.actions import Action, Hover, Idle, Lay, Light, Move, Play, Show, Sweep, Take, Trick
from vision.simulator.conditions import CONDITIONS, EASY, Lamp, SimConditions, draw_sim_conditions
from vision.simulator.deck import Deck
from vision.simulator.errors import SimulatorError
from vision.simulator.layout import CARD_ASPECT, DEFAULT_FPS, DEFAULT_SIZE, Seat, TableLayout
from vision.simulator.recogniser import GroundTruthRecogniser, TruthNaming
from vision.simulator.scoring import EventScore, score_events
from vision.simulator.scripts import french_deal_script, random_tricks, trick_script, trivium_script
from vision.simulator.table import TableSimulator
from vision.simulator.truth import CardTruth, ExpectedEvent, SimFrame

__all__ = [
    "Action", "CARD_ASPECT", "CONDITIONS", "EASY", "Lamp", "SimConditions", "draw_sim_conditions", "CardTruth", "DEFAULT_FPS", "DEFAULT_SIZE", "Deck", "EventScore", "ExpectedEvent",
    "GroundTruthRecogniser", "Hover", "Idle", "Lay", "Light", "Move", "Play", "Seat", "Show", "SimFrame",
    "SimulatorError", "Sweep", "TableLayout", "TableSimulator", "Take", "Trick", "TruthNaming",
    "french_deal_script", "random_tricks", "score_events", "trick_script", "trivium_script",
]

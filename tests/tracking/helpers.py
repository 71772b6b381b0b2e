"""Running the tracker on the simulated table, with the simulator's ground truth as recogniser."""

from __future__ import annotations

from vision.deck_reading import READ_CARDS, DeckReading
from vision.simulator import GroundTruthRecogniser, TableSimulator
from vision.sources import Frame
from vision.tracker import Tracker, TrackerSettings

SMALL = (640, 360)


def read_deck() -> DeckReading:
    """A gauge of a deck already judged read (READ_CARDS cards read surely): the bars for one card
    decide, not the caution of a deck not judged yet (``TrackerSettings.unjudged_sure``)."""
    reading = DeckReading()
    for _ in range(READ_CARDS):
        reading.decided(1.0)
    return reading


def run_on_truth(script, *, players=4, seed=0, size=SMALL, localiser=None, settings=TrackerSettings(), **oracle_options):
    """(simulator, recogniser, tracker, events) after tracking every frame of ``script``."""
    sim = TableSimulator(script, players=players, seed=seed, size=size)
    oracle = GroundTruthRecogniser(sim, **oracle_options)
    tracker = Tracker(sim.zones, localiser=localiser or oracle.localise, namer=oracle, cropper=oracle.crop, settings=settings)
    events = []
    for f in oracle.frames():
        events += tracker.process(Frame(f.image, f.timestamp, f.index))
    events += tracker.flush()
    return sim, oracle, tracker, events

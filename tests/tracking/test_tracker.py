"""The tracker's logic on simulated frames, with the simulator's ground truth standing in for recognition."""

import types

import numpy as np
import pytest

from vision.events import TableEvent
from vision.simulator import Hover, Idle, Lay, Light, Move, Play, Sweep, Take, french_deal_script, random_tricks, score_events
from vision.sources import Frame
from vision.tracker import Tracker, quad_distance
from vision.zones import default_zones

from .helpers import run_on_truth


def card_events(events):
    return [(e.type, e.card, e.zone) for e in events]


def test_each_played_card_once_in_order_then_cleared():
    tricks = random_tricks(2, players=4, seed=11)
    script = french_deal_script(tricks, players=4)
    sim, _, _, events = run_on_truth(script, seed=11)
    expected = []
    for t in tricks:
        expected += [("appeared", c, "middle") for c in t.cards] + [("cleared", None, "middle")]
    assert card_events(events) == expected
    score = score_events(sim.expected, events)
    assert score.right == 8 and score.spurious == 0 and score.in_order
    assert max(score.latencies) <= 8  # frames from rest to the event
    assert max(score.cleared_latencies) <= 10


def test_five_player_trick_with_overlapping_cards():
    tricks = random_tricks(1, players=5, seed=4)
    sim, _, _, events = run_on_truth(french_deal_script(tricks, players=5), players=5, seed=4)
    assert card_events(events) == [("appeared", c, "middle") for c in tricks[0].cards] + [("cleared", None, "middle")]


def test_a_card_carried_over_the_table_and_taken_back_gives_no_event():
    sim, _, tracker, events = run_on_truth([Idle(3), Hover(1, "T21", hold=20), Hover(3, "SK", hold=8), Idle(5)])
    assert sim.expected == []
    assert events == []
    assert tracker.stats.crops == 0  # never still, never named


def test_a_sweep_gives_one_cleared_and_no_removed():
    script = [Idle(3), Play(1, "H01"), Play(2, "H02"), Play(3, "H03"), Idle(5), Sweep("middle", 3), Idle(5)]
    _, _, _, events = run_on_truth(script, seed=3)
    assert [e.type for e in events] == ["appeared"] * 3 + ["cleared"]
    assert events[-1].zone == "middle" and events[-1].card is None and events[-1].corners is None


def test_low_confidence_becomes_uncertain_never_a_guess():
    script = [Idle(3), Play(1, "H07"), Play(2, "C03"), Idle(5)]
    _, _, _, events = run_on_truth(script, seed=2, doubtful=["H07"])
    assert [e.type for e in events] == ["uncertain", "appeared"]
    unsure = events[0]
    assert unsure.card is None
    assert unsure.candidates[0][0] == "H07"
    assert unsure.confidence == pytest.approx(0.35)
    assert events[1].card == "C03"


def test_still_cards_are_not_named_again_and_idle_frames_skip_localisation():
    script = [Idle(3), Play(1, "D05"), Play(2, "S09"), Idle(90)]
    _, oracle, tracker, events = run_on_truth(script, seed=5)
    assert [e.card for e in events] == ["D05", "S09"]
    # each card is named on a few still frames only, not on every frame it lies there
    assert oracle.crops_named <= 2 * tracker.settings.votes
    # the long idle end is not localised frame after frame
    assert tracker.stats.localised < tracker.stats.frames - 80


def test_lighting_changes_make_no_event():
    script = [Idle(3), Play(1, "T11"), Light(0.6, 12), Idle(10), Light(1.3, 6), Idle(10)]
    _, _, _, events = run_on_truth(script, seed=6)
    assert card_events(events) == [("appeared", "T11", "middle")]


def test_tercias_laid_in_seat_zones():
    script = [Idle(3), Lay(1, ("T10", "H05", "S06")), Lay(3, ("C10", "D10", "H01")), Idle(5)]
    _, _, _, events = run_on_truth(script, seed=8)
    assert card_events(events) == [
        ("appeared", "T10", "seat1"), ("appeared", "H05", "seat1"), ("appeared", "S06", "seat1"),
        ("appeared", "C10", "seat3"), ("appeared", "D10", "seat3"), ("appeared", "H01", "seat3"),
    ]


class ScriptedLocaliser:
    """Returns the quads given for each frame index (the last ones after the end)."""

    def __init__(self, quads_by_frame):
        self.quads_by_frame = quads_by_frame
        self.index = 0

    def __call__(self, image):
        return self.quads_by_frame[min(self.index, len(self.quads_by_frame) - 1)]


class FixedNamer:
    def __init__(self, card, confidence):
        self.card, self.confidence = card, confidence
        self.calls = 0

    def name(self, crops):
        self.calls += len(crops)
        return [type("N", (), {"card": self.card, "confidence": self.confidence})() for _ in crops]


QUAD = np.array([[100, 100], [160, 100], [160, 210], [100, 210]], np.float32)


def _frames(n, with_card_from=0):
    base = np.full((360, 640, 3), 60, np.uint8)
    for i in range(n):
        img = base.copy()
        if i >= with_card_from:
            img[100:210, 100:160] = 220
        yield Frame(img, i / 30, i)


def _track(namer, n=12, card_from=2):
    loc = ScriptedLocaliser([[] for _ in range(card_from)] + [[QUAD]] * (n - card_from))
    tracker = Tracker(default_zones(), localiser=loc, namer=namer, cropper=lambda frame, quad: quad)
    events = []
    for frame in _frames(n, card_from):
        loc.index = frame.index
        events += tracker.process(frame)
    return tracker, events + tracker.flush()


def test_a_card_the_namer_rejects_gives_no_event():
    namer = FixedNamer(None, 0.95)
    _, events = _track(namer)
    assert events == []


def test_a_confident_card_appears_with_its_corners():
    tracker, events = _track(FixedNamer("EX", 0.9))
    assert len(events) == 1
    e = events[0]
    assert (e.type, e.card, e.zone) == ("appeared", "EX", "middle")
    assert quad_distance(np.array(e.corners), QUAD) < 1e-3
    assert e.confidence == pytest.approx(0.9)
    assert tracker.cards == [{"card": "EX", "zone": "middle", "corners": e.corners}]


def test_event_dicts_are_json_ready():
    e = TableEvent("uncertain", 12, 0.4, "middle", None, [[1, 2], [3, 4], [5, 6], [7, 8]], 0.41, [("H07", 0.41), (None, 0.3)])
    d = e.to_dict()
    assert d == {
        "type": "uncertain", "frame": 12, "time": 0.4, "zone": "middle", "card": None,
        "corners": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], "confidence": 0.41,
        "candidates": [["H07", 0.41], [None, 0.3]],
    }
    with pytest.raises(ValueError, match="unknown table event type"):
        TableEvent("played", 1, 0.0, "middle")


def test_a_card_taken_to_another_zone_is_moved_once():
    script = [Idle(3), Lay(1, ("T10", "H05", "S06")), Idle(5), Move(3, "H05", "seat3"), Idle(5)]
    sim, _, _, events = run_on_truth(script, seed=3)
    assert card_events(events) == [
        ("appeared", "T10", "seat1"), ("appeared", "H05", "seat1"), ("appeared", "S06", "seat1"),
        ("moved", "H05", "seat3"),
    ]
    moved = events[-1]
    assert moved.frame - sim.expected[-1].frame <= 8


def test_a_card_taken_away_alone_is_removed_after_the_wait():
    script = [Idle(3), Play(1, "C07"), Play(2, "C08"), Idle(5), Move(2, "C08", "seat2"), Idle(3), Sweep("seat2", 2), Idle(60)]
    _, _, tracker, events = run_on_truth(script, seed=4)
    kinds = card_events(events)
    assert kinds[:3] == [("appeared", "C07", "middle"), ("appeared", "C08", "middle"), ("moved", "C08", "seat2")]
    # the only card of seat2 taken away: its zone is cleared (after the wait for a possible move)
    assert kinds[3:] == [("cleared", None, "seat2")]


def test_a_card_taken_back_from_a_trick_is_removed():
    script = [Idle(3), Play(1, "D01"), Play(2, "D02"), Play(3, "D03"), Idle(5), Take(3, "D03"), Idle(70)]
    sim, _, _, events = run_on_truth(script, seed=9)
    assert [(e.type, e.card) for e in sim.expected][-1] == ("removed", "D03")
    assert card_events(events) == [
        ("appeared", "D01", "middle"), ("appeared", "D02", "middle"), ("appeared", "D03", "middle"),
        ("removed", "D03", "middle"),
    ]


class _SplitNamer:
    """Names C03 as C02 and S02 in turn, each time confidently (a look-alike the model cannot settle)."""

    def __init__(self):
        self.calls = 0

    def name(self, crops):
        out = []
        for code in crops:
            if code == "C03":
                self.calls += 1
                out.append(types.SimpleNamespace(card="C02" if self.calls % 2 else "S02", confidence=0.8))
            else:
                out.append(types.SimpleNamespace(card=code, confidence=0.97))
        return out


def test_a_confident_vote_for_another_card_makes_a_question_not_the_majority():
    from vision.simulator import GroundTruthRecogniser, TableSimulator

    sim = TableSimulator([Idle(3), Play(1, "C03"), Play(2, "H05"), Idle(8)], seed=2, size=(640, 360))
    oracle = GroundTruthRecogniser(sim)
    namer = _SplitNamer()
    tracker = Tracker(sim.zones, localiser=oracle.localise, namer=namer, cropper=oracle.crop)
    events = []
    for f in oracle.frames():
        events += tracker.process(Frame(f.image, f.timestamp, f.index))
    events += tracker.flush()
    assert [(e.type, e.card) for e in events] == [("uncertain", None), ("appeared", "H05")]
    assert {c for c, _ in events[0].candidates} == {"C02", "S02"}

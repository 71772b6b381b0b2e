"""The table simulator: lazy frames, ground truth, scripts, decks."""

import types

import numpy as np
import pytest

from vision.builtin_deck import write_deck
from vision.simulator import (
    Deck,
    Hover,
    Idle,
    Light,
    Move,
    Play,
    Show,
    SimulatorError,
    Sweep,
    TableSimulator,
    Trick,
    french_deal_script,
    random_tricks,
    score_events,
    trivium_script,
)
from vision.events import TableEvent

SMALL = (640, 360)


def test_frames_are_rendered_lazily_with_timestamps():
    sim = TableSimulator([Idle(5), Play(1, "H07"), Idle(3)], size=SMALL, fps=30)
    frames = sim.frames()
    assert isinstance(frames, types.GeneratorType)
    first = next(frames)
    assert first.image.shape == (360, 640, 3) and first.image.dtype == np.uint8
    assert first.index == 0 and first.timestamp == 0.0
    rest = list(frames)
    assert len(rest) + 1 == len(sim)
    assert rest[-1].timestamp == pytest.approx((len(sim) - 1) / 30)


def test_a_played_card_rests_at_the_expected_frame_in_the_middle():
    sim = TableSimulator([Idle(2), Play(2, "T21"), Idle(4)], size=SMALL, seed=4)
    (expected,) = sim.expected
    assert (expected.type, expected.card, expected.zone) == ("appeared", "T21", "middle")
    poses = {}
    for f in sim.frames():
        for t in f.cards:
            poses[f.index] = (t.moving, t.corners.copy(), t.zone, t.visible)
    moving_before, corners_before, _, _ = poses[expected.frame - 1]
    moving, corners, zone, _ = poses[expected.frame]
    assert moving_before and not moving and zone == "middle"
    assert not np.allclose(corners_before, corners)
    last_moving, last_corners, _, last_visible = poses[max(poses)]
    assert not last_moving and np.allclose(last_corners, corners) and last_visible == 1.0
    assert min(poses) == 2  # on the table from the frame its play starts (after Idle(2))


def test_a_card_in_hand_is_partly_covered_by_the_palm():
    sim = TableSimulator([Idle(2), Play(1, "SK"), Idle(2)], size=SMALL, seed=1)
    carried = [t for f in sim.frames() for t in f.cards if t.moving]
    covered = [t for t in carried if t.visible < 0.95]
    assert len(carried) >= 8 and len(covered) >= 0.8 * len(carried)


def test_trick_cards_overlap_and_the_sweep_empties_the_zone():
    tricks = [Trick(2, ("H01", "H02", "H03", "H04"), 3)]
    sim = TableSimulator(french_deal_script(tricks, players=4), size=SMALL, seed=2)
    kinds = [(e.type, e.card) for e in sim.expected]
    assert kinds == [("appeared", "H01"), ("appeared", "H02"), ("appeared", "H03"), ("appeared", "H04"), ("cleared", None)]
    cleared = sim.expected[-1].frame
    full = None
    for f in sim.frames():
        if f.index == cleared - 30:
            full = f
        if f.index == cleared:
            assert all(t.zone != "middle" for t in f.cards)
        if f.index == len(sim) - 1:
            assert f.cards == ()
    assert len(full.cards) == 4
    assert min(t.visible for t in full.cards) < 0.95  # later cards lie over earlier ones


def test_french_deal_script_plays_in_turn_from_the_leader():
    script = french_deal_script([(3, ("C01", "C02", "C03", "C04"), 1)], players=4, chien=("T01", "T02", "T03"), taker=2)
    plays = [(a.seat, a.card) for a in script if isinstance(a, Play)]
    assert plays == [(3, "C01"), (4, "C02"), (1, "C03"), (2, "C04")]
    assert [a for a in script if isinstance(a, Show)] == [Show(2, ("T01", "T02", "T03"))]
    assert [a for a in script if isinstance(a, Sweep)] == [Sweep("middle", 2), Sweep("middle", 1)]
    with pytest.raises(SimulatorError, match="3 cards for 4 players"):
        french_deal_script([(1, ("C01", "C02", "C03"), 1)], players=4)
    with pytest.raises(SimulatorError, match="taker"):
        french_deal_script([], chien=("T01",))


def test_script_errors_are_clear():
    with pytest.raises(SimulatorError, match="already on the table"):
        TableSimulator([Play(1, "H07"), Play(2, "H07")], size=SMALL)
    with pytest.raises(SimulatorError, match="nothing to sweep"):
        TableSimulator([Sweep("middle", 1)], size=SMALL)
    with pytest.raises(SimulatorError, match="seat 5 does not exist"):
        TableSimulator([Play(5, "H07")], size=SMALL)
    with pytest.raises(SimulatorError, match="unknown card code"):
        TableSimulator([Play(1, "Z99")], size=SMALL)
    with pytest.raises(SimulatorError, match="no zone 'bar'"):
        TableSimulator([Play(1, "H07", zone="bar")], size=SMALL)
    with pytest.raises(SimulatorError, match="2 to 5 players"):
        TableSimulator([], players=6)
    with pytest.raises(SimulatorError, match="not on the table"):
        TableSimulator([Move(1, "H07", "seat2")], size=SMALL)


def test_other_actions_have_their_ground_truth():
    script = trivium_script([(1, ("T10", "H05", "S06"))]) + [
        Hover(2, "EX"), Light(0.7, 5), Show(3, ("D01", "D02")), Move(2, "H05", "seat2"), Sweep("seat1", 1),
    ]
    sim = TableSimulator(script, size=SMALL, seed=3)
    assert [(e.type, e.card, e.zone) for e in sim.expected] == [
        ("appeared", "T10", "seat1"), ("appeared", "H05", "seat1"), ("appeared", "S06", "seat1"),
        ("appeared", "D01", "middle"), ("appeared", "D02", "middle"),
        ("moved", "H05", "seat2"), ("cleared", None, "seat1"),
    ]


def test_random_tricks_use_distinct_cards():
    tricks = random_tricks(15, players=5, seed=9)
    cards = [c for t in tricks for c in t.cards]
    assert len(cards) == len(set(cards)) == 75
    with pytest.raises(SimulatorError):
        random_tricks(16, players=5)


def test_deck_folder_is_used_and_checked(tmp_path):
    write_deck(tmp_path)
    deck = Deck(tmp_path)
    assert deck.name == tmp_path.name
    assert deck.scaled("T21", 44, 80).shape == (80, 44, 3)
    (tmp_path / "T21.png").unlink()
    with pytest.raises(SimulatorError, match="lacks 1 of the 78 cards"):
        Deck(tmp_path)
    with pytest.raises(SimulatorError, match="deck folder not found"):
        Deck(tmp_path / "nope")


def test_real_deck_scans_render(decks_dir):
    deck = sorted(p for p in decks_dir.iterdir() if p.is_dir())[0]
    sim = TableSimulator([Play(1, "T21"), Idle(2)], size=SMALL, deck=deck, seed=1)
    last = list(sim.frames())[-1]
    (truth,) = last.cards
    x, y = truth.corners.mean(0).astype(int)
    assert last.image[y - 5:y + 5, x - 5:x + 5].std() > 0 or last.image[y, x].sum() > 0


def test_score_events_counts_right_wrong_missed_spurious():
    sim = TableSimulator([Idle(2), Play(1, "H01"), Play(2, "H02"), Play(3, "H03"), Sweep("middle", 1)], size=SMALL)
    exp = sim.expected
    ev = [
        TableEvent("appeared", exp[0].frame + 4, 0, "middle", "H01"),
        TableEvent("appeared", exp[1].frame + 5, 0, "middle", "S02"),  # wrong card
        TableEvent("removed", exp[1].frame + 9, 0, "middle", "H01"),  # spurious
        TableEvent("cleared", exp[3].frame + 3, 0, "middle"),
    ]
    score = score_events(exp, ev)
    assert (score.right, score.wrong, score.missed, score.spurious) == (1, 1, 1, 1)
    assert score.latencies == [4] and score.cleared_latencies == [3]


def test_a_card_renamed_scores_as_first_reported_under_its_new_name():
    sim = TableSimulator([Idle(2), Play(1, "H01"), Play(2, "H02"), Sweep("middle", 1)], size=SMALL)
    exp = sim.expected
    ev = [
        TableEvent("appeared", exp[0].frame + 4, 0, "middle", "H07"),  # misread...
        TableEvent("appeared", exp[1].frame + 5, 0, "middle", "H02"),
        TableEvent("renamed", exp[1].frame + 9, 0, "middle", "H01", was="H07"),  # ...then seen surely
        TableEvent("renamed", exp[1].frame + 9, 0, "middle", "H03", was="S05"),  # of no card reported: spurious
        TableEvent("cleared", exp[2].frame + 3, 0, "middle"),
    ]
    score = score_events(exp, ev)
    assert (score.right, score.wrong, score.missed, score.spurious) == (2, 0, 0, 1)
    assert score.latencies == [4, 5]

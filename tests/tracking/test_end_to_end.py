"""End to end on simulated frames: the real localiser (and the real card model when it is built)."""

import pytest

from vision.namer import MODEL_FILE, models_dir
from vision.simulator import TableSimulator, french_deal_script, random_tricks, score_events
from vision.sources import Frame
from vision.tracker import Tracker


def _needs_model():
    if not (models_dir() / MODEL_FILE).is_file():
        pytest.skip(f"needs the card model models/{MODEL_FILE}, which is not built here")
    from vision.namer import Namer

    return Namer.load()


def _play(players, seed, namer=None, deck=None, tricks=1):
    script = french_deal_script(random_tricks(tricks, players, seed=seed), players=players)
    sim = TableSimulator(script, players=players, seed=seed, deck=deck)
    if namer is None:
        from vision.simulator import GroundTruthRecogniser

        oracle = GroundTruthRecogniser(sim)
        tracker = Tracker(sim.zones, namer=oracle, cropper=oracle.crop)  # the real localiser
        frames = oracle.frames()
    else:
        tracker = Tracker(sim.zones, namer=namer)
        frames = sim.frames()
    events = []
    for f in frames:
        events += tracker.process(Frame(f.image, f.timestamp, f.index))
    events += tracker.flush()
    return sim, events


@pytest.mark.parametrize("players, seed", [(4, 21), (5, 22)])
def test_real_localiser_finds_every_played_card_in_order(players, seed):
    sim, events = _play(players, seed)
    score = score_events(sim.expected, events)
    assert score.right == players, score.details
    assert score.spurious == 0 and score.in_order, score.details
    assert max(score.latencies) <= 8 and max(score.cleared_latencies) <= 10


def test_real_model_on_the_builtin_deck():
    namer = _needs_model()
    sim, events = _play(4, 31, namer=namer)
    score = score_events(sim.expected, events)
    assert score.right + score.uncertain == 4 and score.wrong == 0 and score.spurious == 0, score.details
    assert score.cleared_right == 1


@pytest.mark.shared
def test_real_model_on_deck_scans(trained_decks):
    namer = _needs_model()
    deck = trained_decks[0]
    sim, events = _play(4, 32, namer=namer, deck=deck)
    score = score_events(sim.expected, events)
    assert score.wrong == 0 and score.spurious == 0, score.details
    assert score.right + score.uncertain == 4, score.details


def test_events_carry_the_best_view_for_the_deck_memory():
    namer = _needs_model()
    sim, events = _play(4, 31, namer=namer)
    named = [e for e in events if e.type in ("appeared", "uncertain")]
    assert named
    for e in named:
        assert e.view is not None and e.view.shape == (128,)
        assert abs(float((e.view ** 2).sum()) - 1) < 1e-3  # the model's unit embedding
        assert "view" not in e.to_dict()  # the JSON contract is unchanged
    assert all(e.view is None for e in events if e.type in ("cleared", "removed"))

"""The table learns its deck as it plays (``device.app.deck_learning``): answered cards at once,
undisputed ones when the deal is scored, undone ones never; and a demo that learns."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from device.app.deck_learning import TableLearner, ref_of
from vision.deck_memory import DeckMemory, memory_path_beside
from vision.namer import MODEL_FILE, models_dir

D = 8


def view(seed):
    v = np.random.default_rng(seed).normal(size=D)
    return v / np.linalg.norm(v)


@pytest.fixture()
def table(tmp_path):
    memory = DeckMemory(tmp_path / "deck-memory.db", "m", D)
    session = SimpleNamespace(game=SimpleNamespace(id=3), deal=SimpleNamespace(number=1))
    yield TableLearner(memory), session, memory
    memory.close()


def test_an_answer_teaches_at_once_and_an_undo_takes_it_back(table):
    learner, session, memory = table
    learner.answered(session, "T07", view(1), 4)
    assert memory.known_cards() == ("T07",)
    assert memory.cards()[0].sources == {"answer": 1}
    learner.undone(session, 4)  # back to 4 operations: operation 4 is gone
    assert memory.known_cards() == ()


def test_committed_cards_teach_only_once_the_deal_is_scored(table):
    learner, session, memory = table
    learner.committed(session, "H01", view(2), 0)
    learner.committed(session, "H02", view(3), 1)
    learner.committed(session, "H03", view(4), 2)
    assert memory.known_cards() == ()  # not proven yet
    learner.undone(session, 2)  # the third was a wrong read, undone
    assert learner.deal_scored(session) == 2
    assert memory.known_cards() == ("H01", "H02") and memory.cards()[0].sources == {"confirmed": 1}
    learner.committed(session, "S01", view(5), 0)
    learner.new_deal()  # the deal was closed without a score
    assert learner.deal_scored(session) == 0 and "S01" not in memory.known_cards()
    assert ref_of(session, 7) == "3/1/7"


def test_no_view_no_learning(table):
    learner, session, memory = table
    learner.answered(session, "T07", None, 0)
    learner.committed(session, "T08", None, 1)
    assert learner.deal_scored(session) == 0 and memory.views_count() == 0


def test_a_demo_that_learns_its_deck_keeps_what_it_learned(tmp_path):
    if not (models_dir() / MODEL_FILE).is_file():
        pytest.skip("needs the card model")
    from device.demo.table import DemoSettings, run_demo

    settings = DemoSettings(players=3, seed=3, out=tmp_path, fast=True, display="none", recogniser="model",
                            frame_width=640, speed=3.0, learn_deck=True)
    result = run_demo(settings, report=lambda t: None)
    memory = memory_path_beside(tmp_path / "demo.db")
    assert memory.is_file()
    assert "learning the deck" in result["stats"].recognition
    import subprocess
    import sys

    shown = subprocess.run([sys.executable, "-m", "device.cli", "deck", "memory", "--db", str(tmp_path / "demo.db"),
                            "--json"], capture_output=True, text=True, timeout=60)
    data = json.loads(shown.stdout)
    camera = result["stats"].camera()
    # every card read right or answered in the scored deal taught a view (near-duplicates aside)
    assert data["views"] >= 0.8 * (camera["right"] + camera["confirmed"]) > 0
    assert set(data["cards"][0]["sources"]) <= {"answer", "confirmed"}

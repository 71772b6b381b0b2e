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


def test_between_two_deals_the_memory_finds_what_its_keypoint_checks_read(tmp_path):
    from tests.vision.test_card_keypoints import engraving, seen_again
    from vision.deck_memory import view_of

    memory = DeckMemory(tmp_path / "deck-memory.db", "m", 4)
    learner = TableLearner(memory)
    session = SimpleNamespace(game=SimpleNamespace(id=3), deal=SimpleNamespace(number=1))
    e = np.array([[1.0, 0, 0, 0]], np.float32)
    learner.committed(session, "S07", view_of(e, [engraving(7)])[0], 0)
    learner.committed(session, "S07", view_of(e, [seen_again(engraving(7), seed=2, dx=-2)])[0], 1)
    learner.committed(session, "S08", view_of(e, [engraving(8)])[0], 2)
    assert learner.deal_scored(session) == 3
    assert memory.derive() == 0  # found (and kept in the file) when the deal was scored
    assert memory.places_agreed(memory._kept()[0][0], memory._kept()[0]).tolist() == [True, True]
    memory.close()


def test_the_models_probabilities_of_a_view_are_kept_with_it(table):
    learner, session, memory = table
    p = np.zeros(79, np.float32)
    p[5] = 1.0
    learner.answered(session, "T07", view(1), 0, p)
    learner.committed(session, "T08", view(2), 1, p)
    learner.committed(session, "T09", view(3), 2)  # a namer that gives no probabilities
    learner.renamed(session, 1, "T08", "T10")
    assert learner.deal_scored(session) == 2
    kept = dict(memory._db.execute("SELECT card, probs IS NOT NULL FROM views").fetchall())
    assert kept == {"T07": 1, "T10": 1, "T09": 0}


def test_a_views_red_ink_is_kept_with_it(table):
    learner, session, memory = table
    learner.answered(session, "H07", view(1), 0, None, 31.5)
    learner.committed(session, "D08", view(2), 1, None, 2.0)
    learner.committed(session, "S09", view(3), 2)  # measured none
    learner.renamed(session, 1, "D08", "D09")
    assert learner.deal_scored(session) == 2
    kept = dict(memory._db.execute("SELECT card, red FROM views").fetchall())
    assert kept == {"H07": 31.5, "D09": 2.0, "S09": None}


def test_a_memory_that_fails_stops_the_learning_not_the_game(table):
    from device.app.deck_learning import known_cards

    learner, session, memory = table
    said = []
    learner.report = said.append
    learner.answered(session, "T07", view(1), 0)
    app = SimpleNamespace(controller=SimpleNamespace(learner=learner))
    assert known_cards(app) == 1 and learner.stopped is None
    memory._db.close()  # the file cannot be written any more (a full disk, the card pulled out)
    learner.answered(session, "T08", view(2), 1)  # said, not raised
    learner.committed(session, "T09", view(3), 2)
    assert learner.deal_scored(session) == 0
    learner.undone(session, 0)
    learner.renamed(session, 0, "T07", "T06")
    assert learner.forget_all() is None and known_cards(app) is None
    assert said == [learner.stopped] and said[0].startswith("the table stopped learning its deck (")


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


def test_the_game_menus_show_the_cards_known_and_forget_them(tmp_path):
    from device.app.controller import INFO
    from device.app.registry import game_for
    from device.app.session import GameSession
    from device.games.french_tarot.controller import TarotController
    from device.games.french_tarot.menus import GameMenu
    from device.games.trivium.menus import TriviumMenu
    from device.storage.deal_log import DealLog

    assert not any("cards known" in label for label, _ in GameMenu(["A", "B", "C"]).step.options)
    flow = GameMenu(["A", "B", "C"], known_cards=3)
    labels = [label for label, _ in flow.step.options]
    assert labels[-1] == "Deck: 3 cards known"
    down, ok = ("down", "press"), ("ok", "press")
    decisions = []
    for _ in range(len(labels) - 1):
        decisions += flow.handle(down)
    decisions += flow.handle(ok) + flow.handle(down) + flow.handle(ok)  # "Forget the deck?" No / Yes
    assert decisions == [("forget_deck",)]
    assert "Jeu : 5 cartes connues" in [label for label, _ in GameMenu(["A", "B", "C"], lang="fr", known_cards=5).step.options]
    from engine.trivium import random_game

    trivium = TriviumMenu(random_game(["A", "B", "C"], 1), ["A", "B", "C"], known_cards=0)
    assert [label for label, _ in trivium.step.options][-1] == "Deck: 0 cards known"

    with DealLog.open(tmp_path / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), ["A", "B", "C", "D"], label="t")
        c = TarotController(session)
        assert c.on_decision(("forget_deck",))[0].text == "the table does not learn its deck"
        memory = DeckMemory(tmp_path / "deck-memory.db", "m", D)
        c.learner = TableLearner(memory)
        c.learner.answered(session, "T01", view(1), 0)
        notices = c.on_decision(("forget_deck",))
        assert notices[0].kind == INFO and "1 views" in notices[0].text and memory.views_count() == 0
        memory.close()
        notices = c.on_decision(("forget_deck",))  # a memory that fails: said on the screen, no traceback
        assert notices[0].kind == INFO and notices[0].text.startswith("the table stopped learning its deck")

"""The table's memory of its deck (``vision.deck_memory``): proven views kept, bounded and diverse,
forgotten with the card they came from, kept through a kill, never mixed across models."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from engine.cards import CODES
from vision.card_keypoints import KEYPOINTS_DIM, keypoints_of
from vision.card_picture import PICTURE_DIM
from vision.deck_memory import DeckMemory, DeckMemoryError, fuse

ROOT = Path(__file__).resolve().parents[2]
D = 16


def unit(rng, n=1):
    x = rng.normal(size=(n, D)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_learns_forgets_and_resets(tmp_path):
    rng = np.random.default_rng(1)
    with DeckMemory(tmp_path / "m.db", "model-a", D) as m:
        assert m.known_cards() == () and m.views_count() == 0
        a, b = unit(rng, 2)
        assert m.learn("T21", a, "answer", "g1/d1/op5")
        assert not m.learn("T21", a, "confirmed", "g1/d1/op9")  # the same view again adds nothing
        assert m.learn("H03", b, "by_hand", "g1/d2/op1")
        assert m.known_cards() == ("T21", "H03")  # in engine.cards.CODES order
        sim = m.similarity(np.vstack([a, b]))
        assert sim.shape == (2, 78)
        assert sim[0, CODES.index("T21")] == pytest.approx(1.0, abs=1e-5)
        assert sim[0, CODES.index("S01")] == -1.0  # no view of that card
        assert m.forget("g1/d1/op5") == 1 and m.known_cards() == ("H03",)
        assert m.forget_prefix("g1/") == 1 and m.views_count() == 0
        m.learn("EX", a, "answer", "x")
        assert m.reset() == 1 and m.views_count() == 0


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(0, 10**6))
def test_a_card_keeps_at_most_per_card_views_the_most_different(tmp_path_factory, per_card, seed):
    rng = np.random.default_rng(seed)
    path = tmp_path_factory.mktemp("m") / "m.db"
    with DeckMemory(path, "m", D, per_card=per_card) as m:
        base = unit(rng)[0]
        views = [base + 0.05 * unit(rng)[0] for _ in range(3)] + list(unit(rng, 6))  # three near-twins, then six apart
        for k, v in enumerate(views):
            m.learn("C05", v, "confirmed", f"r{k}")
        (card,) = m.cards()
        assert card.card == "C05" and card.views == min(per_card, len(views))
        _, kept = m._views()
        if per_card >= 2:
            sim = kept @ kept.T
            np.fill_diagonal(sim, -1)
            assert sim.max() < 0.995  # never two copies of one view


def test_views_of_another_model_are_dropped_and_bad_views_refused(tmp_path):
    rng = np.random.default_rng(2)
    with DeckMemory(tmp_path / "m.db", "model-a", D) as m:
        m.learn("T01", unit(rng)[0], "answer", "r")
    with DeckMemory(tmp_path / "m.db", "model-b", D) as m:
        assert m.views_count() == 0
        with pytest.raises(DeckMemoryError, match="not a card"):
            m.learn("Z99", unit(rng)[0], "answer", "r")
        with pytest.raises(DeckMemoryError, match="unknown source"):
            m.learn("T01", unit(rng)[0], "guess", "r")
        with pytest.raises(DeckMemoryError, match="finite"):
            m.learn("T01", np.full(D, np.nan), "answer", "r")
        with pytest.raises(DeckMemoryError, match="finite"):
            m.learn("T01", np.ones(D + 1), "answer", "r")


def test_a_damaged_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "m.db"
    bad.write_bytes(b"not a database at all" * 100)
    with pytest.raises(DeckMemoryError, match="--reset"):
        DeckMemory(bad, "m", D)


def test_what_was_learned_survives_kill_9(tmp_path):
    code = f"""
import numpy as np, os, sys
sys.path.insert(0, {str(ROOT)!r})
from vision.deck_memory import DeckMemory
m = DeckMemory({str(tmp_path / 'm.db')!r}, "m", {D})
rng = np.random.default_rng(3)
for k, c in enumerate(["T01", "T02", "H05"]):
    x = rng.normal(size={D}); m.learn(c, x, "answer", f"r{{k}}")
os.kill(os.getpid(), 9)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert proc.returncode == -9
    with DeckMemory(tmp_path / "m.db", "m", D) as m:
        assert m.known_cards() == ("T01", "T02", "H05")


def test_fusion_favours_the_card_the_crop_resembles_and_is_neutral_without_views():
    labels = list(CODES) + ["unknown"]
    probs = np.full((1, 79), 0.2 / 77, np.float32)
    probs[0, CODES.index("S07")] = 0.4
    probs[0, CODES.index("S08")] = 0.4
    empty = np.full((1, 78), -1.0, np.float32)
    assert np.allclose(fuse(probs, empty, labels), probs, atol=1e-6)
    sim = empty.copy()
    sim[0, CODES.index("S08")] = 0.9  # the crop pictures like the S08 this table has seen
    fused = fuse(probs, sim, labels)
    assert fused[0].sum() == pytest.approx(1.0, abs=1e-5)
    assert fused[0, CODES.index("S08")] > 0.9 > fused[0, CODES.index("S07")]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32 - 1))
def test_fusion_weighs_each_label_by_its_own_cards_views_whatever_the_labels_order(seed):
    rng = np.random.default_rng(seed)
    labels = [str(c) for c in rng.permutation([*CODES, "unknown"])]  # a namer's labels, in its own order
    probs = rng.dirichlet(np.ones(len(labels)), size=3)
    sim = rng.uniform(-1, 1, (3, len(CODES))).astype(np.float32)
    sim[rng.random(sim.shape) < 0.2] = -1.0  # cards without a view
    expected = probs.copy()
    for r in range(3):
        for k, label in enumerate(labels):
            s = float(sim[r, CODES.index(label)]) if label in CODES else -1.0
            if s > 0.6:
                expected[r, k] *= np.exp(20.0 * (s - 0.6))
    expected /= expected.sum(1, keepdims=True)
    assert np.allclose(fuse(probs, sim, labels, 20.0, 0.6), expected, rtol=1e-5, atol=1e-9)


def test_the_memory_namer_weighs_its_views_as_told(tmp_path):
    from vision.deck_memory import MemoryNamer

    class Base:
        labels = list(CODES) + ["unknown"]
        threshold = 0.3

        def run(self, crops):
            p = np.full((len(crops), 79), 0.2 / 77, np.float32)
            p[:, CODES.index("S07")] = p[:, CODES.index("S08")] = 0.4
            e = np.zeros((len(crops), 4), np.float32)
            e[:, 0] = 1.0
            return p, e

        def namings(self, probs, emb):
            return [(self.labels[int(np.argmax(row))], float(row.max())) for row in probs]

    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    memory.learn("S08", np.array([1.0, 0.1, 0, 0], np.float32), "answer", "op 1")
    base = Base()
    strong, _ = MemoryNamer(base, memory, min_views=1).run([None])
    mild, _ = MemoryNamer(base, memory, sharpness=2.0, min_views=1).run([None])
    none, _ = MemoryNamer(base, memory, floor=0.999, min_views=1).run([None])  # the view is not close enough to count
    s08 = CODES.index("S08")
    assert strong[0, s08] > mild[0, s08] > 0.4 and none[0, s08] == pytest.approx(0.4, abs=1e-6)
    assert MemoryNamer(base, memory, min_views=1).name([None])[0][0] == "S08"
    memory.close()


class UnsureNamer:
    """A card model torn between S07 and S08 (0.4 each), every crop's embedding the first axis."""

    labels = list(CODES) + ["unknown"]

    def run(self, crops):
        p = np.full((len(crops), 79), 0.2 / 77, np.float32)
        p[:, CODES.index("S07")] = p[:, CODES.index("S08")] = 0.4
        return p, np.tile(np.array([1.0, 0, 0, 0], np.float32), (len(crops), 1))


def test_a_memory_weighs_nothing_until_it_keeps_enough_views(tmp_path):
    """A fresh memory holding a few answers would make the cards they show surer than the cards it
    has no view of: it weighs the namings from MIN_WEIGHING_VIEWS views on."""
    from vision.deck_memory import MIN_WEIGHING_VIEWS, MemoryNamer

    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    rng = np.random.default_rng(1)
    memory.learn("S08", np.array([1.0, 0.1, 0, 0], np.float32), "answer", "op 0")
    s08 = CODES.index("S08")
    k = 1
    while memory.views_count() < MIN_WEIGHING_VIEWS - 1:  # other cards' views, far from the crop
        memory.learn(CODES[k % 40 + 22], np.r_[0.0, rng.normal(size=3)].astype(np.float32), "answer", f"op {k}")
        k += 1
    probs, _ = MemoryNamer(UnsureNamer(), memory).run([None])
    assert probs[0, s08] == pytest.approx(0.4, abs=1e-6)  # not yet: the model's own
    memory.learn("H01", np.array([0, 0, 1.0, 0], np.float32), "answer", "op last")
    assert memory.views_count() == MIN_WEIGHING_VIEWS
    probs, _ = MemoryNamer(UnsureNamer(), memory).run([None])
    assert probs[0, s08] > 0.9  # now the S08 it has seen weighs
    memory.close()


def test_the_memory_namer_gives_the_models_own_probabilities_apart(tmp_path):
    """What the card model itself saw, before the memory weighed it: the tracker holds a card the
    memory made sure against its colour twin with it (model_suit_margin)."""
    from vision.deck_memory import MemoryNamer
    from vision.votes import namer_votes

    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    memory.learn("S08", np.array([1.0, 0.1, 0, 0], np.float32), "answer", "op 1")
    namer = MemoryNamer(UnsureNamer(), memory, min_views=1)
    namer.threshold = 0.3
    fused, _, model = namer.run_with_model([None])
    s08 = CODES.index("S08")
    assert fused[0, s08] > 0.9 and model[0, s08] == pytest.approx(0.4)
    assert np.allclose(namer.run([None])[0], fused)
    (vote,) = namer_votes(namer, [None], None, 0.2)
    assert vote.top[0][0] == "S08" and vote.probs[s08] > 0.9  # the memory's, as the view is learned with
    assert dict(vote.model_top)["S07"] == pytest.approx(0.4) == dict(vote.model_top)["S08"]
    fresh = MemoryNamer(UnsureNamer(), memory, min_views=2)  # not weighing yet: the model's own, both ways
    assert np.allclose(fresh.run_with_model([None])[0], fresh.run_with_model([None])[2])
    memory.close()


def test_a_memory_that_cannot_be_read_leaves_the_namings_to_the_model(tmp_path):
    from vision.deck_memory import MemoryNamer

    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    memory.learn("S08", np.array([1.0, 0.1, 0, 0], np.float32), "answer", "op 1")
    namer = MemoryNamer(UnsureNamer(), memory, min_views=1)
    assert namer.run([None])[0][0, CODES.index("S08")] > 0.9
    memory._db.close()  # its file gone from under it
    assert namer.run([None])[0][0, CODES.index("S08")] == pytest.approx(0.4)


def test_the_memory_namer_carries_the_learning_bars_over_the_models_own(tmp_path):
    from vision.deck_memory import LEARNING_BARS, MemoryNamer
    from vision.tracker import settings_for

    class Base:
        labels = list(CODES) + ["unknown"]
        tracker_bars = {"pip_above_margin": 60.0}

    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    namer = MemoryNamer(Base(), memory)
    assert namer.tracker_bars == {"pip_above_margin": 60.0, **LEARNING_BARS}
    settings = settings_for(namer)
    assert settings.pip_above_margin == 60.0 and settings.suit_margin == LEARNING_BARS["suit_margin"] > 0
    assert settings.model_suit_margin == LEARNING_BARS["model_suit_margin"] > 0
    assert settings_for(Base()).suit_margin == 0.0 == settings_for(Base()).model_suit_margin  # the model's bars alone
    memory.close()


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "device.cli", *args], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)


def test_deck_memory_command_lists_and_resets(tmp_path):
    from vision.deck_memory import memory_path_beside

    log = tmp_path / "tarotmate.db"
    empty = _cli("deck", "memory", "--db", str(log), "--json")
    assert empty.returncode == 0 and json.loads(empty.stdout)["cards_known"] == 0
    rng = np.random.default_rng(4)
    with DeckMemory(memory_path_beside(log), "model-x", D) as m:
        m.learn("T21", unit(rng)[0], "answer", "g1/d1/op3", when=1_700_000_000)
        m.learn("T21", unit(rng)[0], "confirmed", "g1/d1/op7", when=1_700_000_100)
        m.learn("DK", unit(rng)[0], "by_hand", "g1/d2/op1", when=1_700_000_200)
    shown = _cli("deck", "memory", "--db", str(log), "--json")
    data = json.loads(shown.stdout)
    assert data["model"] == "model-x" and data["cards_known"] == 2 and data["views"] == 3
    assert data["cards"][0] == {"card": "T21", "views": 2, "first": 1_700_000_000, "last": 1_700_000_100,
                                "sources": {"answer": 1, "confirmed": 1}}
    text = _cli("deck", "memory", "--db", str(log))
    assert "knows 2 of 78 cards by sight, 3 views" in text.stdout and "T21" in text.stdout
    with DeckMemory(memory_path_beside(log), "model-x", D) as m:
        assert m.views_count() == 3  # listing changed nothing
    reset = _cli("deck", "memory", "--db", str(log), "--reset", "--json")
    assert reset.returncode == 0 and json.loads(reset.stdout)["forgotten"] == 3
    assert json.loads(_cli("deck", "memory", "--db", str(log), "--json").stdout)["cards_known"] == 0


def test_the_memory_calibrates_its_fused_probabilities_on_its_own_views(tmp_path):
    from vision.deck_memory import MIN_CALIBRATION_VIEWS

    labels = list(CODES) + ["unknown"]
    rng = np.random.default_rng(0)
    memory = DeckMemory(tmp_path / "m.db", "model-a", 16)
    pairs = [("S07", "S08"), ("S09", "S10"), ("C02", "C03"), ("H05", "H06"), ("D08", "D09")]
    centres = rng.normal(size=(5, 16))
    # pairs of look-alike cards: views of either resemble both, and the model is unsure between them
    for k in range(MIN_CALIBRATION_VIEWS + 10):
        pair, side = k % 5, (k // 5) % 2
        card, other = pairs[pair][side], pairs[pair][1 - side]
        e = centres[pair] + rng.normal(0, 0.15, 16)  # the two cards of a pair picture the same
        p = np.full(79, 0.02 / 77, np.float32)
        p[CODES.index(card)] = p[CODES.index(other)] = 0.49
        memory.learn(card, e, "answer", f"op {k}", probs=p / p.sum())
        if k == 5:
            assert memory.temperature(labels) == 1.0  # too few views to calibrate on
    t = memory.temperature(labels)
    assert t > 1.0  # the fusion was over-confident on these views: it is softened
    assert memory.temperature(labels) == t  # kept until the views change
    memory.forget("op 0")
    assert memory.temperature(labels) != 0 and memory._temperature is not None
    with pytest.raises(DeckMemoryError):
        memory.learn("S07", centres[0], "answer", "bad", probs=np.full(79, 0.5, np.float32))
    memory.close()


def test_a_memory_of_the_first_schema_gains_room_for_probabilities(tmp_path):
    import sqlite3

    path = tmp_path / "old.db"
    db = sqlite3.connect(str(path))
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE views (id INTEGER PRIMARY KEY, card TEXT NOT NULL, embedding BLOB NOT NULL,
                            learned_at REAL NOT NULL, source TEXT NOT NULL, ref TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema', '1'), ('model', 'model-a'), ('dimension', '4');
    """)
    db.execute("INSERT INTO views (card, embedding, learned_at, source, ref) VALUES (?, ?, 0, 'answer', 'op 1')",
               ("T21", np.array([1, 0, 0, 0], np.float32).tobytes()))
    db.commit()
    db.close()
    memory = DeckMemory(path, "model-a", 4)
    assert memory.views_count() == 1  # kept
    p = np.zeros(79, np.float32)
    p[CODES.index("T20")] = 1.0
    assert memory.learn("T20", np.array([0, 1, 0, 0], np.float32), "answer", "op 2", probs=p)
    assert memory.temperature(list(CODES) + ["unknown"]) == 1.0
    # room for pictures too: a view with its picture is kept beside the old one without
    picture = np.zeros(PICTURE_DIM, np.float32)
    picture[0] = 1.0
    assert not memory.keeps_pictures()
    assert memory.learn("T19", np.concatenate([[0, 0, 1, 0], picture]).astype(np.float32), "answer", "op 3")
    assert memory.keeps_pictures() and memory.views_count() == 3
    # ... and keypoints: a view with them is kept beside those without, and the old views are matched with none
    from vision.card_keypoints import card_keypoints

    from tests.vision.test_card_keypoints import engraving

    block = card_keypoints(engraving(1))
    assert memory.learn("T18", np.concatenate([[0, 0, 0, 1], picture, block]).astype(np.float32), "answer", "op 4")
    assert memory.views_count() == 4
    kept = memory._kept_keypoints()
    assert [len(k[0]) for k in kept[:3]] == [0, 0, 0] and np.array_equal(kept[3][1], keypoints_of(block)[1])
    # ... and red ink: the old views measured none
    assert memory.learn("H05", np.array([1, 1, 0, 0], np.float32), "answer", "op 5", red=30.0)
    assert memory._db.execute("SELECT red FROM views ORDER BY id").fetchall() == [(None,)] * 4 + [(30.0,)]
    memory.close()
    db = sqlite3.connect(str(path))
    assert {row[1] for row in db.execute("PRAGMA table_info(views)")} >= {"probs", "picture", "keypoints", "red"}
    db.close()


def test_the_memory_tells_whether_the_deck_prints_its_red_pip_cards_in_red_from_the_views_it_keeps(tmp_path):
    from vision.deck_memory import RED_SHARE, RED_VIEWS, MemoryNamer

    rng = np.random.default_rng(9)
    bar = 6.0
    red_pips = [f"{suit}{n:02d}" for suit in "HD" for n in range(1, 11)]
    with DeckMemory(tmp_path / "m.db", "m", D) as m:
        # black cards, court cards and views measured none say nothing, whatever their ink
        for k, (card, red) in enumerate([("S05", 40.0), ("HK", 0.0), ("DQ", 1.0), ("C03", 0.0), ("H04", None)]):
            m.learn(card, unit(rng)[0], "answer", f"x{k}", red=red)
        assert m.red_pips(bar) is None
        for k, card in enumerate(red_pips[: RED_VIEWS - 1]):
            m.learn(card, unit(rng)[0], "answer", f"r{k}", red=30.0)
        assert m.red_pips(bar) is None  # too few yet
        m.learn(red_pips[RED_VIEWS - 1], unit(rng)[0], "confirmed", "last", red=2.0)
        shows = (RED_VIEWS - 1) / RED_VIEWS
        assert m.red_pips(bar) is (shows >= RED_SHARE)
        # views of a deck printing its Cups and Coins in gold: half show no red ink
        for k, card in enumerate(red_pips[RED_VIEWS:]):
            m.learn(card, unit(rng)[0], "answer", f"g{k}", red=1.0 if k % 2 else 12.0)
        assert m.red_pips(bar) is False and m.red_pips(0.5) is True
        # forgotten views are not counted; kept ones are, after a restart too
        assert m.forget_prefix("g") == len(red_pips) - RED_VIEWS
        assert m.red_pips(bar) is (shows >= RED_SHARE)
        with pytest.raises(DeckMemoryError, match="red ink"):
            m.learn("H09", unit(rng)[0], "answer", "bad", red=float("nan"))
        assert m.learn_many([("D09", unit(rng)[0], "m1", None, 1.0), ("D08", unit(rng)[0], "m2", None)], "confirmed") == 2
    with DeckMemory(tmp_path / "m.db", "m", D) as m:
        reds = dict(m._db.execute("SELECT card, red FROM views WHERE card IN ('D09', 'D08')").fetchall())
        assert reds == {"D09": 1.0, "D08": None}
        assert m.red_pips(bar) is ((RED_VIEWS - 1) / (RED_VIEWS + 1) >= RED_SHARE)

        class Base:
            def __init__(self, known):
                self.known = known

            def red_pips(self, bar):
                return self.known

        # a namer over the memory: the base namer's answer when it knows (an enrolled deck's faces)
        assert MemoryNamer(Base(False), m).red_pips(bar) is False
        assert MemoryNamer(Base(None), m).red_pips(bar) is m.red_pips(bar)
        assert MemoryNamer(object(), m).red_pips(bar) is m.red_pips(bar)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(0, 10**6))
def test_learning_many_views_at_once_keeps_what_learning_them_one_by_one_keeps(tmp_path_factory, per_card, seed):
    """A deal's confirmed cards are learned in one transaction (``learn_many``): the memory ends
    as it would learning them one at a time, in the same order."""
    rng = np.random.default_rng(seed)
    cards = [str(rng.choice(["T01", "C05", "H10", "SK"])) for _ in range(12)]
    views = [unit(rng)[0] if k == 0 or rng.random() < 0.7 else None for k in range(len(cards))]
    for k in range(1, len(views)):  # some views again, or nearly: the memory drops those
        if views[k] is None:
            views[k] = views[k - 1] + 0.01 * unit(rng)[0]
    folder = tmp_path_factory.mktemp("m")
    with DeckMemory(folder / "one.db", "m", D, per_card=per_card) as one, \
            DeckMemory(folder / "many.db", "m", D, per_card=per_card) as many:
        kept = sum(one.learn(c, v, "confirmed", f"r{k}") for k, (c, v) in enumerate(zip(cards, views)))
        assert many.learn_many([(c, v, f"r{k}", None) for k, (c, v) in enumerate(zip(cards, views))], "confirmed") == kept
        assert [(c.card, c.views) for c in one.cards()] == [(c.card, c.views) for c in many.cards()]
        assert np.allclose(one._views()[1], many._views()[1])


def test_a_bad_view_among_many_keeps_none_of_them(tmp_path):
    rng = np.random.default_rng(5)
    with DeckMemory(tmp_path / "m.db", "m", D) as m:
        m.learn("T01", unit(rng)[0], "answer", "before")
        with pytest.raises(DeckMemoryError, match="finite"):
            m.learn_many([("C05", unit(rng)[0], "a", None), ("H10", np.full(D, np.nan), "b", None)], "confirmed")
        assert m.views_count() == 1 and m.known_cards() == ("T01",)
    with DeckMemory(tmp_path / "m.db", "m", D) as m:  # nothing half-written on disk either
        assert m.views_count() == 1


def test_the_decks_reading_gauge_is_kept_in_the_memory_through_a_kill(tmp_path):
    from vision.deck_memory import KeptReading, reset_file
    from vision.deck_reading import READ_CARDS

    code = f"""
import os, sys
sys.path.insert(0, {str(ROOT)!r})
from vision.deck_memory import DeckMemory, KeptReading
gauge = KeptReading(DeckMemory({str(tmp_path / 'm.db')!r}, "m", {D}), window=20)
for k in range(25):
    gauge.decided(0.3 if k % 5 else 0.9)
os.kill(os.getpid(), 9)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert proc.returncode == -9
    memory = DeckMemory(tmp_path / "m.db", "m", D)
    again = KeptReading(memory, window=20)
    assert len(again.readings) == 20 and again.sure_share() == pytest.approx(0.2)  # the latest twenty, in order
    assert list(again.readings)[:2] == [0.9, 0.3]
    assert memory.readings(100) == list(again.readings)  # no more than the window kept in the file
    again.reset()
    assert KeptReading(memory).sure_share() is None  # another deck: judged afresh, also after a restart
    for _ in range(READ_CARDS):
        again.decided(0.2)
    assert memory.reset() == 0 and memory.readings() == []  # a memory reset forgets the gauge too
    again.decided(0.2)
    memory.close()
    assert reset_file(tmp_path / "m.db") == 0
    assert DeckMemory(tmp_path / "m.db", "m", D).readings() == []


def test_another_model_judges_the_deck_afresh_and_a_failing_file_leaves_the_gauge_in_memory(tmp_path):
    from vision.deck_memory import KeptReading

    gauge = KeptReading(DeckMemory(tmp_path / "m.db", "model-a", D))
    for _ in range(15):
        gauge.decided(0.1)
    assert KeptReading(DeckMemory(tmp_path / "m.db", "model-b", D)).readings == type(gauge.readings)()
    gauge.memory._db.close()  # the file gone from under it
    gauge.decided(0.1)
    assert len(gauge.readings) == 16 and gauge.unread(0.2)


def test_a_tracker_keeps_the_gauge_of_the_memory_its_namer_reads(tmp_path):
    from vision.deck_memory import MemoryNamer
    from vision.tracker import Tracker

    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    namer = MemoryNamer(UnsureNamer(), memory)
    assert Tracker(namer=namer).reading is namer.reading
    tracker = Tracker(namer=UnsureNamer())
    own = tracker.reading
    tracker.namer = namer  # the device weighs the shipped model by the memory once the game is open
    assert tracker.reading is namer.reading and tracker.reading is not own


def test_deck_memory_command_says_how_surely_the_model_reads_the_deck(tmp_path):
    from vision.deck_memory import KeptReading, memory_path_beside

    log = tmp_path / "tarotmate.db"
    assert json.loads(_cli("deck", "memory", "--db", str(log), "--json").stdout)["reading"] == {
        "cards": 0, "read_surely": None, "deck_read": None}
    with DeckMemory(memory_path_beside(log), "model-x", D) as m:
        gauge = KeptReading(m)
        for k in range(70):
            gauge.decided(0.9 if k % 20 == 0 else 0.3)  # 3 of the latest 60 read surely
    data = json.loads(_cli("deck", "memory", "--db", str(log), "--json").stdout)
    assert data["reading"] == {"cards": 60, "read_surely": 0.05, "deck_read": False}
    text = _cli("deck", "memory", "--db", str(log)).stdout
    assert "read 5% of the latest 60 cards surely: it cannot read this deck" in text and "tarotmate enroll" in text
    assert json.loads(_cli("deck", "memory", "--db", str(log), "--reset", "--json").stdout)["forgotten"] == 0
    assert json.loads(_cli("deck", "memory", "--db", str(log), "--json").stdout)["reading"]["cards"] == 0


# ----------------------------------------------------------------- a deck the model cannot read: the memory alone


def test_recall_names_the_card_whose_views_the_crop_resembles_and_keeps_the_models_no_card():
    from vision.deck_memory import ALONE_SHARPNESS, UNSEEN_COSINE, recall

    labels = list(CODES) + ["unknown"]
    probs = np.full((1, 79), 0.01 / 77, np.float32)
    probs[0, CODES.index("CK")] = 0.89  # the model sure of a look-alike ...
    probs[0, 78] = 0.1  # ... and that it is a card face at 0.9
    empty = np.full((1, 78), -1.0, np.float32)
    p = recall(probs, empty, labels)  # no view kept: the memory tells no card apart, the cards in the model's order
    assert p[0, 78] == pytest.approx(0.1) and p[0, :78].sum() == pytest.approx(0.9)
    assert p[0, CODES.index("H02")] / p[0, CODES.index("CK")] == pytest.approx(0.01 / 77 / 0.89, rel=1e-3)
    sim = np.full((1, 78), 0.5, np.float32)
    sim[0, CODES.index("T11")] = 0.95
    sim[0, CODES.index("CK")] = 0.6  # its views unlike the crop: the model's 0.89 for it counts for nothing
    p = recall(probs, sim, labels)
    assert p[0, CODES.index("T11")] > 0.85 > p[0, CODES.index("CK")] * 100 and p[0, 78] == pytest.approx(0.1)
    sim[0, CODES.index("H05")] = -1.0  # a card without a view weighs as if the crop's cosine to it were UNSEEN_COSINE
    p = recall(probs, sim, labels)
    ratio = p[0, CODES.index("H05")] / p[0, CODES.index("T11")]
    assert ratio == pytest.approx(np.exp(ALONE_SHARPNESS * (UNSEEN_COSINE - 0.95)), rel=1e-3)


def test_recall_orders_the_cards_without_a_view_as_the_model_does_and_none_above_its_favourite():
    from vision.deck_memory import ALONE_SHARPNESS, UNSEEN_COSINE, recall

    labels = list(CODES) + ["unknown"]
    probs = np.full((1, 79), 0.5 / 76, np.float32)
    probs[0, CODES.index("CK")] = 0.3  # the model's favourite, of which the memory keeps views unlike the crop
    probs[0, CODES.index("H05")] = 0.2  # the model's favourite among the cards without a view
    probs[0, 78] = 0.0
    sim = np.full((1, 78), -1.0, np.float32)
    sim[0, CODES.index("T11")] = 0.95
    sim[0, CODES.index("CK")] = 0.5
    p = recall(probs, sim, labels)
    t11, ck, h05, h02 = (p[0, CODES.index(c)] for c in ("T11", "CK", "H05", "H02"))
    assert t11 > h05 > h02 > ck  # the crop's picture first, then the cards without a view in the model's order
    assert h05 / t11 == pytest.approx(np.exp(ALONE_SHARPNESS * (UNSEEN_COSINE - 0.95)), rel=1e-3)  # as before
    assert h02 / h05 == pytest.approx((0.5 / 76) / 0.2, rel=1e-3)


@given(st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=78, max_size=78),
       st.floats(0.0, 1.0), st.floats(1.0, 80.0))
def test_recall_is_a_distribution_that_leaves_no_card_to_the_model(cosines, unknown, sharpness):
    from vision.deck_memory import recall

    labels = list(CODES) + ["unknown"]
    probs = np.full((1, 79), (1.0 - unknown) / 78, np.float64)
    probs[0, 78] = unknown
    p = recall(probs, np.array([cosines], np.float32), labels, sharpness)
    assert np.all(np.isfinite(p)) and np.all(p >= 0)
    assert p.sum() == pytest.approx(1.0, abs=1e-4) and p[0, 78] == pytest.approx(unknown, abs=1e-6)
    best = int(np.argmax(np.where(np.array(cosines) < -0.5, 0.7, cosines)))
    assert p[0, :78].max() == pytest.approx(p[0, best], abs=1e-6)  # the card most like the crop first


def test_the_memory_alone_names_from_its_views_and_gives_the_models_own_apart(tmp_path):
    from vision.deck_memory import MemoryNamer
    from vision.votes import namer_votes

    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    memory.learn("S08", np.array([1.0, 0.05, 0, 0], np.float32), "answer", "op 1")
    memory.learn("S07", np.array([0.6, 0.8, 0, 0], np.float32), "answer", "op 2")
    s07, s08 = CODES.index("S07"), CODES.index("S08")
    early = MemoryNamer(UnsureNamer(), memory, min_views=3).alone()  # too few views kept: the model's own
    probs, _, model = early.run_with_model([None])
    assert np.allclose(probs, model) and not early.names_alone
    assert not namer_votes(early, [None], None, 0.2)[0].alone
    namer = MemoryNamer(UnsureNamer(), memory, min_views=2)
    alone = namer.alone()
    probs, emb, model = alone.run_with_model([None])
    # the memory's namings, not marked as alone: it keeps no pictures, so the tracker never commits them alone
    assert not alone.names_alone
    assert probs[0, s08] > 0.9 > 0.4 == pytest.approx(model[0, s08]) and probs[0, s07] < 0.01
    # the view the table would learn: the embedding, the crop's picture (none: no picture), its keypoints (none)
    assert alone.labels == namer.labels and emb.shape == (1, 4 + PICTURE_DIM + KEYPOINTS_DIM)
    assert emb[0, 4: 4 + PICTURE_DIM].max() == 0 and emb[0, 4 + PICTURE_DIM:].max() == -1
    (vote,) = namer_votes(alone, [None], None, 0.2)
    assert not vote.alone and vote.top[0][0] == "S08" and dict(vote.model_top)["S07"] == pytest.approx(0.4)
    (fused,) = namer_votes(namer, [None], None, 0.2)
    assert not fused.alone
    memory._db.close()  # its file gone from under it, its views not read yet: it knows no card, the model's order
    memory._changed()
    probs, _, _ = alone.run_with_model([None])
    assert probs[0, s07] == pytest.approx(probs[0, s08]) == pytest.approx(probs[0, :78].max())
    assert probs[0, s07] / probs[0, CODES.index("H02")] == pytest.approx(0.4 / (0.2 / 77), rel=1e-3)


def picture(seed: int, h: int = 96, w: int = 56) -> np.ndarray:
    """A random painting-like BGR crop: smooth colour blobs."""
    import cv2

    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (6, 4, 3)).astype(np.uint8)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def test_the_memory_alone_tells_apart_cards_the_embeddings_confuse_by_their_pictures(tmp_path):
    from vision.card_picture import card_pictures
    from vision.deck_memory import UNSEEN_MIXED, MemoryNamer, view_of

    def lit(crop, gain, offset=0):
        return np.clip(crop.astype(np.float32) * gain + offset, 0, 255).astype(np.uint8)

    def moved(crop):  # another view of the card: its quad a little off, dimmer, noisy
        noise = np.random.default_rng(0).normal(0, 12, crop.shape)
        return np.clip(np.roll(crop, 6, axis=0).astype(np.float32) * 0.8 + noise, 0, 255).astype(np.uint8)

    e = np.array([1.0, 0, 0, 0], np.float32)  # two cards the card model embeds alike
    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    for k, (card, seed) in enumerate((("S07", 7), ("S08", 8))):
        assert memory.learn(card, view_of(e[None], [picture(seed)])[0], "answer", f"op {2 * k}")
        # the second view of a card agrees with the first: both count from then on (none before)
        before = memory.recall_similarity(view_of(e[None], [picture(seed)]))[0, CODES.index(card)]
        assert not memory.learn(card, view_of(e[None], [lit(picture(seed), 0.8, 20)])[0], "answer", "again")  # the same
        assert memory.learn(card, view_of(e[None], [moved(picture(seed))])[0], "answer", f"op {2 * k + 1}")
        assert before == -1.0 and memory.recall_similarity(view_of(e[None], [picture(seed)]))[0, CODES.index(card)] > 0.95
    crop = lit(picture(8), 0.7, 10)  # S08, dimmer
    view = view_of(e[None], [crop])
    s07, s08 = CODES.index("S07"), CODES.index("S08")
    plain = memory.similarity(view)
    assert plain[0, s07] == pytest.approx(plain[0, s08]) == pytest.approx(1.0)  # the embeddings alone: a tie
    mixed = memory.recall_similarity(view)
    assert mixed[0, s08] > 0.95 and mixed[0, s08] - mixed[0, s07] > 0.1
    assert np.all(mixed[0, [j for j in range(78) if j not in (s07, s08)]] == -1)
    # a view answered S09 whose quad lay off the card (it shows S08's picture) counts for nothing: no other view
    # of S09 agrees with it; and a crop all of one colour (the bare table) is no view at all
    assert memory.learn("S09", view_of(e[None], [lit(picture(8), 0.9)])[0], "answer", "op 9")
    assert memory.recall_similarity(view)[0, CODES.index("S09")] == -1
    assert not memory.learn("S10", view_of(e[None], [np.full((96, 56, 3), 90, np.uint8)])[0], "answer", "op 10")
    # an embedding without a picture (a namer given no images) is compared by its embedding only, every view
    assert np.allclose(memory.recall_similarity(e[None]), memory.similarity(e[None]))
    alone = MemoryNamer(UnsureNamer(), memory, min_views=2).alone()
    probs, views, _ = alone.run_with_model([crop])
    assert alone.names_alone and probs[0, s08] > 0.95 and views.shape == (1, 4 + PICTURE_DIM + KEYPOINTS_DIM)
    assert np.allclose(views[0, 4: 4 + PICTURE_DIM], card_pictures([crop])[0])
    assert memory.keeps_pictures() and UNSEEN_MIXED < 0.7
    memory.close()


def test_with_a_floor_a_crop_like_no_kept_view_is_no_card():
    from vision.deck_memory import ALONE_SHARPNESS, PICTURE_FLOOR, recall

    labels = list(CODES) + ["unknown"]
    probs = np.full((2, 79), 0.9 / 78, np.float32)
    probs[:, 78] = 0.1
    sim = np.full((2, 78), 0.3, np.float32)
    sim[0, CODES.index("S08")] = 0.45  # a quad across the pile: nearest S08, and far from it
    sim[1, CODES.index("S08")] = 0.75  # S08 itself
    p = recall(probs, sim, labels, floor=PICTURE_FLOOR)
    assert np.allclose(p.sum(1), 1.0, atol=1e-5)
    # "not a card face" weighs exp(sharpness * (floor - best)) against the best card's 1
    none = np.exp(ALONE_SHARPNESS * (PICTURE_FLOOR - 0.45))
    rest = 77 * np.exp(ALONE_SHARPNESS * (0.3 - 0.45))
    assert p[0, CODES.index("S08")] == pytest.approx(0.9 / (1 + rest + none), rel=1e-3)
    assert p[0, 78] == pytest.approx(0.1 + 0.9 * none / (1 + rest + none), rel=1e-3) and p[0, 78] > 0.8
    assert p[1, CODES.index("S08")] > 0.899  # all the model leaves to the cards (0.9)
    assert np.allclose(recall(probs, sim, labels), recall(probs, sim, labels, floor=None))  # no floor: as before


def test_views_not_yet_agreed_with_order_a_questions_candidates_and_never_name_surely():
    from vision.deck_memory import UNSURE_ORDER, held_order

    labels = list(CODES) + ["unknown"]
    s07, s08, s09 = CODES.index("S07"), CODES.index("S08"), CODES.index("S09")

    def probs(first, p1, second, p2, third, p3):
        row = np.full(79, (0.9 - p1 - p2 - p3) / 75, np.float32)
        row[78] = 0.1
        row[[first, second, third]] = p1, p2, p3
        return row

    named = np.stack([probs(s07, 0.6, s08, 0.2, s09, 0.05), probs(s07, 0.6, s08, 0.2, s09, 0.05)])
    # from every view, S07 first in the first crop; in the second, S08 first, surely, then S07, then S09
    ordering = np.stack([probs(s07, 0.7, s08, 0.1, s09, 0.05), probs(s08, 0.8, s07, 0.05, s09, 0.02)])
    out = held_order(named, ordering, labels)
    assert np.allclose(out[0], named[0])  # the same card first: the trusted naming as it is
    assert np.allclose(out.sum(1), 1.0, atol=1e-5) and out[1, 78] == pytest.approx(0.1)
    assert out[1, s08] == pytest.approx(UNSURE_ORDER, abs=1e-4)  # first, but asked
    assert out[1, s08] > out[1, s07] > out[1, s09] > out[1, CODES.index("S10")]  # the candidates' order kept


def test_the_keypoints_settle_a_naming_when_one_cards_agreed_views_match_in_many_places_and_no_other_nearly():
    from vision.deck_memory import UNSURE_ORDER, VERIFIED, VERIFIED_SURE, verified

    labels = list(CODES) + ["unknown"]
    s07, s08, s09 = CODES.index("S07"), CODES.index("S08"), CODES.index("S09")
    probs = np.full((6, 79), 0.9 / 78, np.float32)
    probs[:, 78] = 0.1
    probs[:, s07], probs[:, s08] = 0.3, 0.2  # the mix puts S07 first
    probs /= probs.sum(1, keepdims=True)
    probs[4] = 0.0
    probs[4, s08], probs[4, 78] = 0.99995, 0.00005  # already surer than the keypoints make it
    every = np.full((6, 78), -1, np.int32)
    every[:, s07], every[:, s09] = 4, 2
    every[0, s08] = VERIFIED + 10  # S08, clearly
    every[1, s08], every[1, s07] = VERIFIED + 10, VERIFIED  # S08 best, but S07 nearly as well
    every[2, s08] = VERIFIED - 1  # too few places
    every[3, s09] = 5 * VERIFIED  # S09, which the mix barely saw
    every[4, s08] = VERIFIED
    every[5, s08] = 5 * VERIFIED  # ... but only with a view no other view of S08 agrees with
    agreed = every.copy()
    agreed[5, s08] = -1
    out = verified(probs, (agreed, every), labels)
    assert out[0, s08] == pytest.approx(VERIFIED_SURE) and np.allclose(out.sum(1), 1.0, atol=1e-5)
    rest = np.delete(np.arange(79), s08)
    assert np.allclose(out[0, rest] / out[0, rest].sum(), probs[0, rest] / probs[0, rest].sum(), atol=1e-6)  # in order
    assert np.allclose(out[1:3], probs[1:3]) and np.allclose(out[4], probs[4])
    assert out[3, s09] == pytest.approx(VERIFIED_SURE) and out[3, s07] > out[3, s08]
    # a view not agreed with yet (maybe kept from a quad off the card): S08 first, but asked
    assert out[5, s08] == pytest.approx(UNSURE_ORDER, abs=1e-4) and out[5, s08] > out[5, s07] > out[5, s09]
    assert out[5, 78] < probs[5, 78] and out[5].sum() == pytest.approx(1.0, abs=1e-5)  # a print matched: a card


def test_the_memory_alone_names_surely_once_two_views_of_a_card_match_in_place(tmp_path):
    from vision.card_keypoints import KEYPOINTS_DIM
    from vision.deck_memory import VERIFIED_SURE, MemoryNamer, view_of

    from tests.vision.test_card_keypoints import engraving, seen_again

    e = np.array([1.0, 0, 0, 0], np.float32)  # cards the card model embeds alike
    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    for k, card in enumerate(("S07", "S08", "S09")):
        assert memory.learn(card, view_of(e[None], [engraving(10 + k)])[0], "answer", f"op {k}")  # one view each
    alone = MemoryNamer(UnsureNamer(), memory, min_views=2).alone()
    s07, s08 = CODES.index("S07"), CODES.index("S08")
    crop = seen_again(engraving(11), seed=3)  # S08 again, dimmer and a little off
    probs, views, _ = alone.run_with_model([crop, engraving(99)])
    assert alone.names_alone and views.shape[1] == 4 + PICTURE_DIM + KEYPOINTS_DIM
    # its one view matches in many places, but no other view of S08 agrees with it yet: asked, S08 first
    _, _, (agreed, every) = memory.recall_evidence(views)
    assert every[0, s08] >= 40 and agreed[0, s08] == -1 and np.sort(every[0])[-2] <= 8
    assert probs[0, :78].max() <= 0.5 and int(np.argmax(probs[0])) == s08
    # a second view of S08 that matches the first in place: both agreed, the crop is S08 surely
    assert memory.learn("S08", view_of(e[None], [seen_again(engraving(11), seed=4, dx=-2, dy=3, gain=1.1)])[0],
                        "answer", "op 3")
    probs, views, _ = alone.run_with_model([crop, engraving(99)])
    assert probs[0, s08] == pytest.approx(VERIFIED_SURE)
    assert probs[1, :78].max() <= 0.5  # a card the memory has never seen: nothing settles it
    # a view kept under S07 from a quad that lay on S08 makes the crop unsure again (asked), neither card's surely
    assert memory.learn("S07", view_of(e[None], [seen_again(engraving(11), seed=5, dx=1, dy=1)])[0], "answer", "op 4")
    probs, _, _ = alone.run_with_model([crop])
    assert probs[0, :78].max() < 0.9
    # without the keypoints nothing is settled by them
    named, ordering, none = memory.recall_evidence(views[:, : 4 + PICTURE_DIM])
    assert none is None
    memory.close()


def test_a_crop_no_cards_first_view_matches_is_matched_no_further_and_one_that_settles_against_every_view(
        tmp_path, monkeypatch):
    from vision import deck_memory
    from vision.deck_memory import SCREEN, VERIFIED, view_of

    from tests.vision.test_card_keypoints import engraving, seen_again

    e = np.array([1.0, 0, 0, 0], np.float32)
    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    for k, card in enumerate(("S07", "S08", "S09")):  # two views of each card's print, agreed in place
        for seed in (1, 2):
            view = seen_again(engraving(20 + k), seed=seed, dx=seed, dy=-seed)
            assert memory.learn(card, view_of(e[None], [view])[0], "answer", f"op {k} {seed}")
    memory.derive()
    matched = []
    every_pair = deck_memory.matches_in_place_many
    monkeypatch.setattr(deck_memory, "matches_in_place_many", lambda a, views: matched.append(len(views)) or every_pair(a, views))
    crops = [engraving(99), seen_again(engraving(21), seed=7)]  # a print the memory never saw; S08 again
    agreed, every = memory.keypoint_matches(view_of(np.stack([e, e]), crops))
    s07, s08, s09 = (CODES.index(c) for c in ("S07", "S08", "S09"))
    # the first crop: each card's view most like it, all under the screen: none further; the second: those three,
    # then S08's other view, which settles it, then the other cards' (what S08 is weighed against)
    assert matched == [3, 3, 1, 2]
    assert every[0, [s07, s08, s09]].max() < SCREEN and (agreed[0, [s07, s08, s09]] <= every[0, [s07, s08, s09]]).all()
    assert every[1, s08] >= 40 and agreed[1, s08] >= VERIFIED and every[1, [s07, s09]].max() <= 8
    memory.close()


def test_a_card_that_shares_its_print_with_others_is_not_settled_by_its_keypoints(tmp_path):
    from vision.deck_memory import VERIFIED, MemoryNamer, view_of

    from tests.vision.test_card_keypoints import engraving, seen_again

    def pip_card(seed):  # a suit's layout, printed alike on its cards, each with its own middle
        img = engraving(500)
        img[70:122, 30:82] = engraving(seed)[70:122, 30:82]
        return img

    e = np.array([1.0, 0, 0, 0], np.float32)
    s07 = CODES.index("S07")
    crop = seen_again(pip_card(7), seed=3)
    for neighbour, shares in ((engraving(8), False), (pip_card(8), True)):
        memory = DeckMemory(tmp_path / f"{shares}.db", "model-a", 4)
        for k, (card, img) in enumerate((("S07", pip_card(7)), ("S08", neighbour))):
            assert memory.learn(card, view_of(e[None], [img])[0], "answer", f"op {2 * k}")
            assert memory.learn(card, view_of(e[None], [seen_again(img, seed=9, dx=-2, dy=2, gain=1.1)])[0], "answer",
                                f"op {2 * k + 1}")
        probs, views, _ = MemoryNamer(UnsureNamer(), memory, min_views=2).alone().run_with_model([crop])
        _, _, (agreed, every) = memory.recall_evidence(views)
        assert every[0, s07] >= 2 * VERIFIED  # its own views match it in many places either way
        if shares:  # ... but S08's share most of them: no more than VERIFIED beyond that, S08's views match it in
            # more than half as many as are left: not settled
            assert memory.likeness(0) >= VERIFIED and agreed[0, s07] <= VERIFIED and probs[0, s07] < 0.99
        else:
            assert memory.likeness(0) <= 8 and agreed[0, s07] >= VERIFIED and probs[0, s07] >= 0.999
        memory.close()


def test_on_a_deck_the_model_reads_the_keypoints_settle_what_they_surely_tell_and_leave_the_rest(tmp_path):
    from vision.deck_memory import VERIFIED_SURE, MemoryNamer, view_of

    from tests.vision.test_card_keypoints import engraving, seen_again

    e = np.array([1.0, 0, 0, 0], np.float32)
    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    s07, s08 = CODES.index("S07"), CODES.index("S08")
    for k, (card, seed) in enumerate((("S07", 7), ("S08", 8))):  # S08 twice, agreed in place; S07 once
        assert memory.learn(card, view_of(e[None], [engraving(seed)])[0], "answer", f"op {k}")
    assert memory.learn("S08", view_of(e[None], [seen_again(engraving(8), seed=4, dx=-2, dy=3)])[0], "answer", "op 2")
    namer = MemoryNamer(UnsureNamer(), memory, min_views=2)  # the model torn between S07 and S08
    probs, views, model = namer.run_with_model([seen_again(engraving(8), seed=6), seen_again(engraving(7), seed=6)])
    assert probs[0, s08] == pytest.approx(VERIFIED_SURE) and model[0, s08] == pytest.approx(0.4)
    # S07's one view matches the second crop as well, but no other view of S07 agrees with it yet: the fused
    # naming as it was (never held: the model reads this deck)
    assert probs[1, s07] == pytest.approx(probs[1, s08]) and probs[1, s07] < 0.9  # the model's tie, as it was
    matches = memory.keypoint_matches(views)
    assert matches[1][1, s07] >= 40 and matches[0][1, s07] == -1
    assert memory.keypoint_matches(views[:, : 4 + PICTURE_DIM]) is None  # views without keypoints: none
    memory.close()


def from_scratch(path, per_card=8):
    """The memory kept in ``path`` opened again, every pair of its views matched afresh (the places pairs
    match in that the file keeps set aside)."""
    fresh = DeckMemory(path, "model-a", 4, per_card=per_card)
    fresh._db.execute("DELETE FROM pairs")
    return fresh


def test_what_the_memory_derives_from_its_keypoints_follows_each_view_learned_and_forgotten(tmp_path):
    from vision.deck_memory import view_of

    from tests.vision.test_card_keypoints import engraving, seen_again

    e = np.array([1.0, 0, 0, 0], np.float32)
    memory = DeckMemory(tmp_path / "m.db", "model-a", 4, per_card=2)

    def derived(m):
        cards = m._kept()[0]
        return ([m.places_agreed(CODES.index(c), cards).tolist() for c in ("S07", "S08", "S09")],
                [m.likeness(v) for v in range(len(cards))])

    steps = [("S07", engraving(7)), ("S08", engraving(8)), ("S07", seen_again(engraving(7), seed=1)),
             ("S09", seen_again(engraving(7), seed=2)),  # a view answered S09 that shows S07's print
             ("S08", seen_again(engraving(8), seed=3, dx=-2)), ("S08", seen_again(engraving(8), seed=4, dy=2))]
    for k, (card, img) in enumerate(steps):
        memory.learn(card, view_of(e[None], [img])[0], "answer", f"op {k}")
        derived(memory)  # read (and kept) after each change, as a table naming between answers would
        fresh = from_scratch(tmp_path / "m.db", per_card=2)
        assert derived(memory) == derived(fresh)
        fresh.close()
    assert derived(memory)[0][0] == [True, True] and derived(memory)[1][-1] <= 8
    assert max(derived(memory)[1]) >= 40  # S07's views and the S09 that shows its print: alike
    memory.forget("op 3")
    fresh = from_scratch(tmp_path / "m.db", per_card=2)
    assert derived(memory) == derived(fresh) and max(derived(fresh)[1]) <= 8
    fresh.close()
    # the view kept last forgotten: its row id is given to the next view kept, another card's print
    last = memory._db.execute("SELECT ref FROM views ORDER BY id DESC LIMIT 1").fetchone()[0]
    memory.forget(last)
    memory.learn("S07", view_of(e[None], [seen_again(engraving(7), seed=6, dx=1)])[0], "answer", "op 9")
    fresh = from_scratch(tmp_path / "m.db", per_card=2)
    assert derived(memory) == derived(fresh)
    fresh.close()
    memory.close()


def test_a_view_kept_where_a_dropped_view_was_is_matched_afresh(tmp_path):
    from vision.deck_memory import view_of

    from tests.vision.test_card_keypoints import engraving, seen_again

    memory = DeckMemory(tmp_path / "m.db", "model-a", 4, per_card=2)
    s07 = CODES.index("S07")

    def unit(*x):
        v = np.array(x, np.float32)
        return (v / np.linalg.norm(v))[None]

    memory.learn("S07", view_of(unit(1, 0, 0, 0), [engraving(7)])[0], "answer", "op 0")
    memory.learn("S07", view_of(unit(0, 0, 1, 0), [engraving(9)])[0], "answer", "op 1")  # another print under S07
    assert memory.places_agreed(s07, memory._kept()[0]).tolist() == [False, False]
    memory._kept()
    ids_before = memory._ids.tolist()
    # a third view of S07's own print: the lonely view (the last kept) is dropped, and its row id given again
    assert memory.learn("S07", view_of(unit(0.8, 0.6, 0, 0), [seen_again(engraving(7), seed=5)])[0], "answer", "op 2")
    memory._kept()
    assert memory._ids.tolist() == ids_before  # the same row ids, the second now another view
    assert memory.places_agreed(s07, memory._kept()[0]).tolist() == [True, True]
    fresh = from_scratch(tmp_path / "m.db", per_card=2)
    assert fresh.places_agreed(s07, fresh._kept()[0]).tolist() == [True, True]
    fresh.close()
    memory.close()


class ProfileLike:
    """An enrolled deck's namer (vision.enroll.PrototypeNamer): its own probabilities over its cards and
    "not a card face", no card model's ``run``; torn between S07 and S08."""

    labels = ("S07", "S08", "S09", "unknown")
    tracker_bars = {"min_confidence": 0.97}

    def probabilities(self, crops, keypoints=None):
        probs = np.tile(np.array([0.45, 0.45, 0.05, 0.05], np.float32), (len(crops), 1))
        return probs, np.tile(np.array([1.0, 0, 0, 0], np.float32), (len(crops), 1))


def test_over_an_enrolled_decks_profile_the_memory_only_settles_what_its_agreed_views_keypoints_tell(tmp_path):
    from vision.deck_memory import LEARNING_BARS, VERIFIED_SURE, MemoryNamer, view_of

    from tests.vision.test_card_keypoints import engraving, seen_again

    e = np.array([[1.0, 0, 0, 0]], np.float32)
    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    namer = MemoryNamer(ProfileLike(), memory, fuses=False)
    assert not namer.reads_with_model and namer.tracker_bars == ProfileLike.tracker_bars  # no learning bars
    assert set(LEARNING_BARS) - set(namer.tracker_bars)
    crops = [seen_again(engraving(8), seed=6), seen_again(engraving(7), seed=6)]
    probs, views, model = namer.run_with_model(crops)
    assert model is None and np.allclose(probs, ProfileLike().probabilities(crops)[0])  # nothing kept: as it was
    # S08 twice, agreed in place, S07 once, and two views of each trump: more than the fusion weighs from
    assert memory.learn("S08", view_of(e, [engraving(8)])[0], "answer", "op 0")
    assert memory.learn("S08", view_of(e, [seen_again(engraving(8), seed=4, dx=-2, dy=3)])[0], "answer", "op 1")
    assert memory.learn("S07", view_of(e, [engraving(7)])[0], "answer", "op 2")
    for k, card in enumerate(c for c in CODES if c.startswith("T") for _ in range(2)):
        memory.learn(card, view_of(e, [engraving(900 + k)])[0], "answer", f"op {3 + k}")
    assert memory.views_count() >= namer.min_views
    probs, _, _ = namer.run_with_model(crops)
    assert probs[0, 1] == pytest.approx(VERIFIED_SURE)  # S08 settled by its agreed views
    assert np.allclose(probs[1], [0.45, 0.45, 0.05, 0.05])  # S07's one view agrees with none yet: as it was
    memory.close()


def test_the_places_pairs_of_views_match_in_are_kept_through_a_restart_and_matched_again_when_changed(tmp_path):
    from vision.deck_memory import view_of

    from tests.vision.test_card_keypoints import engraving, seen_again

    e = np.array([[1.0, 0, 0, 0]], np.float32)
    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    for k, (card, seed) in enumerate((("S07", 7), ("S08", 8), ("S09", 9))):
        memory.learn(card, view_of(e, [engraving(seed)])[0], "answer", f"op {2 * k}")
        memory.learn(card, view_of(e, [seen_again(engraving(seed), seed=k, dx=-2, dy=2)])[0], "answer", f"op {2 * k + 1}")
    matched = memory.derive()
    assert matched >= 6 and memory.derive() == 0  # each pair matched once
    likeness = [memory.likeness(v) for v in range(6)]
    memory.close()
    again = DeckMemory(tmp_path / "m.db", "model-a", 4)  # a restart (or a kill -9 after derive)
    assert again.derive() == 0 and [again.likeness(v) for v in range(6)] == likeness
    again.forget("op 5")  # the last view kept: its pairs go with it, and its row id is given to the next view
    again.learn("S09", view_of(e, [seen_again(engraving(7), seed=8)])[0], "answer", "op 6")  # S07's print under S09
    assert again.derive() >= 1
    again.close()
    reopened = DeckMemory(tmp_path / "m.db", "model-a", 4)
    kept = [reopened.likeness(v) for v in range(6)]  # from the pairs the file keeps
    scratch = from_scratch(tmp_path / "m.db")
    assert kept == [scratch.likeness(v) for v in range(6)]
    assert max(scratch.likeness(v) for v in range(6)) >= 40  # the new S09 view shows S07's print
    scratch.close()
    reopened.close()
    # pairs matched by another way of matching are not read: matched again
    db = sqlite3.connect(tmp_path / "m.db")
    db.execute("UPDATE meta SET value = 'old' WHERE key = 'matching'")
    db.commit()
    db.close()
    assert DeckMemory(tmp_path / "m.db", "model-a", 4).derive() >= 6


def test_keypoints_found_by_another_finder_are_set_aside_and_the_views_kept(tmp_path):
    from vision.card_keypoints import FINDER
    from vision.deck_memory import view_of

    from tests.vision.test_card_keypoints import engraving, seen_again

    e = np.array([[1.0, 0, 0, 0]], np.float32)
    memory = DeckMemory(tmp_path / "m.db", "model-a", 4)
    for k, seed in enumerate((7, 7, 8, 8)):
        crop = engraving(seed) if k % 2 == 0 else seen_again(engraving(seed), seed=k)
        memory.learn(f"S0{seed}", view_of(e, [crop])[0], "answer", f"op {k}")
    assert memory.derive() >= 1 and all(len(d) for _, d in memory._kept_keypoints())
    memory.close()
    assert DeckMemory(tmp_path / "m.db", "model-a", 4).derive() == 0  # the same finder: kept as they were
    # a file whose keypoints an older Tarotmate found (no finder noted, or another)
    for older in ("DELETE FROM meta WHERE key = 'finder'", "UPDATE meta SET value = '1' WHERE key = 'finder'"):
        db = sqlite3.connect(tmp_path / "m.db")
        db.execute("UPDATE views SET keypoints = (SELECT keypoints FROM views LIMIT 1)")  # some keypoints kept
        db.execute(older)
        db.commit()
        db.close()
        again = DeckMemory(tmp_path / "m.db", "model-a", 4)
        assert again.views_count() == 4  # the views stay, with their embeddings and pictures
        assert all(len(d) == 0 for _, d in again._kept_keypoints())  # their keypoints match nothing found now
        assert again.derive() == 0 and again.likeness(0) == 0
        # a view learned now brings its keypoints, kept through a restart
        again.learn("S09", view_of(e, [engraving(9)])[0], "answer", "op new")
        again.close()
        reopened = DeckMemory(tmp_path / "m.db", "model-a", 4)
        assert sum(len(d) > 0 for _, d in reopened._kept_keypoints()) == 1
        reopened.forget("op new")
        reopened.close()
    db = sqlite3.connect(tmp_path / "m.db")
    assert db.execute("SELECT value FROM meta WHERE key = 'finder'").fetchone() == (str(FINDER),)
    assert db.execute("SELECT COUNT(*) FROM pairs WHERE places > 0").fetchone() == (0,)
    db.close()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 4), st.lists(st.integers(0, len(CODES) - 1), max_size=40), st.integers(0, 2**32 - 1))
def test_each_cards_best_view_is_the_most_similar_of_its_views_and_a_card_without_views_counts_nothing(rows, cards, seed):
    from vision.deck_memory import best_per_card

    cards = np.array(cards, np.int64)
    sim = np.random.default_rng(seed).uniform(-1, 1, (rows, len(cards))).astype(np.float32)
    best = best_per_card(sim, cards)
    assert best.shape == (rows, len(CODES))
    for j in range(len(CODES)):
        mine = sim[:, cards == j]
        assert np.array_equal(best[:, j], mine.max(1) if mine.shape[1] else np.full(rows, -1.0, np.float32))

"""Possible cards: the tracker names cards with the scores rescored by what can appear."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from engine.cards import CODES
from vision.possible import PossibleCards, PossibleCardsError, spread_naming
from vision.simulator import GroundTruthRecogniser, Idle, Lay, Move, Play, TableSimulator, score_events
from vision.sources import Frame
from vision.tracker import Tracker

from .helpers import SMALL, run_on_truth

LABELS = [*CODES, "unknown"]


# ----------------------------------------------------------------- the interface


def test_weights_are_scaled_to_one_and_zero_weights_are_impossible():
    p = PossibleCards({"H01": 4.0, "H02": 1.0, "H03": 0.0})
    assert p.weights == {"H01": 1.0, "H02": 0.25}
    assert "H03" not in p and p.weight("H03") == 0.0 and len(p) == 2
    assert p.weight(None) == 0.0
    assert list(PossibleCards.of(["S01", "S02"])) == ["S01", "S02"]


@pytest.mark.parametrize("weights", [{"H01": -1.0}, {"H01": float("nan")}, {"H01": float("inf")}, {}, {"H01": 0}])
def test_weights_that_cannot_be_a_prior_are_refused(weights):
    with pytest.raises(PossibleCardsError):
        PossibleCards(weights)


def test_rescoring_over_all_cards_changes_nothing():
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.ones(len(LABELS)))
    rescored, support = PossibleCards.of(CODES).rescore(LABELS, p)
    assert support == pytest.approx(1.0)
    np.testing.assert_allclose(rescored, p)


def test_rescoring_removes_impossible_cards_and_keeps_not_a_card():
    p = np.zeros(len(LABELS))
    p[LABELS.index("H07")] = 0.5
    p[LABELS.index("H08")] = 0.3
    p[LABELS.index("unknown")] = 0.2
    rescored, support = PossibleCards.of(["H08", "H09"]).rescore(LABELS, p)
    assert support == pytest.approx(0.5)
    assert rescored[LABELS.index("H07")] == 0.0
    assert rescored[LABELS.index("H08")] == pytest.approx(0.6)
    assert rescored[LABELS.index("unknown")] == pytest.approx(0.4)


def test_with_cards_adds_at_full_weight_and_keeps_the_rest():
    p = PossibleCards({"H01": 1.0, "H02": 0.1})
    q = p.with_cards(["H02", "S05"])
    assert q.weights == {"H01": 1.0, "H02": 1.0, "S05": 1.0}
    assert p.with_cards(["H01"]) is p


def test_best_first_orders_by_score_then_given_order():
    p = PossibleCards.of(["C01", "C02", "C03"])
    assert p.best_first({"C03": 0.5, "C02": 0.1}) == ["C03", "C02", "C01"]


def test_a_best_answer_is_spread_over_the_other_labels():
    p = spread_naming(["A", "B", "C", None], "B", 0.7)
    np.testing.assert_allclose(p, [0.1, 0.7, 0.1, 0.1])
    q = spread_naming(["A", "B", None], None, 0.9)
    np.testing.assert_allclose(q, [0.05, 0.05, 0.9])


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.floats(0.0, 1.0), min_size=len(LABELS), max_size=len(LABELS)),
    st.dictionaries(st.sampled_from(CODES), st.floats(0.01, 5.0), min_size=1, max_size=20),
)
def test_rescoring_is_a_renormalised_prior(raw, weights):
    p = np.asarray(raw) + 1e-6
    p /= p.sum()
    possible = PossibleCards(weights)
    rescored, support = possible.rescore(LABELS, p)
    assert 0.0 < support <= 1.0 + 1e-9
    assert rescored.sum() == pytest.approx(1.0)
    for k, label in enumerate(LABELS):
        if label != "unknown" and label not in possible:
            assert rescored[k] == 0.0
    # against "not a card face" (weight 1, always kept), each possible card's share is the
    # namer's ratio times its weight, the largest weight given being 1: with one possible
    # card as with twenty
    scale = max(weights.values())
    u = LABELS.index("unknown")
    for code, given_weight in weights.items():
        k = LABELS.index(code)
        assert math.isclose(rescored[k] * p[u], rescored[u] * p[k] * given_weight / scale, rel_tol=1e-6, abs_tol=1e-12)
    assert support == pytest.approx(p[u] + sum(p[LABELS.index(c)] for c in weights))


# ----------------------------------------------------------------- the tracker


class TableNamer:
    """A namer with full probabilities: for each true card, a fixed distribution over the labels."""

    def __init__(self, oracle: GroundTruthRecogniser, table: dict[str, dict[str, float]], threshold: float = 0.5):
        self.oracle = oracle
        self.table = table
        self.labels = LABELS
        self.threshold = threshold

    def run(self, crops):
        out = np.full((len(crops), len(LABELS)), 1e-4)
        for i, code in enumerate(crops):
            spec = self.table.get(code, {code: 0.97}) if code else {"unknown": 0.9}
            for label, p in spec.items():
                out[i, LABELS.index(label)] = p
        out /= out.sum(axis=1, keepdims=True)
        return out, np.zeros((len(crops), 1), np.float32)


def run_with(script, table, possible, *, players=4, seed=0):
    sim = TableSimulator(script, players=players, seed=seed, size=SMALL)
    oracle = GroundTruthRecogniser(sim)
    tracker = Tracker(sim.zones, localiser=oracle.localise, namer=TableNamer(oracle, table), cropper=oracle.crop,
                      possible=possible)
    events = []
    for f in oracle.frames():
        events += tracker.process(Frame(f.image, f.timestamp, f.index))
    return sim, tracker, events + tracker.flush()


SCRIPT = [Idle(3), Play(1, "H07"), Play(2, "C03"), Idle(5)]
# the namer hesitates between H07 and H08, a card already played (so no longer possible)
HESITANT = {"H07": {"H08": 0.45, "H07": 0.4, "unknown": 0.05}}


def test_without_possible_cards_a_hesitant_namer_makes_a_question():
    _, _, events = run_with(SCRIPT, HESITANT, None)
    assert [e.type for e in events] == ["uncertain", "appeared"]
    assert events[0].candidates[0][0] == "H08"


def test_possible_cards_turn_the_hesitation_into_the_right_card():
    possible = PossibleCards.of(c for c in CODES if c != "H08")
    sim, _, events = run_with(SCRIPT, HESITANT, possible)
    assert [(e.type, e.card) for e in events] == [("appeared", "H07"), ("appeared", "C03")]
    assert events[0].confidence == pytest.approx(0.4 / (0.4 + 0.05 + 1e-4 * 76), rel=1e-3)
    assert score_events(sim.expected, events).right == 2


def test_the_candidates_of_a_question_are_possible_cards_only():
    table = {"H07": {"H08": 0.3, "H07": 0.25, "S01": 0.2, "unknown": 0.05}}
    possible = PossibleCards.of(["H07", "S01", "C03", "D09"])
    _, _, events = run_with(SCRIPT, table, possible)
    assert [e.type for e in events] == ["uncertain", "appeared"]
    cards = [c for c, _ in events[0].candidates]
    assert cards[:2] == ["H07", "S01"] and set(cards) <= {"H07", "S01", "C03", "D09", None}


def test_a_card_the_namer_sees_as_an_excluded_card_is_asked_never_named():
    # the namer is sure it sees H08, which cannot appear: no possible look-alike is named instead
    table = {"H07": {"H08": 0.97}}
    possible = PossibleCards.of(c for c in CODES if c != "H08")
    sim, _, events = run_with(SCRIPT, table, possible)
    assert [e.type for e in events] == ["uncertain", "appeared"]
    assert events[0].card is None and all(c != "H08" for c, _ in events[0].candidates)
    assert score_events(sim.expected, events).wrong == 0
    # what the namer itself saw goes with the question (a card already played, seen again?)
    card, p = events[0].excluded
    assert card == "H08" and 0.95 < p <= 1.0
    assert "excluded" not in events[0].to_dict() and events[1].excluded is None


def test_a_question_without_an_excluded_card_reports_none():
    _, _, events = run_with(SCRIPT, HESITANT, None)
    assert events[0].type == "uncertain" and events[0].excluded is None


def test_an_unlikely_card_seen_clearly_is_still_named():
    # a proven void makes the suit unlikely, never impossible: a revoke must still be seen
    weights = {c: (0.05 if c.startswith("H") else 1.0) for c in CODES}
    _, _, events = run_with(SCRIPT, {"H07": {"H07": 0.995}}, PossibleCards(weights))
    assert [(e.type, e.card) for e in events] == [("appeared", "H07"), ("appeared", "C03")]


def test_cards_on_the_table_stay_possible_when_they_are_moved():
    script = [Idle(3), Lay(2, ("S05",)), Idle(8), Move(3, "S05", "seat3"), Idle(40)]
    sim = TableSimulator(script, seed=5, size=SMALL)
    oracle = GroundTruthRecogniser(sim)
    tracker = Tracker(sim.zones, localiser=oracle.localise, namer=oracle, cropper=oracle.crop)
    events = []
    for f in oracle.frames():
        events += tracker.process(Frame(f.image, f.timestamp, f.index))
        if events and tracker.possible is None:
            tracker.possible = ["H01", "H02"]  # the laid card is no longer possible for the rules
    events += tracker.flush()
    assert [(e.type, e.card, e.zone) for e in events] == [("appeared", "S05", "seat2"), ("moved", "S05", "seat3")]


def test_a_best_answer_namer_is_rescored_too():
    # the ground-truth recogniser gives only its best answer: a confusion with an excluded card is asked
    script = [Idle(3), Play(1, "H07"), Idle(5)]
    _, _, _, events = run_on_truth(script, seed=2, confusions={"H07": ("H08", 0.9)})
    assert [(e.type, e.card) for e in events] == [("appeared", "H08")]  # without the rules: wrong
    sim = TableSimulator(script, seed=2, size=SMALL)
    oracle = GroundTruthRecogniser(sim, confusions={"H07": ("H08", 0.9)})
    tracker = Tracker(sim.zones, localiser=oracle.localise, namer=oracle, cropper=oracle.crop,
                      possible={c: 1.0 for c in CODES if c != "H08"})
    events = []
    for f in oracle.frames():
        events += tracker.process(Frame(f.image, f.timestamp, f.index))
    events += tracker.flush()
    assert [e.type for e in events] == ["uncertain"]
    assert all(c != "H08" for c, _ in events[0].candidates)


def test_a_card_the_namer_cannot_tell_is_asked_not_taken_for_a_hand():
    # the namer is sure it sees a card (not a card face: 2 %) but hesitates between many trumps
    spread = {f"T{n:02d}": 0.05 for n in range(4, 17) if n not in (8, 13)}
    table = {"H07": {"T13": 0.14, "T08": 0.11, "T03": 0.07, "unknown": 0.02, **spread}}
    _, tracker, events = run_with(SCRIPT, table, None)
    assert [e.type for e in events] == ["uncertain", "appeared"]
    # a hand (the namer: not a card face) still makes nothing
    _, _, events = run_with(SCRIPT, {"H07": {"unknown": 0.9}}, None)
    assert [(e.type, e.card) for e in events] == [("appeared", "C03")]


def test_a_card_a_person_named_is_known_to_the_tracker():
    _, tracker, events = run_with(SCRIPT, HESITANT, None)
    unsure = events[0]
    assert unsure.type == "uncertain"
    assert not tracker.identify([[0, 0], [1, 0], [1, 1], [0, 1]], "H07")  # nothing unnamed there
    assert tracker.identify(unsure.corners, "H07")
    assert sorted(c["card"] for c in tracker.cards) == ["C03", "H07"]
    assert not tracker.identify(unsure.corners, "H07")  # named now


def _play_fixing(script, fix, **oracle_options):
    """The events of ``script``; ``fix``: (was, card) told to the tracker, at the corners of the
    first ``appeared`` event of ``was``, as soon as it comes (a person fixing it on the OLED)."""
    sim = TableSimulator(script, seed=2, size=SMALL)
    oracle = GroundTruthRecogniser(sim, **oracle_options)
    tracker = Tracker(sim.zones, localiser=oracle.localise, namer=oracle, cropper=oracle.crop)
    events, told = [], []
    for f in oracle.frames():
        new = tracker.process(Frame(f.image, f.timestamp, f.index))
        events += new
        for e in new:
            if fix is not None and not told and e.type == "appeared" and e.card == fix[0]:
                told.append(tracker.fixed(e.corners, *fix))
    return tracker, events + tracker.flush(), told


def test_a_card_a_person_fixed_is_known_to_the_tracker_so_the_card_it_was_taken_for_is_a_card_of_its_own():
    # H07 read H08 surely; then the real H08 is laid beside it, in the same trick
    script = [Idle(3), Play(1, "H07"), Play(2, "H08"), Idle(5)]
    options = dict(confusions={"H07": ("H08", 0.97)})
    _, events, _ = _play_fixing(script, None, **options)
    assert [(e.type, e.card) for e in events] == [("appeared", "H08")]  # the real H08 taken for a second view
    tracker, events, told = _play_fixing(script, ("H08", "H07"), **options)
    assert told == [True]
    assert [(e.type, e.card) for e in events] == [("appeared", "H08"), ("appeared", "H08")]
    assert sorted(c["card"] for c in tracker.cards) == ["H07", "H08"]


def test_a_fix_is_told_only_where_the_card_lies():
    _, _, tracker, events = run_on_truth([Idle(3), Play(1, "H07"), Idle(5)], seed=2)
    corners = events[0].corners
    elsewhere = [[x + 200, y] for x, y in corners]
    assert not tracker.fixed(elsewhere, "H07", "H08")  # no H07 there
    assert not tracker.fixed(corners, "S01", "H08")  # no S01 at all
    assert not tracker.fixed(None, "H07", "H08") and not tracker.fixed(corners, "H07", "H07")
    assert tracker.fixed(corners, "H07", "H08")
    assert [c["card"] for c in tracker.cards] == ["H08"]
    assert not tracker.fixed(corners, "H07", "H08")  # fixed already

"""A new card's views: those taken while a hand lay over part of it are not evidence for it
(``TrackerSettings.look_change``), and it is named once the table around it is clear
(``TrackerSettings.hand_clear``)."""

from dataclasses import dataclass, replace

import cv2
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vision.change_outline import change_around
from vision.sources import Frame
from vision.tracker import Tracker, TrackerSettings
from vision.votes import Vote, look_distance, look_of, same_look

QUAD = np.float32([[400, 170], [490, 170], [490, 330], [400, 330]])  # an upright card, 90 x 160
GAP = (1, 2, 3)  # a pixel that tells the test's card finder to miss the card on that frame


def table(seed=0):
    rng = np.random.default_rng(seed)
    img = np.empty((540, 960, 3), np.uint8)
    img[:] = (40, 110, 30)
    return np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)


def with_card(img):
    out = img.copy()
    cv2.fillConvexPoly(out, np.round(QUAD).astype(np.int32), (215, 225, 230))
    cv2.rectangle(out, (420, 200), (470, 300), (150, 40, 20), -1)
    return out


def with_hand(img):
    """A hand lying over the card's lower end and beyond it, toward its seat."""
    out = img.copy()
    cv2.ellipse(out, (445, 370), (70, 90), 0, 0, 360, (70, 100, 150), -1)
    return out


def vote(card, look=None):
    return Vote(card, 0.9, [(card, 0.9)], look=look)


def test_a_look_ignores_the_light_but_not_a_hand():
    card = with_card(table())[170:330, 400:490]
    dim = (card.astype(np.float32) * 0.6 + 12).astype(np.uint8)
    covered = with_hand(with_card(table()))[170:330, 400:490]
    assert look_distance(look_of(card), look_of(dim)) < 0.05
    assert look_distance(look_of(card), look_of(covered)) > 0.3
    assert look_of("C04") is None and look_of(np.zeros((2, 2), np.uint8)) is None


def test_only_the_views_that_look_like_the_latest_are_kept():
    a, b = np.zeros((20, 12), np.float32), np.ones((20, 12), np.float32)
    votes = [vote("SQ", b), vote("CQ", a), vote("CJ")]  # the last one has no look: kept
    latest = vote("CQ", a + 0.1)
    assert [v.card for v in same_look(votes, latest, 0.3)] == ["CQ", "CJ", "CQ"]
    assert [v.card for v in same_look(votes, latest, 0.0)] == ["SQ", "CQ", "CJ", "CQ"]  # off
    assert same_look(votes, vote("H01"), 0.3)[-1].card == "H01"  # a view without a look drops nothing


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=0, max_size=6), st.floats(-2, 2), st.floats(0.01, 2))
def test_the_latest_view_is_always_kept_last_and_nothing_is_invented(levels, now, bar):
    votes = [vote(f"T{k + 1:02d}", np.full((20, 12), v, np.float32)) for k, v in enumerate(levels)]
    latest = vote("EX", np.full((20, 12), now, np.float32))
    kept = same_look(votes, latest, bar)
    assert kept[-1] is latest and all(v in votes for v in kept[:-1])
    assert all(abs(v.look[0, 0] - now) <= bar + 1e-6 for v in kept)


@dataclass
class Naming:
    card: str | None
    confidence: float


class DarkEndNamer:
    """Names the card "SQ" when the lower third of its crop is dark (a hand lies there), else "CQ"."""

    threshold = 0.5

    def name(self, crops):
        return [Naming("SQ", 0.9) if float(c[2 * c.shape[0] // 3:].mean()) < 130 else Naming("CQ", 0.9) for c in crops]


def card_finder(img):
    """The card's quad when its paper shows (never on the bare table, nor on a ``GAP`` frame)."""
    return [QUAD] if tuple(img[0, 0]) != GAP and img[180, 410].mean() > 150 else []


def run(frames, settings):
    tracker = Tracker(localiser=card_finder, namer=DarkEndNamer(), settings=settings)
    events = []
    for k, img in enumerate(frames):
        events += tracker.process(Frame(img, k / 30, k))
    return tracker, events + tracker.flush()


def hand_leaves_unseen():
    """The card lands with a hand over its end; the card finder misses it on the frame the hand
    leaves (so its views so far are kept), then sees it alone."""
    card = with_card(table())
    hand = with_hand(card)
    gap = card.copy()
    gap[0, 0] = GAP
    return [hand, hand, gap] + [card] * 8


def test_a_view_with_a_hand_over_the_card_is_dropped_once_the_card_lies_alone():
    _, events = run(hand_leaves_unseen(), TrackerSettings())
    assert [(e.type, e.card) for e in events] == [("uncertain", None)]  # the hand's view splits the votes
    tracker, events = run(hand_leaves_unseen(), replace(TrackerSettings(), look_change=0.3))
    assert [(e.type, e.card) for e in events] == [("appeared", "CQ")]
    assert tracker.stats.dropped == 1


def test_a_card_is_named_once_the_hand_by_it_has_gone():
    card = with_card(table())
    hand = with_hand(card)
    frames = [table()] * 3 + [hand] * 6 + [card] * 6  # the hand lingers still over the card's end
    _, events = run(frames, TrackerSettings())
    assert [(e.type, e.card) for e in events] == [("appeared", "SQ")]  # named under the hand: wrong
    # naming a changed place again (restack) does not take the card seen once the hand has gone for a
    # second card laid on it: its place's look is kept only once the hand is gone
    tracker, events = run(frames, replace(TrackerSettings(), restack=True))
    assert [(e.type, e.card) for e in events] == [("appeared", "SQ")]
    assert tracker._tracks[0].look_before is None  # the look was settled, restack watches the place again
    tracker, events = run(frames, replace(TrackerSettings(), hand_clear=0.1))
    assert [(e.type, e.card) for e in events] == [("appeared", "CQ")]
    assert tracker.stats.waited > 0
    # a change by the card that never goes (a neighbour nudged) delays the card, never loses it
    tracker, events = run([table()] * 3 + [hand] * 40, replace(TrackerSettings(), hand_clear=0.1, hand_wait=5))
    assert [(e.type, e.card) for e in events] == [("appeared", "SQ")] and tracker.stats.waited == 5


def test_what_changed_around_a_card():
    before = table(1)
    card = with_card(before)
    assert change_around(before, card, QUAD) < 0.03  # the card alone
    assert change_around(before, with_hand(card), QUAD) > 0.2  # a hand by it
    dim = (card.astype(np.float32) * 0.6 + 10).astype(np.uint8)
    assert change_around(before, dim, QUAD) < 0.03  # the lamp dimmed
    assert change_around(before[:100], card, QUAD) == 0.0  # frames of different sizes
    off = QUAD + np.float32([900, 0])  # a quad mostly outside the frame: what is inside counts
    assert 0.0 <= change_around(before, card, off) <= 1.0


def test_the_views_benchmark_pairs_each_view_with_its_cards_last():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_views.py"
    spec = importlib.util.spec_from_file_location("bench_views", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    a, b = np.zeros((20, 12), np.float32), np.ones((20, 12), np.float32)
    rows = [{"seed": 1, "track": 1, "hand": True, "look": b}, {"seed": 1, "track": 1, "hand": False, "look": a},
            {"seed": 1, "track": 1, "hand": False, "look": a + 0.2},  # the card's last view
            {"seed": 2, "track": 1, "hand": False, "look": a}, {"seed": 2, "track": 1, "hand": True, "look": b}]
    got = bench.pairs(rows)
    assert got["hand then clear"] == [pytest.approx(0.8)] and got["both clear"] == [pytest.approx(0.2)]
    assert got["hand in the last"] == [pytest.approx(1.0)]


def test_the_trace_tells_the_views_cleared_when_a_card_slid_on():
    """A card named once, then nudged on before a second view: its first view is cleared, and the
    trace's next view says so (``dropped``), so that a replay of the verdict drops it too."""
    moved = QUAD + np.float32([22, 0])  # more than a still card's wobble, less than a new card's jump
    base = table()
    here, there = base.copy(), base.copy()
    cv2.fillConvexPoly(here, np.round(QUAD).astype(np.int32), (215, 225, 230))
    cv2.fillConvexPoly(there, np.round(moved).astype(np.int32), (215, 225, 230))

    def finder(img):
        return [QUAD] if img[250, 405].mean() > 150 else [moved] if img[250, 500].mean() > 150 else []

    tracker = Tracker(localiser=finder, namer=DarkEndNamer(), settings=TrackerSettings())
    rows = []
    tracker.trace = lambda what, index, ident, quad, data: rows.append((what, index, data))
    events = []
    for k, img in enumerate([base] * 2 + [here] * 2 + [there] * 8):
        events += tracker.process(Frame(img, k / 30, k))
    assert [(e.type, e.card) for e in events] == [("appeared", "CQ")]
    views = [(index, data["dropped"]) for what, index, data in rows if what == "vote"]
    assert views == [(3, 0), (5, 1), (6, 0)]  # the view on frame 3 cleared when the card slid on frame 4
    assert [data["votes"] for what, _, data in rows if what == "verdict"] == [2]

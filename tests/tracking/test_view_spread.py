"""Each view named from its quad grown and shrunk (``TrackerSettings.view_spread``): a quad cut short
that reads as the card's neighbour is then a question, not a wrong card."""

from __future__ import annotations

import numpy as np
import pytest

from vision.simulator import Idle, Play, TableSimulator
from vision.tracker import TrackerSettings
from vision.votes import SpreadViews, spread_quads

from .helpers import SMALL
from .test_false_quads import area, track

SCRIPT = [Idle(3), Play(1, "H01"), Play(2, "D03"), Idle(10)]


def _card_area() -> float:
    layout = TableSimulator(SCRIPT, seed=3, size=SMALL).layout
    return layout.card_w * layout.card_h


def _cut_short(frame, quads):
    """The finder's quad of D03 is 12 % short of the card, about its centre."""
    d03 = next((c.corners for c in frame.cards if c.code == "D03"), None)
    if d03 is None:
        return quads
    out = []
    for q in quads:
        if np.linalg.norm(q.mean(0) - d03.mean(0)) < 10:
            q = q.mean(0) + (q - q.mean(0)) * 0.88
        out.append(q)
    return out


def _reads_short_cut_as_neighbour(card_area):
    def scores(code, quad, view):  # a crop that misses D03's edge reads D02, confidently
        if code == "D03" and area(quad) < 0.85 * card_area:
            return {"D02": 0.9, "D03": 0.04}
        return {code: 0.97} if code else {"unknown": 0.9}
    return scores


def test_a_quad_cut_short_is_a_wrong_card_without_the_spread():
    events, _ = track(SCRIPT, _cut_short, _reads_short_cut_as_neighbour(_card_area()), players=5)
    assert events == [("appeared", "H01"), ("appeared", "D02")]  # what the spread is for


def test_with_the_spread_the_quad_cut_short_is_asked_about():
    settings = TrackerSettings(view_spread=0.12)
    events, _ = track(SCRIPT, _cut_short, _reads_short_cut_as_neighbour(_card_area()), players=5, settings=settings)
    assert events == [("appeared", "H01"), ("uncertain", None)]


def test_the_spread_leaves_clear_cards_as_they_were():
    events, _ = track(SCRIPT, players=5, settings=TrackerSettings(view_spread=0.12))
    assert events == [("appeared", "H01"), ("appeared", "D03")]


def test_spread_quads_keep_the_centre_and_scale_the_sides():
    quad = np.array([[10, 10], [50, 10], [50, 80], [10, 80]], np.float32)
    same, grown, shrunk = spread_quads(quad, 0.1)
    assert np.allclose(same, quad)
    for q, k in ((grown, 1.1), (shrunk, 0.9)):
        assert np.allclose(q.mean(0), quad.mean(0))
        assert np.linalg.norm(q[1] - q[0]) == pytest.approx(40 * k) and np.linalg.norm(q[2] - q[1]) == pytest.approx(70 * k)


class TableNamer:
    labels = ["A", "B", "unknown"]
    threshold = 0.3

    def __init__(self, table):
        self.table = table

    def run(self, crops):
        return np.array([self.table[c] for c in crops], np.float32), np.array([[i, 0] for i, _ in enumerate(crops)], np.float32)


def test_spread_views_average_each_views_crops_and_keep_its_first_embedding():
    namer = TableNamer({"a": [0.9, 0.05, 0.05], "b": [0.1, 0.8, 0.1], "c": [0.2, 0.2, 0.6]})
    probs, emb = SpreadViews(namer, 3).run(["a", "b", "c", "c", "c", "a"])
    assert probs.shape == (2, 3) and np.allclose(probs[0], [0.4, 0.35, 0.25]) and np.allclose(probs[1], [1.3 / 3, 0.45 / 3, 1.25 / 3])
    assert emb.tolist() == [[0, 0], [3, 0]]
    assert SpreadViews(namer, 3).labels == namer.labels and SpreadViews(namer, 3).threshold == 0.3

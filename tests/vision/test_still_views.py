"""A still image's card named from several nudged outlines: the outlines, the averaging, the fallback."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.card_geometry import card_quad
from vision.namer import Naming, models_dir
from vision.still_views import NUDGES, name_still, nudged_quads


def area(q) -> float:
    return abs(float(cv2.contourArea(np.asarray(q, np.float32))))


@settings(max_examples=60, deadline=None)
@given(x=st.floats(100, 1100), y=st.floats(100, 600), length=st.floats(60, 400), angle=st.floats(-3.2, 3.2))
def test_the_first_outline_is_the_quad_the_others_stay_near_it(x, y, length, angle):
    quad = card_quad(np.array([x, y]), length, angle, 1.8)
    views = nudged_quads(quad)
    assert len(views) == len(NUDGES)
    np.testing.assert_allclose(views[0], quad, atol=1e-3)
    for (scale, a, b), v in zip(NUDGES, views):
        assert area(v) == pytest.approx(area(quad) * scale * scale, rel=1e-3)  # a shift keeps the size
        moved = np.linalg.norm(v.mean(0) - np.asarray(quad, np.float32).mean(0))
        assert moved == pytest.approx(np.hypot(a * length / 1.8, b * length), rel=1e-2, abs=1e-2)
        assert np.abs(v - quad).max() <= 0.05 * length  # no corner leaves the card by more than 5 % of it


class FakeNamer:
    """Names a crop by its mean grey: bright crops the first card, dark ones the second."""

    labels = ["H01", "H02", "unknown"]
    input_size = (56, 96)
    threshold = 0.6

    def __init__(self):
        self.batches = []

    def run(self, crops):
        self.batches.append(len(crops))
        grey = np.array([float(np.mean(c)) / 255 for c in crops])
        probs = np.stack([grey, 1 - grey, np.zeros_like(grey)], 1).astype(np.float32)
        return probs, np.arange(len(crops) * 2, dtype=np.float32).reshape(-1, 2)

    def namings(self, probs, emb):
        out = []
        for p, e in zip(probs, emb):
            k = int(np.argmax(p))
            out.append(Naming(self.labels[k] if p[k] >= self.threshold else None, float(p[k]), e))
        return out


def test_probabilities_are_averaged_over_the_outlines_in_one_batch():
    image = np.zeros((400, 400, 3), np.uint8)
    image[:, 200:] = 255  # a quad on the edge between black and white reads differently as it moves
    edge = card_quad(np.array([200.0, 200.0]), 180, 0.0, 1.8)
    white = card_quad(np.array([300.0, 200.0]), 150, 0.0, 1.8)
    namer = FakeNamer()
    half, bright = name_still(image, [edge, white], namer)
    assert namer.batches == [2 * len(NUDGES)]  # every outline of every quad at once
    assert bright.card == "H01" and bright.confidence == pytest.approx(1.0, abs=0.02)
    assert half.card is None and 0.4 < half.confidence < 0.6  # half white whatever the nudge: unsure
    np.testing.assert_array_equal(bright.embedding, [2 * len(NUDGES), 2 * len(NUDGES) + 1])  # its own first view's
    assert name_still(image, [], namer) == []


def test_a_namer_without_probabilities_names_each_quads_own_crop():
    class Prototypes:
        input_size = (56, 96)

        def __init__(self):
            self.seen = []

        def name(self, crops):
            self.seen.append(len(crops))
            return [Naming("T21", 0.9, None) for _ in crops]

    namer = Prototypes()
    quads = [card_quad(np.array([200.0, 200.0]), 150, 0.3, 1.8)] * 3
    assert [n.card for n in name_still(np.zeros((400, 400, 3), np.uint8), quads, namer)] == ["T21"] * 3
    assert namer.seen == [3]


@pytest.mark.skipif(not (models_dir() / "cards.onnx").is_file(), reason="models/cards.onnx is absent")
def test_a_clear_card_stays_sure_when_named_from_nudged_outlines():
    from vision import synth
    from vision.builtin_deck import render_card
    from vision.namer import Namer

    namer = Namer.load()
    canvas = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    quad = card_quad(np.array([640.0, 360.0]), 300, 0.4, 1.8)
    synth.paste(canvas, synth.face_from_image("H07", np.array(render_card("H07"))), quad)
    (naming,) = name_still(canvas, [quad], namer)
    assert naming.card == "H07" and naming.confidence >= 0.85

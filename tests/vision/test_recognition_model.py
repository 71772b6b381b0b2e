"""The shipped model (models/cards.onnx) on the built-in deck; deck scans when ../shared is there."""

import cv2
import numpy as np
import pytest

from engine.cards import CODES
from vision import synth
from vision.builtin_deck import render_back, render_card
from vision.decks import load_namer
from vision.namer import Namer, Naming, models_dir
from vision.recognise import recognise

from .scenes import match, place, table


@pytest.fixture(scope="module")
def namer():
    if not (models_dir() / "cards.onnx").is_file():
        pytest.skip("models/cards.onnx is absent (rebuild with python -m vision.training.build_models)")
    return Namer.load()


def straight_crops(faces, size):
    return [cv2.resize(np.ascontiguousarray(f.bgr), size, interpolation=cv2.INTER_AREA) for f in faces]


def test_labels_are_the_78_codes_then_unknown(namer):
    assert namer.labels == list(CODES) + ["unknown"]
    assert 0.0 < namer.threshold < 1.0


def test_builtin_cards_upright_and_upside_down(namer):
    crops = straight_crops(synth.builtin_faces(), namer.input_size)
    upright = namer.name(crops)
    flipped = namer.name([np.ascontiguousarray(c[::-1, ::-1]) for c in crops])
    assert all(isinstance(n, Naming) for n in upright)
    right_up = sum(n.card == c for n, c in zip(upright, CODES))
    right_down = sum(n.card == c for n, c in zip(flipped, CODES))
    assert right_up >= 76 and right_down >= 76, (right_up, right_down)


def test_builtin_cards_in_synthetic_crops(namer):
    rng = np.random.default_rng(123)
    faces = synth.builtin_faces()
    crops = [synth.make_crop(rng, f, namer.input_size, jitter=0.04, effects=0.5, colour=0.3) for f in faces]
    right = sum(n.card == f.code for n, f in zip(namer.name(crops), faces))
    assert right >= 0.9 * len(faces), right


def test_backs_and_empty_patches_are_rejected(namer):
    size = namer.input_size
    rng = np.random.default_rng(7)
    crops = [cv2.resize(np.array(render_back()), size, interpolation=cv2.INTER_AREA)]
    crops += [table(c, size=size, seed=i) for i, c in enumerate([(40, 110, 30), (30, 55, 90), (140, 60, 20), (200, 200, 200)])]
    crops += [synth.make_unknown_crop(rng, size, ())[0] for _ in range(20)]
    namings = namer.name(crops)
    rejected = sum(n.card is None for n in namings)
    assert namings[0].card is None  # the built-in back
    assert rejected >= len(crops) - 1, [n.card for n in namings]


def test_embeddings_are_unit_vectors(namer):
    crops = straight_crops(synth.builtin_faces()[:4], namer.input_size)
    emb = namer.embed(crops)
    assert emb.shape[0] == 4 and emb.shape[1] >= 16
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-4)
    assert namer.name([]) == []


def test_recognise_a_table(namer):
    canvas = table((40, 110, 30))
    truths = {"T21": place(canvas, "T21", (300, 300), 20), "H07": place(canvas, "H07", (700, 350), 190),
              "SK": place(canvas, "SK", (1050, 400), 95)}
    detections = recognise(canvas, namer)
    named = {d.card: d for d in detections}
    assert set(named) == set(truths)
    for code, truth in truths.items():
        assert match([named[code].corners], truth) < 0.06


def test_unknown_deck_name_is_a_clear_error():
    from engine.errors import TarotmateError

    with pytest.raises(TarotmateError, match="available"):
        load_namer(deck="no-such-deck")


@pytest.mark.shared
def test_deck_scans_are_named(namer, trained_decks):
    """Straight crops of the scanned decks the model is trained on, upright and upside down."""
    for folder in trained_decks:
        faces = synth.load_deck(str(folder), max_height=400)
        crops = straight_crops(faces, namer.input_size)
        crops += [np.ascontiguousarray(c[::-1, ::-1]) for c in crops]
        codes = [f.code for f in faces] * 2
        right = sum(n.card == c for n, c in zip(namer.name(crops), codes))
        assert right >= 0.95 * len(codes), (folder.name, right)

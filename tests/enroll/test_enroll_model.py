"""Enrollment with the shipped recognition model (skipped where models/ has no model yet)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cards import CODES
from vision import synth
from vision.deck_profiles import save_profile
from vision.enroll import enroll_faces
from vision.namer import MODEL_FILE, Namer, models_dir
from vision.recognise import recognise


@pytest.fixture(scope="module")
def namer():
    if not (models_dir() / MODEL_FILE).is_file():
        pytest.skip(f"needs the card model {models_dir() / MODEL_FILE}, which is not built yet")
    return Namer.load()


@pytest.fixture(scope="module")
def profile(namer, faces):
    return enroll_faces("builtin-model", faces, namer, views=4)


def synthetic_crops(namer, faces, seed: int, per_card: int = 1):
    rng = np.random.default_rng(seed)
    crops, truth = [], []
    for code in CODES:
        face = synth.face_from_image(code, np.array(faces[code]))
        for _ in range(per_card):
            crops.append(synth.make_crop(rng, face, namer.input_size))
            truth.append(code)
    return crops, truth


def test_profile_names_fresh_camera_like_crops_of_the_builtin_deck(namer, profile, faces):
    from vision.enroll import PrototypeNamer

    crops, truth = synthetic_crops(namer, faces, seed=123)
    namings = PrototypeNamer(profile, namer).name(crops)
    right = sum(n.card == t for n, t in zip(namings, truth))
    wrong = sum(n.card not in (None, t) for n, t in zip(namings, truth))
    assert right >= 0.95 * len(truth), f"{right}/{len(truth)} named right"
    assert wrong <= 0.02 * len(truth), f"{wrong}/{len(truth)} named wrong"


def test_profile_rejects_non_card_crops(namer, profile):
    from vision.enroll import PrototypeNamer

    rng = np.random.default_rng(7)
    crops = [synth.make_unknown_crop(rng, namer.input_size)[0] for _ in range(60)]
    rejected = sum(n.card is None for n in PrototypeNamer(profile, namer).name(crops))
    assert rejected >= 0.9 * len(crops), f"{rejected}/{len(crops)} non-card crops rejected"


def test_namer_load_with_a_deck_names_a_scene_through_the_profile(namer, profile, monkeypatch, tmp_path):
    monkeypatch.setenv("TAROTMATE_DATA", str(tmp_path))
    save_profile(profile, tmp_path / "decks")
    deck_namer = Namer.load(deck="builtin-model")
    assert deck_namer.deck == "builtin-model" and deck_namer.input_size == namer.input_size
    rng = np.random.default_rng(5)
    scene = synth.make_scene(rng, synth.builtin_faces(), n_cards=3, effects=0.3)
    named = sorted(d.card for d in recognise(scene.image, deck_namer))
    assert named == sorted(c.code for c in scene.cards)

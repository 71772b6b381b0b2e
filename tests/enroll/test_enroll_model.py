"""Enrollment with the shipped recognition model (skipped where models/ has no model yet)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cards import CODES
from vision import synth
from vision.deck_profiles import save_profile
from vision.enroll import enroll_faces
from vision.decks import load_namer
from vision.namer import MODEL_FILE, Namer, models_dir
from vision.recognise import recognise


@pytest.fixture(scope="module")
def namer():
    if not (models_dir() / MODEL_FILE).is_file():
        pytest.skip(f"needs the card model {models_dir() / MODEL_FILE}, which is not built yet")
    return Namer.load()


@pytest.fixture(scope="module")
def profile(namer, faces):
    return enroll_faces("builtin-model", faces, namer, views=8)


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
    """At least as well as the model itself, which was trained on this deck.

    The crops carry every camera effect of the synthesis, a quarter of them
    at 45-100 pixels wide, where the built-in deck's small pips blur: the
    model alone names about 80% of them (``benchmarks/bench_enroll.py``).
    """
    from vision.enroll import PrototypeNamer

    crops, truth = synthetic_crops(namer, faces, seed=123, per_card=2)
    namings = PrototypeNamer(profile, namer).name(crops)
    right = sum(n.card == t for n, t in zip(namings, truth))
    base_right = sum(n.card == t for n, t in zip(namer.name(crops), truth))
    assert right >= base_right, f"profile {right}, model alone {base_right} of {len(truth)}"
    assert right >= 0.85 * len(truth), f"{right}/{len(truth)} named right"


def test_profile_rejects_non_card_crops(namer, profile):
    from vision.enroll import PrototypeNamer

    rng = np.random.default_rng(7)
    crops = [synth.make_unknown_crop(rng, namer.input_size)[0] for _ in range(60)]
    rejected = sum(n.card is None for n in PrototypeNamer(profile, namer).name(crops))
    assert rejected >= 0.9 * len(crops), f"{rejected}/{len(crops)} non-card crops rejected"


def test_namer_load_with_a_deck_names_a_scene_through_the_profile(namer, profile, monkeypatch, tmp_path):
    monkeypatch.setenv("TAROTMATE_DATA", str(tmp_path))
    save_profile(profile, tmp_path / "decks")
    deck_namer = load_namer(deck="builtin-model")
    assert deck_namer.deck == "builtin-model" and deck_namer.input_size == namer.input_size
    rng = np.random.default_rng(5)
    scene = synth.make_scene(rng, synth.builtin_faces(), n_cards=3, effects=0.3)
    named = sorted(d.card for d in recognise(scene.image, deck_namer))
    assert named == sorted(c.code for c in scene.cards)


def test_enroll_a_folder_then_classify_with_the_deck(namer, tmp_path, monkeypatch, capsys):
    """``tarotmate enroll --from-dir`` with the real model, then ``classify --deck`` uses the profile."""
    import json

    import cv2

    from device.cli import main
    from vision.builtin_deck import render_card, write_deck

    monkeypatch.setenv("TAROTMATE_DATA", str(tmp_path / "data"))
    folder = tmp_path / "deck"
    write_deck(folder)
    (folder / "SK.png").unlink()
    assert main(["enroll", "mine", "--from-dir", str(folder), "--views", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["cards"] == 77 and result["missing"] == ["SK"]
    assert main(["decks"]) == 0
    assert any(line.startswith("mine ") for line in capsys.readouterr().out.splitlines())

    photo = tmp_path / "close-up.png"
    cv2.imwrite(str(photo), render_card("HQ"))
    assert main(["classify", "--deck", "mine", "--whole", "--json", str(photo)]) == 0
    classified = json.loads(capsys.readouterr().out)
    assert [c["card"] for c in classified[0]["cards"]] == ["HQ"]

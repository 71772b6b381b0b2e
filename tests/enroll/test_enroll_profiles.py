"""Deck profiles on disk: save/load round trip, search path, errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision import deck_profiles
from vision.deck_profiles import (
    DeckProfile,
    DeckProfileError,
    SimilarPair,
    find_profile,
    list_profiles,
    load_profile,
    save_profile,
    user_decks_dir,
)


def small_profile(name: str = "marseille", model: str = "m1") -> DeckProfile:
    rng = np.random.default_rng(1)
    rows = rng.normal(size=(3, 8)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return DeckProfile(
        name=name,
        prototypes=rows,
        labels=("T01", "T01", "HK"),
        threshold=0.62,
        model=model,
        views=12,
        similar_pairs=(SimilarPair("T01", "HK", 0.91),),
        source="scans",
    )


def test_round_trip_keeps_everything(tmp_path):
    profile = small_profile()
    manifest = save_profile(profile, tmp_path)
    assert manifest == tmp_path / "marseille.json"
    loaded = load_profile("marseille", tmp_path)
    np.testing.assert_allclose(loaded.prototypes, profile.prototypes, atol=1e-3)  # stored as float16
    assert loaded.labels == profile.labels
    assert loaded.threshold == pytest.approx(0.62)
    assert (loaded.model, loaded.views, loaded.source, loaded.created) == ("m1", 12, "scans", profile.created)
    assert loaded.similar_pairs == profile.similar_pairs
    assert loaded.cards == ("T01", "HK")
    assert len(loaded.missing) == 76 and "EX" in loaded.missing


def test_a_deck_metric_is_saved_and_applied_when_naming(tmp_path):
    from vision.enroll import PrototypeNamer

    class Fixed:
        model_id = "m1"
        crop_size = (8, 8)

        def embed(self, crops):
            return np.array(crops, np.float32)

    swap = np.array([[0, 1], [1, 0]], np.float32)  # the metric swaps the two axes
    profile = DeckProfile("swapped", np.eye(2, dtype=np.float32), ("T01", "T02"), 0.5, "m1", transform=swap)
    save_profile(profile, tmp_path)
    loaded = load_profile("swapped", tmp_path)
    np.testing.assert_array_equal(loaded.transform, swap)
    assert json.loads((tmp_path / "swapped.json").read_text())["metric"] == "whitened cosine"
    assert [n.card for n in PrototypeNamer(loaded, Fixed()).name([[1, 0], [0, 1]])] == ["T02", "T01"]
    with pytest.raises(DeckProfileError, match="transform of shape"):
        DeckProfile("bad", np.eye(2, dtype=np.float32), ("T01", "T02"), 0.5, "m1", transform=np.eye(3))


def test_manifest_is_readable_json(tmp_path):
    save_profile(small_profile(), tmp_path)
    manifest = json.loads((tmp_path / "marseille.json").read_text())
    assert manifest["cards"] == 2 and manifest["prototypes"] == 3 and manifest["dimension"] == 8
    assert manifest["similar_pairs"] == [["T01", "HK", 0.91]]


def test_saving_again_replaces_the_profile_and_leaves_no_temporary_file(tmp_path):
    save_profile(small_profile(model="m1"), tmp_path)
    save_profile(small_profile(model="m2"), tmp_path)
    assert load_profile("marseille", tmp_path).model == "m2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["marseille.json", "marseille.npz"]


@pytest.mark.parametrize("name", ["", "../evil", "a b", ".hidden", "x" * 65, "deck/1"])
def test_bad_names_are_refused(name):
    with pytest.raises(DeckProfileError, match="bad deck name"):
        small_profile(name=name)


def test_labels_must_match_rows_and_be_card_codes():
    rows = np.eye(3, dtype=np.float32)
    with pytest.raises(DeckProfileError, match="2 labels"):
        DeckProfile("d", rows, ("T01", "T02"), 0.5, "m")
    with pytest.raises(DeckProfileError, match="unknown card codes ZZ"):
        DeckProfile("d", rows, ("T01", "T02", "ZZ"), 0.5, "m")


def test_missing_deck_names_the_known_ones(tmp_path):
    save_profile(small_profile("alpha"), tmp_path)
    with pytest.raises(DeckProfileError, match=r"no deck profile named 'beta' \(enrolled decks: alpha\)"):
        find_profile("beta", tmp_path)


def test_malformed_manifest_is_a_clear_error(tmp_path):
    save_profile(small_profile(), tmp_path)
    (tmp_path / "marseille.json").write_text("{not json")
    with pytest.raises(DeckProfileError, match="cannot read deck manifest"):
        load_profile("marseille", tmp_path)
    (tmp_path / "marseille.json").write_text(json.dumps({"format": 99}))
    with pytest.raises(DeckProfileError, match="not a deck manifest"):
        load_profile("marseille", tmp_path)


def test_user_decks_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TAROTMATE_DATA", str(tmp_path / "data"))
    assert user_decks_dir() == tmp_path / "data" / "decks"
    monkeypatch.delenv("TAROTMATE_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert user_decks_dir() == tmp_path / "xdg" / "tarotmate" / "decks"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_decks_dir() == tmp_path / "home" / ".local" / "share" / "tarotmate" / "decks"


def test_user_deck_hides_a_shipped_deck_of_the_same_name(monkeypatch, tmp_path):
    shipped, user = tmp_path / "shipped", tmp_path / "data"
    monkeypatch.setattr(deck_profiles, "shipped_decks_dir", lambda: shipped)
    monkeypatch.setenv("TAROTMATE_DATA", str(user))
    save_profile(small_profile("common", model="shipped-model"), shipped)
    save_profile(small_profile("extra", model="shipped-model"), shipped)
    save_profile(small_profile("common", model="user-model"), user / "decks")
    assert load_profile("common").model == "user-model"
    listed = {(e.name, e.shipped) for e in list_profiles()}
    assert listed == {("common", False), ("extra", True)}


def test_a_decks_temperature_is_kept_and_a_damaged_one_refused(tmp_path):
    from dataclasses import replace

    profile = replace(small_profile(), temperature=0.031)
    save_profile(profile, tmp_path)
    assert json.loads((tmp_path / "marseille.json").read_text())["temperature"] == 0.031
    assert load_profile("marseille", tmp_path).temperature == pytest.approx(0.031)
    save_profile(small_profile(), tmp_path)  # a profile without one (enrolled from too few views)
    assert "temperature" not in json.loads((tmp_path / "marseille.json").read_text())
    assert load_profile("marseille", tmp_path).temperature is None
    for bad in (0.0, -1.0, 9.0, float("nan")):
        with pytest.raises(DeckProfileError, match="temperature"):
            replace(small_profile(), temperature=bad)
    manifest = json.loads((tmp_path / "marseille.json").read_text())
    manifest["temperature"] = 40
    (tmp_path / "marseille.json").write_text(json.dumps(manifest))
    with pytest.raises(DeckProfileError, match="temperature"):
        load_profile("marseille", tmp_path)

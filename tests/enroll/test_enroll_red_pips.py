"""An enrolled deck says whether it prints its hearts' and diamonds' pip cards in red ink
(``DeckProfile.red_pips``, measured on the clean faces at enrollment); at the table a deck that does not
is not held to the tracker's ``red_ink`` bar, which would ask every such card whose views show no red."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.deck_profiles import DeckProfileError, load_profile, save_profile
from vision.enroll import RED_FACE, CardViews, PrototypeNamer, TABLE_BARS, enroll_faces, red_pips
from vision import votes as voting
from vision.tracker import Tracker
from vision.tracker_settings import TrackerSettings
from vision.votes import CARD, UNCERTAIN_VERDICT, red_ink

from .conftest import MILD

SOME = ("H03", "H08", "D05", "D10", "S04", "C09", "HK", "T07")


def golden(face: np.ndarray) -> np.ndarray:
    """The face with its red ink printed in gold instead (a deck's Cups and Coins)."""
    out = face.copy()
    b, g, r = (face[..., k].astype(int) for k in range(3))
    red = (r > 120) & (r - g > 60) & (r - b > 60)
    out[red] = (40, 150, 190)  # BGR: a dull gold
    return out


def deck(faces, recolour=None):
    return {code: (recolour(faces[code]) if recolour and code[:1] in "HD" else faces[code]) for code in SOME}


def test_the_built_in_decks_red_pips_are_red_and_a_golden_decks_are_not(embedder, faces, tmp_path):
    red = enroll_faces("reds", deck(faces), embedder, views=2, strategy="orientation", augment=MILD)
    gold = enroll_faces("golds", deck(faces, golden), embedder, views=2, strategy="orientation", augment=MILD)
    assert red.red_pips is True and gold.red_pips is False
    assert red_ink(golden(faces["H08"])) < RED_FACE <= red_ink(faces["H08"])
    # the files keep it; a profile enrolled before it was measured has none, and loads as it was
    save_profile(gold, tmp_path)
    assert load_profile("golds", tmp_path).red_pips is False
    assert '"red_pips": false' in (tmp_path / "golds.json").read_text()
    save_profile(replace(red, name="older", red_pips=None), tmp_path)
    assert load_profile("older", tmp_path).red_pips is None
    assert "red_pips" not in (tmp_path / "older.json").read_text()


def test_at_the_table_only_a_deck_printing_its_red_suits_in_red_is_held_to_the_red_ink_bar(embedder, faces):
    bar = TrackerSettings().red_ink
    assert bar > 0
    for red_pips, expected in ((True, bar), (None, bar), (False, 0.0)):
        profile = replace(enroll_faces("d", deck(faces), embedder, views=2, augment=MILD), red_pips=red_pips)
        namer = PrototypeNamer(profile, embedder, at_table=True)
        assert namer.red_pips(bar) is red_pips and namer.tracker_bars == TABLE_BARS
        tracker = Tracker(namer=namer)
        assert tracker.settings.red_ink == bar  # measured on every view all the same (the memory learns it)
        judged = tracker._judged_with()
        assert judged.red_ink == expected and replace(judged, red_ink=bar) == tracker.settings
        # a red pip card whose views show no red ink: asked, unless the deck is not printed so
        verdict = voting.verdict(red_views("D05"), judged, final=True)
        assert verdict[:2] == ((CARD, "D05") if red_pips is False else (UNCERTAIN_VERDICT, None))


def red_views(card, red=1.5, n=3):
    return [voting.Vote(card, 0.999, [(card, 0.999), ("S05", 0.0005)], red=red) for _ in range(n)]


def test_red_pips_reads_only_the_red_suits_pip_faces_measured():
    def views(code, red):
        return CardViews(code, np.ones((1, 4), np.float32), np.zeros(1, bool), b"", red)

    assert red_pips([views("S03", 0.0), views("HK", 5.0)]) is None  # no heart or diamond pip card
    assert red_pips([views("H03", None), views("D04", None)]) is None  # none measured
    assert red_pips([views("H03", 45.0), views("D04", 60.0), views("S03", 40.0), views("HK", 0.0)]) is True
    assert red_pips([views("H03", 45.0), views("D04", RED_FACE - 1)]) is False
    assert red_pips([views("H03", 45.0), views("D04", None)]) is False  # a red pip face with no ink to measure


@pytest.mark.parametrize("value", ["yes", 1, 0.0])
def test_a_damaged_red_pips_in_a_manifest_is_a_clear_error(embedder, faces, tmp_path, value):
    profile = enroll_faces("damaged", deck(faces), embedder, views=2, augment=MILD)
    manifest = save_profile(profile, tmp_path)
    text = manifest.read_text().replace('"red_pips": true', f'"red_pips": {value!r}'.replace("'", '"'))
    assert text != manifest.read_text()
    manifest.write_text(text)
    with pytest.raises(DeckProfileError, match="red_pips"):
        load_profile("damaged", tmp_path)


def test_a_camera_face_of_a_red_pip_card_under_a_warm_lamp_still_shows_red(faces):
    warm = np.clip(faces["D05"].astype(np.float32) * np.array([0.55, 0.8, 1.0]), 0, 255).astype(np.uint8)
    dim = cv2.convertScaleAbs(faces["H03"], alpha=0.5)
    assert red_ink(warm) >= RED_FACE and red_ink(dim) >= RED_FACE
    assert red_ink(cv2.convertScaleAbs(faces["S04"], alpha=0.5)) < RED_FACE

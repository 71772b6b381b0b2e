"""An enrolled deck keeps its cards' clean faces' keypoints (``vision.card_keypoints``); at the table
(``PrototypeNamer(at_table=True)``) and on still images a crop whose keypoints match one card's face, and
no other's nearly as well, is that card surely; the profile files keep them, and older profiles without them still load."""

import argparse
from dataclasses import replace

import numpy as np
import pytest

from tests.vision.test_card_keypoints import engraving, seen_again
from vision.card_keypoints import card_keypoint_blocks
from vision.deck_memory import VERIFIED_SURE
from vision.deck_profiles import DeckProfileError, load_profile, save_profile
from vision.enroll import PrototypeNamer, enroll_faces

from .conftest import MILD

PRINTS = {"T01": 1, "T02": 2, "T03": 3, "T04": 4, "T05": 5, "T06": 6}


@pytest.fixture(scope="module")
def engraved(embedder):
    """Six trumps whose faces are distinct random prints, enrolled from their clean faces."""
    faces = {code: engraving(seed) for code, seed in PRINTS.items()}
    return enroll_faces("engraved", faces, embedder, views=2, strategy="orientation", augment=MILD)


def surely(namer, crops):
    probs, _ = namer.probabilities(crops)
    labels = list(namer.labels)
    return [(labels[int(j)], float(p[j])) for p, j in zip(probs, probs.argmax(1))]


def test_enrollment_keeps_each_cards_clean_face_keypoints_and_the_files_keep_them(engraved, tmp_path):
    assert sorted(engraved.keypoints) == sorted(PRINTS)
    assert all(len(blob) >= 34 * 40 for blob in engraved.keypoints.values())
    manifest = save_profile(engraved, tmp_path)
    back = load_profile("engraved", tmp_path)
    assert back.keypoints == engraved.keypoints
    assert '"keypoints": 6' in manifest.read_text()
    # a profile enrolled before faces kept their keypoints (none in its files) loads as it was
    save_profile(replace(engraved, name="older", keypoints={}), tmp_path)
    assert load_profile("older", tmp_path).keypoints == {}
    assert '"keypoints"' not in (tmp_path / "older.json").read_text()


def test_damaged_keypoints_in_a_profile_are_a_clear_error(engraved, tmp_path):
    save_profile(engraved, tmp_path)
    npz = tmp_path / "engraved.npz"
    with np.load(npz) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["keypoint_bytes"] = arrays["keypoint_bytes"] + 10_000  # longer than the rows that hold them
    np.savez(npz, **arrays)
    with pytest.raises(DeckProfileError, match="cannot read deck profile"):
        load_profile("engraved", tmp_path)
    with pytest.raises(DeckProfileError, match="malformed keypoints"):
        replace(engraved, keypoints={"T01": b"\x01" * 35})


def test_at_the_table_a_crop_that_matches_one_cards_face_is_that_card_surely(engraved, embedder):
    unsure = replace(engraved, temperature=0.5)  # the pixels alone name these crops far from surely
    at_table = PrototypeNamer(unsure, embedder, at_table=True)
    crops = [seen_again(engraving(3), seed=1), np.ascontiguousarray(seen_again(engraving(5), seed=2)[::-1, ::-1])]
    assert [(c, p >= VERIFIED_SURE) for c, p in surely(at_table, crops)] == [("T03", True), ("T05", True)]
    # the crops' keypoints found already (the table's deck memory finds them for its views): the same namings
    np.testing.assert_array_equal(at_table.probabilities(crops, keypoints=card_keypoint_blocks(crops))[0],
                                  at_table.probabilities(crops)[0])
    # without the faces' keypoints the same crops are named as unsurely as before
    assert all(p < 0.9 for _, p in surely(PrototypeNamer(replace(unsure, keypoints={}), embedder, at_table=True), crops))
    # a still image (classify --deck) is settled the same way; a print no card shows is not
    still = PrototypeNamer(unsure, embedder).name([*crops, seen_again(engraving(77), seed=3)])
    assert [(n.card, n.confidence >= VERIFIED_SURE) for n in still[:2]] == [("T03", True), ("T05", True)]
    assert still[2].confidence < 0.9
    plain = PrototypeNamer(replace(unsure, keypoints={}), embedder).name(crops)
    assert all(n.confidence < 0.9 for n in plain)
    # a crop under the profile's threshold that its faces do not settle stays refused, however sharp the profile
    sharp = PrototypeNamer(replace(engraved, temperature=0.001), embedder)
    noise = np.random.default_rng(1).integers(0, 255, (192, 112, 3), dtype=np.uint8)
    assert sharp.name_embeddings(embedder.embed([noise]))[0].confidence >= VERIFIED_SURE  # refused by the threshold
    assert sharp.name([noise])[0].card is None


def test_a_print_no_card_or_two_cards_show_is_not_settled(embedder):
    # T01 and T02 enrolled from the same print (a deck's look-alikes), T03 from another
    faces = {"T01": engraving(1), "T02": seen_again(engraving(1), seed=9, dx=1, dy=1, gain=0.95), "T03": engraving(3)}
    profile = replace(enroll_faces("alike", faces, embedder, views=2, strategy="orientation", augment=MILD),
                      temperature=0.5)
    namer = PrototypeNamer(profile, embedder, at_table=True)
    assert namer.face_likeness()[:2].min() >= 40  # each of the twins' faces is much like the other's
    named = surely(namer, [seen_again(engraving(1), seed=4), seen_again(engraving(77), seed=5)])
    assert [c == "unknown" or p < VERIFIED_SURE for c, p in named] == [True, True]


def test_a_profile_whose_faces_keypoints_an_older_tarotmate_found_is_read_without_them(engraved, tmp_path, capsys, caplog):
    import json

    from device.commands import decks
    from vision.card_keypoints import FINDER

    manifest = save_profile(engraved, tmp_path)
    assert json.loads(manifest.read_text())["keypoint_finder"] == FINDER
    caplog.clear()
    assert load_profile("engraved", tmp_path).keypoints == engraved.keypoints
    assert decks.keypoint_notes(tmp_path) == {} and "older Tarotmate" not in caplog.text
    written = {**json.loads(manifest.read_text()), "model": decks.current_model()}  # not stale: the model installed
    for older in (None, 1):  # enrolled before the finder was noted, or by the first finder
        m = {k: v for k, v in written.items() if k != "keypoint_finder"}
        if older is not None:
            m["keypoint_finder"] = older
        manifest.write_text(json.dumps(m))
        caplog.clear()
        back = load_profile("engraved", tmp_path)
        assert back.keypoints == {} and back.labels == engraved.labels  # named as a profile enrolled without them
        assert "found by an older Tarotmate and are set aside" in caplog.text  # said where the device logs
        assert list(decks.keypoint_notes(tmp_path)) == ["engraved"]
        decks.run(argparse.Namespace(decks_dir=str(tmp_path), json=False))
        assert "enrol it again to settle its cards by them" in capsys.readouterr().out
    for bad in ("2", True, 1.5, [2]):
        manifest.write_text(json.dumps({**written, "keypoint_finder": bad}))
        with pytest.raises(DeckProfileError, match="keypoint_finder of .*enrol the deck again"):
            load_profile("engraved", tmp_path)
        assert decks.keypoint_notes(tmp_path) == {"engraved": "its keypoint_finder is damaged: enrol it again"}

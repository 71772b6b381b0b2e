"""Prototype building, naming, rejection and the report of cards too alike."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cards import CODES
from vision.builtin_deck import render_back
from vision.deck_profiles import DeckProfileError, save_profile
from vision.enroll import (
    UNSURE_FACE,
    EnrollmentError,
    PrototypeNamer,
    card_prototypes,
    card_views,
    enroll_faces,
    load_deck_namer,
    non_card_crops,
    read_deck_folder,
    similar_pairs,
)

from .conftest import MILD


def fresh_views(faces, embedder, seed: int, per_card: int = 3):
    """Jittered views (both orientations) of every card, from another seed than enrollment."""
    rng = np.random.default_rng(seed)
    crops, truth = [], []
    for code in CODES:
        views = card_views(faces[code], per_card + 2, embedder.crop_size, rng, MILD)
        crops += views[2:]  # the first two are the clean views enrollment saw
        truth += [code] * per_card
    return crops, truth


def test_profile_has_one_prototype_per_card_and_orientation(builtin_profile, embedder):
    assert builtin_profile.cards == CODES and builtin_profile.missing == ()
    assert len(builtin_profile.prototypes) == 2 * 78
    assert builtin_profile.model == embedder.model_id and builtin_profile.views == 2
    np.testing.assert_allclose(np.linalg.norm(builtin_profile.prototypes, axis=1), 1.0, atol=1e-5)


def test_augmented_views_of_the_builtin_deck_are_named_right(builtin_profile, embedder, faces):
    crops, truth = fresh_views(faces, embedder, seed=11)
    namings = PrototypeNamer(builtin_profile, embedder).name(crops)
    right = sum(n.card == t for n, t in zip(namings, truth))
    assert right / len(truth) >= 0.97, f"{right}/{len(truth)} named right"


def test_a_half_turned_card_is_named_right(builtin_profile, embedder, faces):
    turned = [np.ascontiguousarray(card_views(faces[c], 1, embedder.crop_size, np.random.default_rng(0))[0][::-1, ::-1])
              for c in ("T07", "HK", "EX", "C03")]
    assert [n.card for n in PrototypeNamer(builtin_profile, embedder).name(turned)] == ["T07", "HK", "EX", "C03"]


def test_non_card_crops_are_rejected_as_unknown(builtin_profile, embedder, faces):
    import cv2

    crops = non_card_crops(embedder.crop_size, np.random.default_rng(99), n=16)
    crops.append(cv2.resize(render_back(), embedder.crop_size, interpolation=cv2.INTER_AREA))
    namer = PrototypeNamer(builtin_profile, embedder)
    namings = namer.name(crops)
    assert [n.card for n in namings] == [None] * len(crops)
    cards = namer.name(card_views(faces["S04"], 2, embedder.crop_size, np.random.default_rng(0)))
    assert min(n.confidence for n in cards) > 2 * max(n.confidence for n in namings)


def test_naming_nothing_gives_nothing(builtin_profile, embedder):
    assert PrototypeNamer(builtin_profile, embedder).name([]) == []


def test_the_same_image_enrolled_under_two_codes_is_reported(embedder, faces):
    subset = {code: faces[code] for code in CODES[:12]}
    subset["T05"] = faces["T02"]  # the player showed the 2 when asked for the 5
    profile = enroll_faces("dup", subset, embedder, views=2, strategy="orientation")
    assert profile.similar_pairs, "the duplicate was not reported"
    top = profile.similar_pairs[0]
    assert {top.first, top.second} == {"T02", "T05"} and top.similarity > 0.95
    assert len(profile.similar_pairs) == 1  # the other eleven cards are told apart


def test_similar_pairs_compares_cards_by_their_closest_prototypes():
    protos = np.array([[1, 0, 0], [0, 1, 0], [0.8, 0.6, 0], [0, 0, 1]], np.float32)
    pairs = similar_pairs(protos, ["T01", "T01", "T02", "T03"], min_similarity=0.7)
    assert [(p.first, p.second) for p in pairs] == [("T01", "T02")]
    assert pairs[0].similarity == pytest.approx(0.8)


def test_prototype_strategies():
    views = np.array([[1, 0], [1, 0.2], [0, 1], [0.1, 1]], np.float32)
    turned = np.array([False, False, True, True])
    assert card_prototypes(views, turned, "mean").shape == (1, 2)
    orient = card_prototypes(views, turned, "orientation")
    assert orient.shape == (2, 2) and orient[0, 0] > 0.9 and orient[1, 1] > 0.9
    with pytest.raises(EnrollmentError, match="unknown prototype strategy"):
        card_prototypes(views, turned, "median")


def test_deck_folder_sorts_card_images_from_the_rest(tmp_path):
    for name in ("T01.png", "hk.JPG", "EX.jpeg", "SOURCE.md", "H15.png", "back.png"):
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / ".DS_Store").write_bytes(b"x")
    folder = read_deck_folder(tmp_path)
    assert sorted(folder.files) == ["EX", "HK", "T01"]
    assert folder.unknown == ("H15.png", "SOURCE.md", "back.png")
    assert len(folder.missing) == 75 and "T01" not in folder.missing


def test_deck_folder_refuses_a_card_given_twice(tmp_path):
    (tmp_path / "T01.png").write_bytes(b"x")
    (tmp_path / "t01.jpg").write_bytes(b"x")
    with pytest.raises(EnrollmentError, match="T01 is given twice"):
        read_deck_folder(tmp_path)


def test_deck_namer_loads_the_profile_for_the_same_model(builtin_profile, embedder, faces, tmp_path):
    save_profile(builtin_profile, tmp_path)
    namer = load_deck_namer("builtin-test", base_namer=embedder, decks_dir=tmp_path)
    crops = card_views(faces["D07"], 1, embedder.crop_size, np.random.default_rng(0))
    assert namer.name(crops)[0].card == "D07"

    class OtherModel(type(embedder)):
        model_id = "another-model"

    with pytest.raises(DeckProfileError, match="enrolled with model pixel-22x40"):
        load_deck_namer("builtin-test", base_namer=OtherModel(), decks_dir=tmp_path)


def test_the_models_own_unknown_vetoes_a_crop(builtin_profile, embedder, faces):
    class ModelLike(type(embedder)):
        """An embedder with the Namer's ``run``: its unknown class is sure the first crop is no card."""

        labels = list(CODES) + ["unknown"]

        def run(self, crops):
            probs = np.zeros((len(crops), len(self.labels)), np.float32)
            probs[:, -1] = [0.9] + [0.01] * (len(crops) - 1)
            return probs, self.embed(crops)

    crops = [card_views(faces[c], 1, embedder.crop_size, np.random.default_rng(0))[0] for c in ("T09", "H02")]
    vetoing = PrototypeNamer(builtin_profile, ModelLike())
    assert [n.card for n in vetoing.name(crops)] == [None, "H02"]
    trusting = PrototypeNamer(builtin_profile, ModelLike(), unknown_veto=None)
    assert [n.card for n in trusting.name(crops)] == ["T09", "H02"]


def test_whitening_separates_cards_that_camera_noise_blurs_together():
    """Two cards apart along one axis, views spread far more along another: whitening tells them apart."""
    from vision.enroll import CardViews, apply_transform, card_scores, prototypes_of, whitening

    rng = np.random.default_rng(0)
    dim = 8
    centre = np.zeros(dim)
    centre[2] = 1.0

    def sample(code_offset: float, n: int) -> np.ndarray:
        rows = np.tile(centre, (n, 1))
        rows[:, 1] += code_offset
        shake = rng.normal(0, 0.8, n)  # what light and blur do: a large shift along one shared direction
        rows[:, 0] += shake
        rows[:, 1] += 0.3 * shake
        rows[:, 3:] += rng.normal(0, 0.02, (n, dim - 3))
        return rows

    cards = [CardViews(code, sample(off, 40), np.zeros(40, bool)) for code, off in (("T01", -0.1), ("T02", 0.1))]
    tests = np.concatenate([sample(-0.1, 200), sample(0.1, 200)])
    truth = np.array([0] * 200 + [1] * 200)

    def accuracy(transform) -> float:
        seen = [CardViews(c.code, apply_transform(c.embeddings, transform), c.turned) for c in cards]
        prototypes, labels = prototypes_of(seen, "mean")
        scores, _ = card_scores(apply_transform(tests, transform), prototypes, labels)
        return float((scores.argmax(1) == truth).mean())

    transform = whitening(cards)
    assert transform is not None and transform.shape == (dim, dim)
    assert accuracy(transform) > accuracy(None) + 0.1


def test_whitening_needs_two_views_of_a_card_side():
    from vision.enroll import CardViews, whitening

    one_each = [CardViews("T01", np.eye(4, dtype=np.float32)[:2], np.array([False, True]))]
    assert whitening(one_each) is None


def _clustered_cards(spread: float, n: int = 8, cards=("T01", "T02", "T03", "HK"), seed: int = 0):
    """Views of a few cards around their own directions, ``spread`` apart from them."""
    from vision.enroll import CardViews, normalise

    rng = np.random.default_rng(seed)
    dim = 16
    centres = normalise(rng.normal(size=(len(cards), dim)))
    return [CardViews(code, normalise(centres[k] + rng.normal(0, spread, (n, dim))), np.zeros(n, bool))
            for k, code in enumerate(cards)]


def test_a_view_is_named_as_if_left_out_of_its_own_prototype():
    from vision.enroll import card_scores, held_out_probabilities, prototypes_of

    cards = _clustered_cards(0.3)
    prototypes, labels = prototypes_of(cards, "mean")
    probs, own = held_out_probabilities(cards, prototypes, labels, "mean")
    assert probs.shape == (32, 4) and np.allclose(probs.sum(1), 1) and list(own[:8]) == [0] * 8
    inside, _ = card_scores(np.concatenate([c.embeddings for c in cards]), prototypes, labels)
    at_inside = np.exp((inside - inside.max(1, keepdims=True)) / 0.05)
    at_inside /= at_inside.sum(1, keepdims=True)
    rows = np.arange(32)
    assert (probs[rows, own] < at_inside[rows, own] + 1e-6).all()  # its own card is never surer without it
    assert (probs[rows, own] < at_inside[rows, own] - 1e-4).mean() > 0.5


def test_a_deck_fits_its_own_temperature_softer_for_views_that_stray_and_none_from_too_few_views():
    from vision.enroll import MIN_CALIBRATION_VIEWS, deck_temperature, held_out_probabilities, prototypes_of
    from vision.calibration import scaled

    def fitted(spread, n=8):
        cards = _clustered_cards(spread, n)
        prototypes, labels = prototypes_of(cards, "mean")
        return deck_temperature(cards, prototypes, labels, "mean"), cards, prototypes, labels

    tight, *_ = fitted(0.15)
    loose, cards, prototypes, labels = fitted(0.6)
    assert tight is not None and loose is not None and loose > tight  # the more views stray, the softer
    probs, own = held_out_probabilities(cards, prototypes, labels, "mean")
    rows = np.arange(len(own))

    def nll(t):
        return -np.log(scaled(probs, t / 0.05)[rows, own]).mean()

    assert nll(loose) <= min(nll(0.05), nll(loose * 0.8), nll(loose * 1.25)) + 1e-9  # the best of its neighbours
    assert fitted(0.3, n=MIN_CALIBRATION_VIEWS - 1)[0] is None


def test_the_deck_namer_uses_the_profiles_temperature(builtin_profile, embedder, faces):
    from dataclasses import replace

    crops = card_views(faces["T07"], 1, embedder.crop_size, np.random.default_rng(0), MILD)
    default = PrototypeNamer(builtin_profile, embedder)
    assert builtin_profile.temperature is None and default.temperature == 0.05  # two views a card: not fitted
    soft = PrototypeNamer(replace(builtin_profile, temperature=0.2), embedder)
    assert soft.temperature == 0.2
    a, b = default.name(crops)[0], soft.name(crops)[0]
    assert a.card == b.card == "T07" and b.confidence < a.confidence
    assert PrototypeNamer(replace(builtin_profile, temperature=0.2), embedder, temperature=0.05).temperature == 0.05


class _ModelLike:
    """An embedder with the Namer's ``run``: the pixel embedding, and the model's unknown class at
    ``p_unknown`` per crop."""

    def __init__(self, embedder, p_unknown):
        self.embedder, self.p_unknown = embedder, list(p_unknown)
        self.labels = list(CODES) + ["unknown"]
        self.crop_size = embedder.crop_size
        self.model_id = embedder.model_id

    def embed(self, crops):
        return self.embedder.embed(crops)

    def run(self, crops):
        probs = np.zeros((len(crops), len(self.labels)), np.float32)
        probs[:, -1] = self.p_unknown[: len(crops)]
        return probs, self.embed(crops)


def test_the_deck_namer_gives_each_card_a_probability_and_leaves_the_models_unknown_to_no_card(
        builtin_profile, embedder, faces):
    from dataclasses import replace

    crops = [card_views(faces[c], 1, embedder.crop_size, np.random.default_rng(0), MILD)[0] for c in ("T09", "H02", "SK")]
    namer = PrototypeNamer(builtin_profile, _ModelLike(embedder, [0.9, 0.02, 0.0]))
    assert namer.labels[:-1] == tuple(CODES) and namer.labels[-1] == "unknown"
    probs, embeddings = namer.probabilities(crops)
    assert probs.shape == (3, 79) and embeddings.shape[0] == 3
    assert np.allclose(probs.sum(1), 1, atol=1e-5)
    assert probs[0, -1] == 1.0  # vetoed by the model: no card face
    assert probs[1, -1] == pytest.approx(0.02) and namer.labels[int(probs[1].argmax())] == "H02"
    assert [n.card for n in namer.name(crops)] == [None, "H02", "SK"]
    # a crop under the profile's similarity threshold: no card for a still image...
    strict = replace(builtin_profile, threshold=1.01)
    still = PrototypeNamer(strict, _ModelLike(embedder, [0.0] * 3))
    assert [n.card for n in still.name(crops)] == [None, None, None]
    assert np.all(still.probabilities(crops)[0][:, -1] == 1.0)
    # ... at the table, a card face the profile is unsure of (the model's own unknown class refuses what
    # is no card face): named, never surely enough to be committed without a question
    table = PrototypeNamer(strict, _ModelLike(embedder, [0.9, 0.0, 0.0]), at_table=True)
    probs, _ = table.probabilities(crops)
    assert probs[0, -1] == 1.0 and np.allclose(probs[1:, -1], UNSURE_FACE)
    assert [table.labels[int(p[:-1].argmax())] for p in probs[1:]] == ["H02", "SK"]
    named = table.name(crops)
    assert named[0].card is None and named[1].card == "H02" and named[1].confidence <= 1 - UNSURE_FACE
    at_table = PrototypeNamer(builtin_profile, _ModelLike(embedder, [0.0] * 3), at_table=True)
    off_table = PrototypeNamer(builtin_profile, _ModelLike(embedder, [0.0] * 3))
    assert np.allclose(at_table.probabilities(crops)[0], off_table.probabilities(crops)[0])  # above it: the same
    assert PrototypeNamer(strict, embedder, at_table=True).name(crops)[1].card is None  # no veto: the threshold stays
    assert namer.probabilities([])[0].shape == (0, 79)


def test_the_tracker_weighs_the_deck_namers_probabilities_with_the_cards_still_possible(builtin_profile, embedder, faces):
    from vision.possible import PossibleCards
    from vision.votes import namer_votes

    crop = card_views(faces["H02"], 1, embedder.crop_size, np.random.default_rng(0), MILD)[0]
    namer = PrototypeNamer(builtin_profile, _ModelLike(embedder, [0.0]))
    probs, _ = namer.probabilities([crop])
    runner_up = namer.labels[int(np.argsort(probs[0])[-2])]
    (free,) = namer_votes(namer, [crop], None, 0.2)
    assert free.top[0][0] == "H02" and len(free.top) == 3 and free.embedding is not None
    (ruled,) = namer_votes(namer, [crop], PossibleCards.of([c for c in CODES if c != "H02"]), 0.0)
    assert ruled.top[0][0] == runner_up  # the rules take the H02 away: its next reading, not an even spread

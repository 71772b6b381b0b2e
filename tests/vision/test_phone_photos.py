"""Phone photos of a card, synthesised (vision.phone_photos): the card is where its corners say, whole
in the frame, large, either pose; the crops and the locator's scenes made from them."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from vision import phone_photos, synth
from vision.training.data import Recipe, make_sample, training_decks
from vision.training.locator_data import make_locator_scene
from vision.warp import warp_card

FACES = training_decks(None)["builtin"]


def _face(code: str) -> synth.Face:
    return next(f for f in FACES if f.code == code)


def _agreement(a: np.ndarray, b: np.ndarray) -> float:
    """Correlation of two crops' grey levels (1: the same picture, up to light)."""
    ga, gb = (cv2.cvtColor(x, cv2.COLOR_BGR2GRAY).astype(np.float32).ravel() for x in (a, b))
    ga, gb = ga - ga.mean(), gb - gb.mean()
    return float(ga @ gb / (np.linalg.norm(ga) * np.linalg.norm(gb) + 1e-6))


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(phone_photos.POSES), st.booleans())
@example(91, "lying", False)  # a card laid near the frame's edge, turned: once drawn partly outside
def test_the_card_lies_whole_in_the_frame_where_its_corners_say(seed, pose, portrait):
    size = (504, 378)[::-1] if portrait else (504, 378)
    face = _face("H07")
    photo = phone_photos.make_phone_photo(np.random.default_rng(seed), face, size, pose=pose)
    h, w = photo.image.shape[:2]
    assert (w, h) == size and photo.pose == pose and photo.image.dtype == np.uint8
    q = photo.quad
    assert q.shape == (4, 2) and np.all(q >= -1) and np.all(q[:, 0] <= w + 1) and np.all(q[:, 1] <= h + 1)
    share = abs(cv2.contourArea(q)) / (w * h)
    assert 0.04 < share < 0.8  # a photo of a card: the card is large in it
    truth = cv2.resize(face.bgr, (112, 192), interpolation=cv2.INTER_AREA)
    crop = warp_card(photo.image, q, (112, 192))
    assert max(_agreement(crop, truth), _agreement(crop[::-1, ::-1], truth)) > 0.5


def test_a_photo_is_the_same_for_the_same_seed_and_an_unknown_pose_is_refused():
    a = phone_photos.make_phone_photo(np.random.default_rng(5), _face("T21"), (400, 300))
    b = phone_photos.make_phone_photo(np.random.default_rng(5), _face("T21"), (400, 300))
    assert np.array_equal(a.image, b.image) and np.array_equal(a.quad, b.quad)
    with pytest.raises(ValueError, match="pose"):
        phone_photos.make_phone_photo(np.random.default_rng(5), _face("T21"), (400, 300), pose="flying")


def test_the_light_is_warm_on_average():
    rng = np.random.default_rng(0)
    grey = np.full((60, 80, 3), 128, np.uint8)
    lit = np.stack([phone_photos._warm_light(rng, grey).reshape(-1, 3).mean(0) for _ in range(40)])
    assert (lit[:, 2] >= lit[:, 0]).all() and lit[:, 2].mean() > lit[:, 0].mean() + 5  # red over blue


def test_the_namers_crops_and_the_locators_scenes_draw_phone_photos():
    recipe = Recipe(None, None, (112, 192), unknown_rate=0.0, phone_rate=1.0)
    crop, label, origin = make_sample(np.random.default_rng(3), recipe, {"builtin": FACES})
    assert crop.shape == (192, 112, 3) and origin == "builtin" and label >= 0
    scene = make_locator_scene(np.random.default_rng(4), [FACES], phone_rate=1.0)
    assert scene.image.shape[1] == 320 and scene.image.shape[0] == 180  # a camera frame's proportions
    assert scene.quads.shape == (1, 4, 2) and scene.visible.tolist() == [1.0]
    assert np.all(scene.quads[..., 0] <= 321) and np.all(scene.quads[..., 1] <= 181)


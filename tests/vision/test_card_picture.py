"""A card's picture (``vision.card_picture``): the same picture alike under another light and either way
up, two pictures apart, and any crop a picture of unit length or none."""

import cv2
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from vision import card_picture as picture_module
from vision.card_picture import PICTURE_DIM, as_float32, card_picture, card_pictures, picture_similarity, turned


def painting(seed: int, h: int = 192, w: int = 112) -> np.ndarray:
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (8, 5, 3)).astype(np.uint8)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def test_the_same_picture_under_another_light_looks_alike_and_another_picture_does_not():
    a, b = painting(1), painting(2)
    dim = np.clip(a.astype(np.float32) * 0.6 + 15, 0, 255).astype(np.uint8)
    blurred = cv2.GaussianBlur(a, (7, 7), 2.0)
    pictures = card_pictures([a, dim, blurred, b])
    sim = pictures @ pictures.T
    assert np.allclose(np.linalg.norm(pictures, axis=1), 1.0, atol=1e-5)
    assert sim[0, 1] > 0.9 and sim[0, 2] > 0.95
    assert sim[0, 3] < 0.5


def test_a_crop_turned_half_a_turn_is_the_same_picture_either_way_up():
    a, b = painting(3), painting(4)
    kept = card_pictures([a, b])
    upside_down = card_pictures([a[::-1, ::-1]])
    assert np.allclose(turned(card_pictures([a])), upside_down, atol=1e-5)
    sim = picture_similarity(upside_down, kept)
    assert sim[0, 0] == pytest.approx(1.0, abs=1e-5) and sim[0, 1] < 0.5


def test_a_landscape_crop_is_read_portrait_and_grey_crops_have_pictures():
    a = painting(5)
    for landscape in (np.rot90(a), np.rot90(a, -1)):  # either quarter turn: the same picture, either way up
        assert picture_similarity(card_picture(landscape)[None], card_picture(a)[None])[0, 0] == pytest.approx(1.0, abs=1e-5)
    grey = cv2.cvtColor(a, cv2.COLOR_BGR2GRAY)
    assert np.linalg.norm(card_picture(grey)) == pytest.approx(1.0, abs=1e-5)


def test_what_is_no_image_has_no_picture():
    for crop in (None, np.zeros((0, 0, 3), np.uint8), np.full((96, 56, 3), 128, np.uint8), np.zeros((5,), np.uint8),
                 np.zeros((40, 30, 4), np.uint8)):
        assert not card_picture(crop).any()
    assert card_pictures([]).shape == (0, PICTURE_DIM)


@settings(max_examples=60, deadline=None)
@given(arrays(np.uint8, st.tuples(st.integers(1, 60), st.integers(1, 60), st.just(3))))
def test_any_crop_gives_a_finite_picture_of_unit_length_or_none(crop):
    v = card_picture(crop)
    assert v.shape == (PICTURE_DIM,) and np.all(np.isfinite(v))
    n = float(np.linalg.norm(v))
    assert n == pytest.approx(1.0, abs=1e-4) or n == 0.0


def test_every_half_precision_value_is_read_as_numpy_reads_it():
    halves = np.arange(2 ** 16, dtype=np.uint16).view(np.float16).reshape(256, 256)  # every one, infinities and NaNs too
    with np.errstate(all="ignore"):
        expected = halves.astype(np.float32)
    got = as_float32(halves)
    assert got.dtype == np.float32 and got.shape == expected.shape
    assert np.array_equal(got, expected, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(expected))  # -0 stays -0
    for other in (np.zeros((0, PICTURE_DIM), np.float16), halves[0], np.ones((2, 3), np.float64)):
        assert np.array_equal(as_float32(other), np.asarray(other, np.float32)) and as_float32(other).dtype == np.float32


def test_an_opencv_that_reads_half_precision_otherwise_is_not_used(monkeypatch):
    halves = np.array([[-0.0, 1.5, -3.0, 0.0]], np.float16)
    monkeypatch.delattr(cv2, "convertFp16", raising=False)
    monkeypatch.setattr(cv2, "multiply", lambda v, s, dtype=None: np.asarray(v, np.float32) + np.float32(0))  # -0 read as +0
    picture_module.half_reader.cache_clear()
    try:
        assert picture_module.half_reader() is None
        got = as_float32(halves)
        assert np.array_equal(got, halves.astype(np.float32)) and np.signbit(got[0, 0])
    finally:
        picture_module.half_reader.cache_clear()


def test_kept_pictures_in_half_precision_compare_as_in_full():
    rng = np.random.default_rng(3)
    kept = rng.normal(size=(40, PICTURE_DIM)).astype(np.float16)
    crops = rng.normal(size=(3, PICTURE_DIM)).astype(np.float32)
    assert np.array_equal(picture_similarity(crops, kept), picture_similarity(crops, kept.astype(np.float32)))


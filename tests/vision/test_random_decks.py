"""Decks drawn at random (``vision.random_decks``): every card drawn in any design, saying what it is."""

import dataclasses

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import CODES
from vision import random_decks
from vision.random_decks import DeckStyle, RandomDecks, draw_style, render_face


def styles(n, seed=0):
    rng = np.random.default_rng(seed)
    return [draw_style(rng) for _ in range(n)]


def plain(**changes) -> DeckStyle:
    """A white, frameless French design: the pips alone, nothing else printed."""
    base = dict(paper=(255, 255, 255), inks=((0, 0, 0),) * 6, frame="none", frame_colour=(0, 0, 0),
                font=cv2.FONT_HERSHEY_SIMPLEX, italic=False, index_place="pictures", index_scale=0.14,
                index_box=False, index_mark=False, courts=("V", "C", "D", "R"), roman_trumps=False,
                suits="french", lang="en", name_label=False, picture="plain", pip_picture=False,
                pip_scale=0.8, seed=1)
    base.update(changes)
    return DeckStyle(**base)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(CODES))
def test_any_design_draws_any_card_the_same_every_time(seed, code):
    style = draw_style(np.random.default_rng(seed))
    face = render_face(style, code)
    w, h = random_decks.FACE_SIZE
    assert face.shape == (h, w, 3) and face.dtype == np.uint8
    assert np.array_equal(face, render_face(style, code))
    assert face.std() > 5  # something is printed on the paper


@pytest.mark.parametrize("suits", random_decks.SUIT_SETS)
@pytest.mark.parametrize("rank", range(2, 11))
def test_a_pip_card_shows_as_many_marks_as_its_rank(suits, rank):
    for suit in "SHDC":
        face = render_face(plain(suits=suits), f"{suit}{rank:02d}")
        ink = (face.max(2) < 128).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(ink)
        big = [s for s in stats[1:] if s[cv2.CC_STAT_AREA] > 20]  # a mark, not an anti-aliasing speck
        assert len(big) == rank, (suits, suit, rank)


def test_the_index_says_the_card():
    style = plain(index_place="corners")
    corner = (slice(0, 36), slice(0, 50))  # the index, above and left of the picture
    c05, c06 = (render_face(style, c)[corner] for c in ("C05", "C06"))
    assert np.abs(c05.astype(int) - c06.astype(int)).mean() > 3  # 5 and 6 printed differently
    arabic = render_face(style, "T13")[corner]
    assert np.abs(arabic.astype(int) - render_face(dataclasses.replace(style, roman_trumps=True), "T13")[corner]).mean() > 3
    # the index is printed again, turned, at the bottom right
    face = render_face(style, "HK")
    assert np.array_equal(face[corner], cv2.flip(face, -1)[corner])


def test_designs_differ_and_so_do_their_cards():
    a, b = styles(2, seed=5)
    assert not np.array_equal(render_face(a, "T21"), render_face(b, "T21"))
    faces = [render_face(a, c) for c in ("T20", "T21", "HK", "EX")]
    for i in range(len(faces)):
        for j in range(i + 1, len(faces)):
            assert not np.array_equal(faces[i], faces[j])


def test_drawn_designs_cover_the_choices():
    drawn = styles(300, seed=2)
    assert {s.index_place for s in drawn} == set(random_decks.INDEX_PLACES)
    assert {s.suits for s in drawn} == set(random_decks.SUIT_SETS)
    assert {s.courts for s in drawn} == set(random_decks.COURT_LETTERS)
    assert {s.roman_trumps for s in drawn} == {True, False} and {s.name_label for s in drawn} == {True, False}


def test_the_pool_keeps_a_bounded_number_of_faces():
    pool = RandomDecks(styles=8, seed=3, keep=5)
    rng = np.random.default_rng(0)
    faces = [pool.face(rng, code) for code in ("C01", "T21", "EX", "SK", "H07", "D10", "T01")]
    assert len(pool._faces) == 5
    for face, code in zip(faces, ("C01", "T21", "EX", "SK", "H07", "D10", "T01")):
        assert face.code == code and face.alpha.shape == face.bgr.shape[:2] and face.alpha.max() == 255


def test_training_crops_take_random_designs_at_the_recipe_rate():
    from vision.training import data

    x, y, src = data.make_batch((4, 12, data.Recipe(None, None, (56, 96), unknown_rate=0.0, random_deck_rate=1.0)))
    assert src == ["random"] * 12 and all(0 <= v < len(CODES) for v in y)
    _, _, src = data.make_batch((4, 40, data.Recipe(None, None, (56, 96), unknown_rate=0.0, random_deck_rate=0.25)))
    assert 3 <= src.count("random") <= 20
    _, _, src = data.make_batch((4, 12, data.Recipe(None, None, (56, 96), unknown_rate=0.0)))
    assert "random" not in src

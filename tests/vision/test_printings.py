"""Other printings of a deck's art (``vision.printings``): each changes the ink and paper, keeps the art."""

import numpy as np
import pytest

from vision import printings, synth


@pytest.fixture(scope="module")
def face():
    return synth.builtin_faces()[16].bgr  # a trump: colour, lines and a big number


@pytest.mark.parametrize("kind", printings.KINDS)
def test_each_printing_changes_the_ink_and_keeps_the_art(face, kind):
    rng = np.random.default_rng(3)
    out, got = printings.reprint(rng, face, kind)
    assert got == kind and out.shape == face.shape and out.dtype == np.uint8
    assert np.abs(out.astype(int) - face.astype(int)).mean() > 2  # another printing
    a = face.astype(np.float32).mean(2).ravel()
    b = out.astype(np.float32).mean(2).ravel()
    assert np.corrcoef(a, b)[0, 1] > 0.5  # the same picture


@pytest.mark.parametrize("kind", ["greyscale", "photocopy"])
def test_black_ink_prints_have_no_colour(face, kind):
    for seed in range(5):
        out, _ = printings.reprint(np.random.default_rng(seed), face, kind)
        o = out.astype(np.float64)
        if kind == "photocopy":
            assert np.array_equal(out[..., 0], out[..., 1]) and np.array_equal(out[..., 1], out[..., 2])
        else:  # one grey, tinted by the paper: each channel a fixed fraction of the red one
            lit = o[..., 2] > 60
            for c in (0, 1):
                ratio = o[..., c][lit] / o[..., 2][lit]
                assert ratio.std() < 0.02 and ratio.mean() >= 0.84


def test_same_seed_same_printing_and_a_clear_error(face):
    a, ka = printings.reprint(np.random.default_rng(9), face)
    b, kb = printings.reprint(np.random.default_rng(9), face)
    assert ka == kb and np.array_equal(a, b)
    with pytest.raises(ValueError, match="unknown printing"):
        printings.reprint(np.random.default_rng(1), face, "letterpress")


def test_training_crops_take_other_printings_at_the_recipe_rate(monkeypatch):
    from vision.training import data

    calls = []
    real = printings.reprint
    monkeypatch.setattr(data.printings, "reprint", lambda rng, bgr, kind=None: calls.append(1) or real(rng, bgr, kind))
    data.make_batch((4, 12, data.Recipe(None, None, (56, 96), unknown_rate=0.0, printing_rate=1.0)))
    assert len(calls) == 12  # every card crop
    calls.clear()
    data.make_batch((4, 40, data.Recipe(None, None, (56, 96), unknown_rate=0.0, printing_rate=0.25)))
    assert 3 <= len(calls) <= 20
    calls.clear()
    data.make_batch((4, 12, data.Recipe(None, None, (56, 96), unknown_rate=0.0)))
    assert calls == []

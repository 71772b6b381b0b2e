"""Training decks of the card classifier: leaving decks out (``build_models --exclude``)."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.cards import CODES
from vision.training import build_models
from vision.training.data import (
    HELD_OUT_DECKS, Recipe, deck_names, make_batch, namer_batches, parse_exclude, real_table_recipe,
    trained_deck_folders, training_decks,
)


def write_deck(folder: Path, colour: int) -> None:
    """A deck folder of 78 tiny one-colour card images named by code."""
    folder.mkdir(parents=True)
    image = np.full((34, 20, 3), colour, np.uint8)
    for code in CODES:
        cv2.imwrite(str(folder / f"{code}.png"), image)


@pytest.fixture(scope="module")
def decks(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("decks")
    write_deck(root / "alpha", 60)
    write_deck(root / "beta", 200)
    (root / "notes").mkdir()  # not a deck: no T01 image
    return root


def test_parse_exclude():
    assert parse_exclude(None) == ()
    assert parse_exclude("") == ()
    assert parse_exclude(" a, b,,a ") == ("a", "b")


def test_build_models_option(decks, tmp_path):
    # the default leaves out the held-out decks that are there, and only those
    assert build_models.parse_args(["--decks", str(decks)]).exclude == ()
    assert build_models.parse_args(["--decks", str(tmp_path / "none")]).exclude == ()
    held = tmp_path / "with-held-out"
    write_deck(held / "alpha", 60)
    write_deck(held / HELD_OUT_DECKS[1], 90)
    assert build_models.parse_args(["--decks", str(held)]).exclude == (HELD_OUT_DECKS[1],)
    assert [f.name for f in trained_deck_folders(held)] == ["alpha"]
    assert build_models.parse_args(["--decks", str(held), "--exclude", ""]).exclude == ()  # '' trains on every deck
    assert build_models.parse_args(["--exclude", "alpha,beta"]).exclude == ("alpha", "beta")


def test_build_models_device_option():
    # the steps run on the CPU unless a GPU is asked for; the option is passed through as torch names it
    assert build_models.parse_args([]).device == "cpu"
    assert build_models.parse_args(["--device", "cuda"]).device == "cuda"


def test_deck_names_leave_out(decks):
    assert deck_names(str(decks)) == ["builtin", "alpha", "beta"]
    assert deck_names(str(decks), ("alpha",)) == ["builtin", "beta"]
    assert deck_names(None) == ["builtin"]


@pytest.mark.parametrize("exclude", [("gamma",), ("beta", "Alpha"), ("notes",), ("builtin",)])
def test_unknown_name_is_an_error(decks, exclude):
    with pytest.raises(ValueError, match="cannot exclude") as err:
        deck_names(str(decks), exclude)
    assert "alpha, beta" in str(err.value)  # the message lists the decks there are


def test_excluded_deck_never_drawn(decks):
    assert list(training_decks(str(decks), ("alpha",))) == ["builtin", "beta"]
    assert list(training_decks(str(decks))) == ["builtin", "alpha", "beta"]  # cached per exclusion, not mixed up
    recipe = Recipe(str(decks), None, (56, 96), exclude=("alpha",))
    sources = set()
    for seed in range(3):
        _, _, src = make_batch((seed, 24, recipe))
        sources |= set(src)
    assert "alpha" not in sources
    assert "beta" in sources


def test_build_models_refuses_an_unknown_deck(decks, tmp_path, capsys):
    pytest.importorskip("torch")
    code = build_models.main(["--decks", str(decks), "--exclude", "gamma", "--out", str(tmp_path / "out"),
                              "--work", str(tmp_path / "work"), "--quick"])
    assert code == 2
    assert "cannot exclude gamma" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_namer_batches_are_the_batches_as_bgr_crops(decks):
    recipe = Recipe(str(decks), None, (28, 48), unknown_rate=0.3)
    batches = list(namer_batches(recipe, 10, 7, batch=4))
    assert len(batches) == 2  # whole batches only
    for k, (crops, labels, sources) in enumerate(batches):
        x, y, src = make_batch((7 + k, 4, recipe))
        assert [c.shape for c in crops] == [(48, 28, 3)] * 4
        assert all(c.flags.c_contiguous for c in crops)
        np.testing.assert_array_equal(np.stack(crops), x.transpose(0, 2, 3, 1)[..., ::-1])
        np.testing.assert_array_equal(labels, y)
        assert sources == src
    assert len(list(namer_batches(recipe, 0, 7, batch=4))) == 1  # at least one batch


def test_real_table_recipe(tmp_path):
    recipe = real_table_recipe(None, None, tmp_path / "missing.npz")
    assert (recipe.size, recipe.table_rate, recipe.unknown_rate) == ((112, 192), 1.0, 0.12)
    assert recipe.corner_errors is None and recipe.corner_error_rate == 0.0  # no file: no corner errors
    errors = tmp_path / "errors.npz"
    errors.write_bytes(b"")
    recipe = real_table_recipe(None, None, errors, unknown_rate=0.0, exclude=("alpha",))
    assert (recipe.corner_errors, recipe.corner_error_rate) == (str(errors), 0.6)
    assert (recipe.unknown_rate, recipe.exclude, recipe.negative_rate) == (0.0, ("alpha",), 0.5)

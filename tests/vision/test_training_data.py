"""Training decks of the card classifier: leaving decks out (``build_models --exclude``)."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.cards import CODES
from vision.training import build_models
from vision.training.data import (
    HELD_OUT_DECKS, Recipe, deck_names, make_batch, parse_exclude, trained_deck_folders, training_decks,
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

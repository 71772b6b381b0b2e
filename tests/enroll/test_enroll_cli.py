"""``tarotmate enroll NAME --from-dir DIR`` and ``tarotmate decks``."""

from __future__ import annotations

import json

import cv2
import pytest

from device.cli import main
from vision import enroll
from vision.builtin_deck import write_deck
from vision.deck_profiles import load_profile


# The pixel embedder tells a card from its half turn: one prototype per side.
ENROLL = ["enroll", "mine", "--strategy", "orientation", "--views", "2", "--from-dir"]


@pytest.fixture
def data_dir(tmp_path, monkeypatch, embedder):
    """User data in a temporary folder, and the pixel embedder standing in for the model."""
    monkeypatch.setenv("TAROTMATE_DATA", str(tmp_path / "data"))
    monkeypatch.setattr(enroll, "default_embedder", lambda: embedder)
    return tmp_path / "data"


@pytest.fixture(scope="module")
def deck_folder(tmp_path_factory):
    """The built-in deck written as a deck folder, less three cards, plus two stray files."""
    folder = tmp_path_factory.mktemp("deck")
    write_deck(folder)
    for code in ("T13", "EX", "CQ"):
        (folder / f"{code}.png").unlink()
    (folder / "SOURCE.md").write_text("where the scans come from")
    (folder / "back.png").write_bytes((folder / "T01.png").read_bytes())
    return folder


def test_enroll_from_a_folder_reports_missing_cards_and_stray_files(data_dir, deck_folder, capsys):
    assert main(ENROLL + [str(deck_folder)]) == 0
    out, err = capsys.readouterr()
    assert "deck mine: 75 of 78 cards enrolled (2 views each)" in out
    assert "missing (3): T13 EX CQ" in out
    assert "not card images, ignored (2): SOURCE.md back.png" in out
    assert f"saved {data_dir / 'decks' / 'mine.json'}" in out
    assert "75/75" in err and "enrolled 75 cards in" in err
    profile = load_profile("mine")
    assert len(profile.cards) == 75 and profile.missing == ("T13", "EX", "CQ")


def test_enroll_json_output(data_dir, deck_folder, capsys):
    assert main(ENROLL + [str(deck_folder), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["deck"] == "mine" and result["cards"] == 75 and result["views"] == 2
    assert result["missing"] == ["T13", "EX", "CQ"] and result["unknown_files"] == ["SOURCE.md", "back.png"]
    assert result["similar_pairs"] == [] and result["seconds"] > 0
    assert result["temperature"] is None  # two views a card: too few to fit the deck's own
    assert main(ENROLL + [str(deck_folder), "--json", "--force", "--views", "6"]) == 0
    fitted = json.loads(capsys.readouterr().out)["temperature"]
    assert 0.001 <= fitted <= 0.5 and load_profile("mine").temperature == pytest.approx(fitted, abs=1e-5)


def test_an_existing_deck_is_replaced_only_with_force(data_dir, deck_folder, capsys):
    args = ENROLL + [str(deck_folder)]
    assert main(args) == 0
    assert main(args) == 2
    assert "deck 'mine' already exists" in capsys.readouterr().err
    assert main(args + ["--force"]) == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["enroll", "bad name", "--from-dir", "."], "bad deck name"),
        (["enroll", "x", "--from-dir", "/nonexistent/folder"], "is not a folder"),
        (["enroll", "x", "--from-dir", "{empty}"], "no card image in"),
        (["enroll", "x", "--from-dir", ".", "--views", "0"], "--views must be at least 1"),
        (["enroll", "x", "--from-dir", ".", "--strategy", "median"], "unknown --strategy 'median'"),
        (["enroll", "x", "--camera", "{empty}", "--cards", "T01,ZZ"], "unknown card code 'ZZ'"),
        (["enroll", "x", "--camera", "{empty}", "--cards", "T01,t01"], "card T01 is given twice"),
        (["enroll", "x", "--camera", "{empty}"], "no images in"),
    ],
)
def test_bad_input_is_a_clear_error(data_dir, tmp_path, capsys, args, message):
    (tmp_path / "empty").mkdir()
    args = [a.replace("{empty}", str(tmp_path / "empty")) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("tarotmate enroll: error: ") and message in err and "Traceback" not in err


def test_an_unreadable_image_is_skipped_and_said(data_dir, tmp_path, capsys):
    folder = tmp_path / "few"
    write_deck(folder)
    for path in folder.iterdir():
        if path.stem not in ("T01", "T02", "HK"):
            path.unlink()
    (folder / "T02.png").write_bytes(b"not a png")
    assert main(["enroll", "few", "--from-dir", str(folder), "--views", "2", "--strategy", "orientation"]) == 0
    out, err = capsys.readouterr()
    assert "skipped: cannot read image" in err and "T02.png" in err
    assert "deck few: 2 of 78 cards enrolled" in out


def test_decks_lists_the_builtin_recognition_and_the_enrolled_decks(data_dir, deck_folder, capsys):
    assert main(ENROLL + [str(deck_folder)]) == 0
    capsys.readouterr()
    assert main(["decks"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("builtin") and "built-in" in lines[0]
    mine = next(line for line in lines if line.startswith("mine"))
    assert "enrolled" in mine and "75 cards, 2 views" in mine and str(data_dir / "decks" / "mine.json") in mine
    assert main(["decks", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows][:1] == ["builtin"]
    assert {"name": "mine", "kind": "enrolled", "cards": 75, "stale": False}.items() <= next(r for r in rows if r["name"] == "mine").items()


def test_decks_says_when_a_profile_was_enrolled_with_another_model(data_dir, deck_folder, monkeypatch, embedder, capsys):
    assert main(ENROLL + [str(deck_folder)]) == 0

    class Retrained(type(embedder)):
        model_id = "pixel-retrained"

    monkeypatch.setattr(enroll, "default_embedder", lambda: Retrained())
    capsys.readouterr()
    assert main(["decks"]) == 0
    mine = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("mine"))
    assert mine.endswith("[enrolled with another model: enrol it again]")


def test_enroll_says_whether_the_deck_prints_its_red_pips_in_red(data_dir, deck_folder, tmp_path, capsys):
    assert main(ENROLL + [str(deck_folder), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["red_pips"] is True
    grey = tmp_path / "grey"  # the same deck printed in black ink only
    grey.mkdir()
    for image in deck_folder.glob("*.png"):
        cv2.imwrite(str(grey / image.name), cv2.cvtColor(cv2.imread(str(image), cv2.IMREAD_GRAYSCALE), cv2.COLOR_GRAY2BGR))
    assert main(["enroll", "grey", "--strategy", "orientation", "--views", "2", "--from-dir", str(grey)]) == 0
    out = capsys.readouterr().out
    assert "pip cards are not printed in red ink" in out
    assert load_profile("grey").red_pips is False

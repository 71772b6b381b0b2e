"""``tarotmate classify``: the JSON contract, --whole, --deck, unreadable files."""

import json

import cv2
import numpy as np
import pytest

from device.cli import main
from vision.builtin_deck import render_card
from vision.namer import models_dir

from .scenes import place, table

pytestmark = pytest.mark.skipif(not (models_dir() / "cards.onnx").is_file(), reason="models/cards.onnx is absent")


@pytest.fixture()
def table_photo(tmp_path):
    canvas = table((40, 110, 30))
    place(canvas, "T21", (350, 330), 15)
    place(canvas, "D05", (850, 380), -30)
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), canvas)
    return path


def run_json(capsys, *argv):
    status = main(["classify", "--json", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, json.loads(out), err


def test_json_contract(capsys, table_photo):
    status, result, _ = run_json(capsys, table_photo)
    assert status == 0
    assert isinstance(result, list) and len(result) == 1
    entry = result[0]
    assert set(entry) == {"image", "cards", "ms"}
    assert entry["image"] == str(table_photo)
    assert isinstance(entry["ms"], float) and entry["ms"] > 0
    assert sorted(c["card"] for c in entry["cards"]) == ["D05", "T21"]
    for c in entry["cards"]:
        assert set(c) == {"card", "confidence", "corners"}
        assert 0 < c["confidence"] <= 1
        assert len(c["corners"]) == 4 and all(len(p) == 2 for p in c["corners"])


def test_whole_image_is_one_card(capsys, tmp_path):
    path = tmp_path / "close.jpg"
    cv2.imwrite(str(path), np.array(render_card("CQ")))
    status, result, _ = run_json(capsys, "--whole", path)
    assert status == 0
    (entry,) = result
    assert [c["card"] for c in entry["cards"]] == ["CQ"]
    h, w = 800, 440
    assert sorted(map(tuple, entry["cards"][0]["corners"])) == sorted([(0, 0), (w, 0), (w, h), (0, h)])


def test_unreadable_files_do_not_stop_the_others(capsys, tmp_path, table_photo):
    bad = tmp_path / "notes.jpg"
    bad.write_text("not an image")
    missing = tmp_path / "missing.png"
    status, result, err = run_json(capsys, bad, table_photo, missing)
    assert status == 1
    assert [e["image"] for e in result] == [str(bad), str(table_photo), str(missing)]
    assert result[0]["cards"] == [] and "error" in result[0]
    assert result[2]["cards"] == [] and "no such file" in result[2]["error"]
    assert len(result[1]["cards"]) == 2
    assert str(bad) in err and str(missing) in err


def test_plain_output(capsys, table_photo):
    assert main(["classify", str(table_photo)]) == 0
    out = capsys.readouterr().out
    assert "T21" in out and "D05" in out and "ms" in out


def test_unknown_deck(capsys, table_photo):
    assert main(["classify", "--deck", "no-such-deck", str(table_photo)]) == 2
    err = capsys.readouterr().err
    assert "no-such-deck" in err and "default" in err


# ---------------------------------------------------------------- unknown means unknown
GOLDEN = sorted((models_dir().parent / "tests" / "screens" / "golden" / "en").glob("*.png"))


def no_card_images(tmp_path) -> list:
    """Images with no card face: Tarotmate's own screens saved as JPEG (as they are and enlarged
    to 1280x640), a card back on a table, an empty table."""
    from vision import synth
    from vision.builtin_deck import render_back

    paths = []
    for g in GOLDEN[::4]:
        img = cv2.imread(str(g), cv2.IMREAD_COLOR)
        for name, im in ((g.stem, img), (g.stem + "_big", cv2.resize(img, (1280, 640), interpolation=cv2.INTER_NEAREST))):
            p = tmp_path / f"{name}.jpg"
            cv2.imwrite(str(p), im, [cv2.IMWRITE_JPEG_QUALITY, 90])
            paths.append(p)
    canvas = table((40, 110, 30))
    back = synth.face_from_image("unknown", np.array(render_back()))
    synth.paste(canvas, back, synth.card_quad(np.array([640, 360], np.float32), 250, 0.4, 1.8))
    cv2.imwrite(str(tmp_path / "back.png"), canvas)
    cv2.imwrite(str(tmp_path / "empty.png"), table((40, 110, 30), seed=3))
    return paths + [tmp_path / "back.png", tmp_path / "empty.png"]


def test_no_card_is_reported_where_there_is_none(capsys, tmp_path):
    assert GOLDEN, "the screens' golden images are missing"
    paths = no_card_images(tmp_path)
    status, result, _ = run_json(capsys, *paths)
    assert status == 0
    reported = {e["image"]: e["cards"] for e in result if e["cards"]}
    assert reported == {}


def test_whole_no_card_image_is_no_card(capsys, tmp_path):
    paths = no_card_images(tmp_path)
    status, result, _ = run_json(capsys, "--whole", *paths)
    assert status == 0
    assert {e["image"]: e["cards"] for e in result if e["cards"]} == {}


def test_still_image_bar_is_the_models_and_can_be_overridden():
    from vision.namer import Namer

    namer = Namer.load()
    assert namer.still_threshold >= namer.threshold  # one look at a still image needs more certainty
    assert Namer.load(threshold=0.5).still_threshold == 0.5  # an explicit threshold is used for both

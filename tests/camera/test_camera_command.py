"""``tarotmate camera check``: its JSON, its words in the screen's language, its exit status."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from device.cli import main
from tests.camera.fake_picamera2 import install
from vision import camera_scenes as cs
from vision import synth


@pytest.fixture(scope="module")
def pictures(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pictures")
    clean = synth.make_table_scene(np.random.default_rng(40), synth.builtin_faces(), size=(1280, 720), severity=0,
                                   layout="scattered")
    cv2.imwrite(str(folder / "clean.png"), clean.image)
    bad = cs.trouble_scene(77, {"dim": True, "blur": True})
    cv2.imwrite(str(folder / "dim-blur.png"), bad.image)
    cv2.imwrite(str(folder / "cut.png"), cs.cut_scene(5006).image)  # a card cut by the picture's top edge
    return folder


def run(capsys, *args):
    code = main(["camera", "check", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_good_picture_exits_0_and_a_bad_one_1_with_its_advice(pictures, capsys):
    code, out, _ = run(capsys, pictures / "clean.png", "--json")
    assert code == 0
    (item,) = json.loads(out)
    assert set(item) == {"image", "light", "sharpness", "glare", "card_height_px", "advice"}
    assert item["advice"] == [{"code": "ok", "text": "The picture is good."}]
    assert 0 <= item["light"]["level"] <= 1 and item["card_height_px"] > 110
    code, out, _ = run(capsys, pictures / "dim-blur.png", "--json", "--lang", "fr")
    assert code == 1
    (item,) = json.loads(out)
    assert [a["code"] for a in item["advice"]][:2] == ["dim", "blur"]
    assert item["advice"][0]["text"].startswith("Trop sombre")


def test_edges_says_when_a_card_is_cut_by_the_picture(pictures, capsys):
    code, out, _ = run(capsys, pictures / "cut.png", pictures / "clean.png", "--json", "--edges")
    cut, clean = json.loads(out)
    assert code == 1
    assert cut["cut"] == ["top"] and "cut" in [a["code"] for a in cut["advice"]]
    assert next(a["text"] for a in cut["advice"] if a["code"] == "cut").startswith("Cards cut off")
    assert clean["cut"] == [] and clean["advice"] == [{"code": "ok", "text": "The picture is good."}]
    code, out, _ = run(capsys, pictures / "cut.png", "--json")  # not asked: as before
    (item,) = json.loads(out)
    assert "cut" not in item and "cut" not in [a["code"] for a in item["advice"]]


def test_text_output_and_an_unreadable_image(pictures, capsys, tmp_path):
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a picture")
    code, out, err = run(capsys, pictures / "clean.png", broken)
    assert code == 1
    assert "clean.png: The picture is good." in out and "sharpness" in out
    assert "tarotmate camera check: error: " in err and "broken.jpg" in err
    code, out, err = run(capsys, tmp_path / "missing.png", "--json")
    assert code == 2 and json.loads(out)[0]["error"] == "no such file"


def test_the_language_of_the_screens_is_the_default(pictures, capsys, tmp_path):
    config = tmp_path / "tarotmate.toml"
    config.write_text('[ui]\nlanguage = "es"\n')
    code, out, _ = run(capsys, pictures / "dim-blur.png", "--json", "--config", config)
    assert json.loads(out)[0]["advice"][0]["text"].startswith("Demasiado oscuro")


def test_a_pi_camera_lists_its_controls(capsys, monkeypatch, tmp_path):
    install(monkeypatch)
    monkeypatch.setattr("vision.camera_controls.time.sleep", lambda s: None)
    monkeypatch.setenv("TAROTMATE_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "none.toml").write_text("")
    code, out, err = run(capsys, "picamera2", "--json", "--frames", "1")
    (item,) = json.loads(out)
    assert item["image"] == "picamera2#0"
    assert item["controls"]["AfMode"] == "Manual" and item["controls"]["AeEnable"] is False
    assert item["controls"]["ExposureTime"] == 10_000
    assert [a["code"] for a in item["advice"]] == ["no_card"]  # the fake camera sees a grey frame
    assert code == 1 and "camera controls: " in err

"""``tarotmate screens``: every example screen as PNG, real size and x4."""

from __future__ import annotations

from PIL import Image

from device.cli import main
from device.screens.examples import examples


def test_one_language_into_the_folder(tmp_path, capsys):
    assert main(["screens", "--out", str(tmp_path), "--lang", "fr"]) == 0
    names = set(examples("fr"))
    assert {p.name for p in tmp_path.iterdir()} == {f"{n}.png" for n in names} | {f"{n}@4x.png" for n in names}
    assert Image.open(tmp_path / "target.png").size == (128, 64)
    assert Image.open(tmp_path / "target@4x.png").size == (512, 256)
    assert capsys.readouterr().out == ""  # progress goes to stderr


def test_all_languages_in_subfolders(tmp_path):
    assert main(["screens", "--out", str(tmp_path), "--scale", "2", "--style", "tarot"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["en", "es", "fr"]
    assert Image.open(tmp_path / "es" / "trick@2x.png").size == (256, 128)


def test_bad_scale_is_a_clean_error(tmp_path, capsys):
    assert main(["screens", "--out", str(tmp_path), "--scale", "0"]) == 2
    assert "tarotmate screens: error: --scale" in capsys.readouterr().err

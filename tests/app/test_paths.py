"""Places the commands write to, refused up front with the path and why."""

import os

import pytest

from device.paths import ensure_file_folder, ensure_folder
from engine.errors import TarotmateError


def test_a_folder_is_created_and_usable(tmp_path):
    assert ensure_folder(tmp_path / "a" / "b", "--out") == tmp_path / "a" / "b"
    assert (tmp_path / "a" / "b").is_dir()
    assert ensure_file_folder(tmp_path / "c" / "log.db", "store.path") == tmp_path / "c" / "log.db"
    assert (tmp_path / "c").is_dir() and not (tmp_path / "c" / "log.db").exists()


def test_under_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(TarotmateError, match=r"^--out .*/f/out: cannot create it: .*/f is a file, not a folder$"):
        ensure_folder(tmp_path / "f" / "out", "--out")
    with pytest.raises(TarotmateError, match=r"^--out .*/f: is a file, not a folder$"):
        ensure_folder(tmp_path / "f", "--out")
    with pytest.raises(TarotmateError, match=r"^store.path .*/f/x/log.db: cannot create it: .*/f is a file"):
        ensure_file_folder(tmp_path / "f" / "x" / "log.db", "store.path")
    with pytest.raises(TarotmateError, match=r"^store.path .*: is a folder, not a file$"):
        ensure_file_folder(tmp_path, "store.path")


def test_a_place_that_cannot_be_created():
    with pytest.raises(TarotmateError, match=r"^--out /proc/tarotmate/out: cannot create it: "):
        ensure_folder("/proc/tarotmate/out", "--out")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_folder(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(TarotmateError, match="cannot write there: permission denied"):
            ensure_folder(ro, "--out")
        with pytest.raises(TarotmateError, match="cannot create it: permission denied"):
            ensure_folder(ro / "sub", "--out")
    finally:
        ro.chmod(0o700)

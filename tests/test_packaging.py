"""Packaging metadata that pip and setuptools read at install time."""

import tomllib

from tests.conftest import ROOT


def test_license_is_an_spdx_string_with_a_setuptools_that_reads_it():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["license"] == "GPL-3.0-or-later"  # not the deprecated table form
    # setuptools reads an SPDX string from 77 on; older ones fail or warn
    assert "setuptools>=77" in meta["build-system"]["requires"]

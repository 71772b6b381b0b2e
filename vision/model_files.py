"""Where the shipped models live: the repository's ``models/`` folder."""

from __future__ import annotations

from pathlib import Path


def models_dir() -> Path:
    """The repository's ``models/`` folder (card model, locator, shipped deck profiles)."""
    return Path(__file__).resolve().parents[1] / "models"

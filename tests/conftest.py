import os
from pathlib import Path

import pytest

os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` beside the project; tests that need it skip without it."""
    if not (SHARED / "rules").is_dir():
        pytest.skip("needs ../shared (rules and deck scans), which is absent on this machine")
    return SHARED


@pytest.fixture(scope="session")
def decks_dir(shared_dir: Path) -> Path:
    decks = shared_dir / "decks"
    if not decks.is_dir():
        pytest.skip("needs ../shared/decks (real deck scans), which is absent")
    return decks

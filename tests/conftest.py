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


@pytest.fixture(scope="session")
def trained_decks(decks_dir: Path) -> list[Path]:
    """The deck scans the models are trained on (``decks_dir`` without the held-out decks,
    which only the benchmarks use: a test expecting a trained deck's accuracy skips them)."""
    from vision.training.data import trained_deck_folders

    folders = trained_deck_folders(decks_dir)
    if not folders:
        pytest.skip(f"no trained-on deck scan in {decks_dir}")
    return folders


@pytest.fixture
def card_model_copy(tmp_path: Path):
    """A copy of the shipped card model in ``tmp_path`` (cards.onnx, labels.txt), and
    ``vision.training.set_threshold``'s ``main`` to edit its metadata; skips without onnx."""
    import shutil

    pytest.importorskip("onnx", reason="writing a model's metadata needs onnx (the training extra)")
    from vision.namer import models_dir
    from vision.training.set_threshold import main as set_threshold

    for name in ("cards.onnx", "labels.txt"):
        shutil.copy(models_dir() / name, tmp_path / name)
    return tmp_path, set_threshold

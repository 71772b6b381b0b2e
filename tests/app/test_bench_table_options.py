"""The table benchmark measures a candidate model and other tracker settings on the demo's own path."""

import importlib.util
from pathlib import Path

import pytest

from device.demo.table import Recognition
from vision.simulator import Idle, TableSimulator
from vision.tracker_settings import TrackerSettings

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_table", ROOT / "benchmarks" / "bench_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_settings_are_typed_by_their_field_and_bad_ones_are_one_line_errors():
    bench = _bench()
    assert bench.tracker_overrides(["commit_bar=0.99", "votes=4"]) == {"commit_bar": 0.99, "votes": 4}
    for bad in (["commit_bar"], ["no_such=1"], ["votes=2.5"]):
        with pytest.raises(SystemExit) as err:
            bench.tracker_overrides(bad)
        assert "--set" in str(err.value) and "\n" not in str(err.value)
    over = bench.demo_overrides("models", {"commit_bar": 0.9})
    assert over["models"] == Path("models") and over["tracker"] == TrackerSettings(commit_bar=0.9)
    assert bench.demo_overrides(None, {}) == {}


def test_the_demo_tracker_uses_the_settings_and_the_model_folder_given():
    messages = []
    recognition = Recognition("model", None, messages.append, models=ROOT / "models", tracker=TrackerSettings(commit_bar=0.5))
    tracker, _ = recognition.tracker_and_frames(TableSimulator([Idle(2)], seed=1))
    assert tracker.settings.commit_bar == 0.5 and recognition.namer.model_path == ROOT / "models" / "cards.onnx"
    default, _ = Recognition("model", None, messages.append).tracker_and_frames(TableSimulator([Idle(2)], seed=1))
    assert default.settings == TrackerSettings()

"""The learning curve's points (``benchmarks/learning_curve.py``): figures of a benchmark run
summarised per checkpoint, trained-on and held-out decks apart, and drawn."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def curve(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("learning_curve", ROOT / "benchmarks" / "learning_curve.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "CURVE", tmp_path / "curve.json")
    return mod


FIGURES = {
    "held_out_decks": ["tarock-adler-cego-pysolfc"],
    "table": [
        {"deck": "builtin", "named": 70.0, "oracle": 90.0, "false": 1.0},
        {"deck": "rws-1909-ia-scan", "named": 50.0, "oracle": 80.0, "false": 3.0},
        {"deck": "tarock-adler-cego-pysolfc", "named": 30.0, "oracle": 40.0, "false": 2.0},
    ],
    "easy": [{"deck": "builtin", "named": 99.0}, {"deck": "tarock-adler-cego-pysolfc", "named": 91.0}],
    "unknown_rejected": 99.333,
}


def test_points_keep_trained_and_held_out_decks_apart(curve):
    s = curve.summarise(FIGURES)
    assert s["table_named_trained"] == 60.0 and s["table_oracle_trained"] == 85.0
    assert s["table_named_held_out"] == 30.0 and s["table_oracle_held_out"] == 40.0
    assert s["table_false"] == 2.0 and s["easy_named"] == 95.0 and s["unknown_rejected"] == 99.33


def test_add_replaces_a_label_and_orders_by_hours_then_draws(curve, tmp_path, capsys):
    fig = tmp_path / "f.json"
    fig.write_text(json.dumps(FIGURES))
    curve.main(["add", str(fig), "--label", "later", "--hours", "5", "--crops", "300000"])
    curve.main(["add", str(fig), "--label", "first", "--hours", "3", "--crops", "160000"])
    curve.main(["add", str(fig), "--label", "later", "--hours", "6", "--crops", "400000"])
    points = json.loads((tmp_path / "curve.json").read_text())
    assert [(p["label"], p["hours"]) for p in points] == [("first", 3.0), ("later", 6.0)]
    capsys.readouterr()
    curve.main(["draw", "--out", str(tmp_path / "curve.png")])
    out = capsys.readouterr().out
    assert "| later | 6.00 | 400,000 | 60.0 / 30.0 | 85.0 / 40.0 |" in out
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

"""A card model carries the tracker's bars measured for it (``tracker`` in its metadata): the tracker
uses them on top of its defaults, a measurement's settings change them, and bad bars are refused."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, strategies as st

from engine.errors import TarotmateError
from vision.namer import Namer, tracker_bars_of
from vision.simulator import Idle, Play
from vision.tracker import Tracker, TrackerSettings, settings_for
from vision.tracker_settings import changed, setting_types, with_bars

from .test_false_quads import ScoredNamer, track


class BarredNamer(ScoredNamer):
    """A namer whose card model says which bars the tracker must use with it."""

    def __init__(self, scores, bars):
        super().__init__(scores)
        self.tracker_bars = bars


def _h05_close_behind(code, quad, view):  # H01 first at 0.6, five times H05's score: clear by default
    return {"H01": 0.6, "H05": 0.12} if code == "H01" else {code: 0.97}


SCRIPT = [Idle(3), Play(1, "H01"), Play(2, "D03"), Idle(8)]


def test_the_models_bars_decide_what_is_asked():
    events, _ = track(SCRIPT, scores=_h05_close_behind, settings=None, namer=BarredNamer(_h05_close_behind, {}))
    assert events == [("appeared", "H01"), ("appeared", "D03")]
    strict = BarredNamer(_h05_close_behind, {"commit_bar": 0.7})  # this model's 0.6 is not sure enough
    events, _ = track(SCRIPT, scores=_h05_close_behind, settings=None, namer=strict)
    assert events == [("uncertain", None), ("appeared", "D03")]


def test_settings_given_to_the_tracker_win_over_the_models_bars():
    strict = BarredNamer(_h05_close_behind, {"commit_bar": 0.7})
    events, _ = track(SCRIPT, scores=_h05_close_behind, settings=TrackerSettings(), namer=strict)
    assert events == [("appeared", "H01"), ("appeared", "D03")]


def test_a_namer_without_bars_gets_the_defaults():
    assert settings_for(object()) == TrackerSettings()
    assert settings_for(BarredNamer(None, {})) == TrackerSettings()
    assert settings_for(BarredNamer(None, {"min_margin": 10, "votes": 4})) == TrackerSettings(min_margin=10.0, votes=4)
    assert Tracker(namer=BarredNamer(None, {"commit_bar": 0.9})).settings.commit_bar == 0.9


def test_bad_bars_in_a_models_metadata_are_refused_in_one_line(tmp_path):
    model = tmp_path / "cards.onnx"
    for bars in ({"no_such": 1}, {"votes": 2.5}, {"min_margin": "ten"}, {"outline": 1}, {"min_margin": float("nan")}, [1]):
        with pytest.raises(TarotmateError) as err:
            tracker_bars_of({"tracker": bars}, model)
        assert str(model) in str(err.value) and "\n" not in str(err.value)
    assert tracker_bars_of({}, model) == {}
    assert tracker_bars_of({"tracker": {"min_margin": 10}}, model) == {"min_margin": 10}


values = {bool: st.booleans(), int: st.integers(0, 100), float: st.floats(0, 100, allow_nan=False)}


@st.composite
def some_bars(draw):
    names = draw(st.sets(st.sampled_from(sorted(setting_types())), max_size=6))
    return {n: draw(values[setting_types()[n]]) for n in names}


@given(some_bars())
def test_with_bars_changes_exactly_the_settings_named(bars):
    out = with_bars(TrackerSettings(), bars)
    for name, kind in setting_types().items():
        expected = bars.get(name, getattr(TrackerSettings(), name))
        assert getattr(out, name) == expected and type(getattr(out, name)) is kind
    assert with_bars(out, {}) == out and replace(out) == out
    # what differs from the defaults, put back on them, is the same settings (a trace's record)
    assert with_bars(TrackerSettings(), changed(out)) == out
    assert changed(out) == {n: v for n, v in bars.items() if v != getattr(TrackerSettings(), n)}


def test_the_demo_layers_a_measurements_settings_on_the_models_bars():
    from device.demo.table import Recognition
    from vision.simulator import TableSimulator

    recognition = Recognition("truth", None, lambda _: None, tracker={"votes": 5})
    recognition.kind, recognition.namer = "model", BarredNamer(None, {"min_margin": 10.0})
    tracker, _ = recognition.tracker_and_frames(TableSimulator([Idle(2)], seed=1))
    assert tracker.settings == TrackerSettings(min_margin=10.0, votes=5)


def test_bars_written_into_a_model_are_read_back(card_model_copy):
    tmp_path, set_threshold = card_model_copy
    model = str(tmp_path / "cards.onnx")
    shipped = Namer.load(tmp_path).tracker_bars  # the bars the shipped model carries, kept
    assert set_threshold([model, "--tracker", "min_margin=10", "--tracker", "votes=4", "--source", "a test"]) == 0
    assert Namer.load(tmp_path).tracker_bars == {**shipped, "min_margin": 10.0, "votes": 4}
    assert set_threshold([model, "--tracker", "votes="]) == 0  # removed
    assert Namer.load(tmp_path).tracker_bars == {**shipped, "min_margin": 10.0}
    assert set_threshold([model, "--tracker", "no_such=1"]) == 2
    assert set_threshold([model, "--tracker", "votes=2.5"]) == 2
    assert Namer.load(tmp_path).tracker_bars == {**shipped, "min_margin": 10.0}


@given(some_bars())
def test_settings_written_as_text_are_read_back_as_they_were(bars):
    from vision.tracker_settings import parse_settings

    text = [f"{name}={'on' if value is True else 'off' if value is False else repr(value)}" for name, value in bars.items()]
    assert parse_settings(text) == bars
    assert parse_settings([f"{name}=" for name in bars], removable=True) == dict.fromkeys(bars)
    for bad in ([f"{name}=" for name in bars][:1] or ["x=1"], ["no_such=1"], ["votes"]):  # an empty value reads as none
        with pytest.raises(ValueError):
            parse_settings(bad)

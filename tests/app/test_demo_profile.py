"""The demo and the table benchmark name the cards with an enrolled deck's profile, as
``tarotmate run --deck NAME`` does: the way out the table offers for a deck the card model
cannot read, played on the simulated table before a club relies on it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from device.cli import EXIT_ERROR, main
from device.demo.table import DemoSettings, Recognition
from engine.cards import CODES
from engine.errors import TarotmateError
from vision.builtin_deck import render_card
from vision.enroll import TABLE_BARS, PrototypeNamer
from vision.simulator import Idle, TableSimulator
from vision.tracker import settings_for
from vision.tracker_settings import TrackerSettings, with_bars

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def enrolled(tmp_path_factory):
    """The built-in deck enrolled under the name ``club`` with the shipped card model (two views a card)."""
    from vision.deck_profiles import save_profile
    from vision.enroll import enroll_faces
    from vision.namer import Namer

    folder = tmp_path_factory.mktemp("data")
    profile = enroll_faces("club", {code: render_card(code) for code in CODES}, Namer.load(), views=2, seed=1)
    save_profile(profile, folder / "decks")
    return folder


def test_the_demo_names_the_cards_with_the_profile_asked_for(enrolled, monkeypatch):
    monkeypatch.setenv("TAROTMATE_DATA", str(enrolled))
    said = []
    recognition = Recognition("auto", None, said.append, profile="club")
    assert isinstance(recognition.namer, PrototypeNamer) and recognition.namer.deck == "club"
    assert recognition.kind == "model" and recognition.description == "deck profile club"
    assert any("deck profile club" in line for line in said)
    tracker, _ = recognition.tracker_and_frames(TableSimulator([Idle(2)], seed=1))
    assert recognition.namer.at_table  # named as the tracker weighs it (vision.enroll.PrototypeNamer)
    # a deck named by its prototypes commits only at its own bars (its temperature is fitted on clean views)
    assert tracker.settings == settings_for(recognition.namer) == with_bars(TrackerSettings(), TABLE_BARS)
    assert tracker.settings.min_confidence == TABLE_BARS["min_confidence"] > TrackerSettings().min_confidence
    assert tracker.settings.lost_single == 0 < TrackerSettings().lost_single  # one view of a lost card: asked
    named = recognition.namer.name([render_card("HK"), render_card("T21")])
    assert [n.card for n in named] == ["HK", "T21"]


def test_a_profile_that_is_not_there_is_an_error_never_the_ground_truth(enrolled, monkeypatch):
    monkeypatch.setenv("TAROTMATE_DATA", str(enrolled))
    for kind in ("auto", "model"):
        with pytest.raises(TarotmateError, match="unknown deck 'nope'.*club"):
            Recognition(kind, None, lambda line: None, profile="nope")
    with pytest.raises(TarotmateError, match="recogniser truth"):
        Recognition("truth", None, lambda line: None, profile="club")
    assert DemoSettings().profile is None  # the card model's own classes by default


def test_the_command_line_says_so_in_one_line(enrolled, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("TAROTMATE_DATA", str(enrolled))
    assert main(["demo", "--profile", "nope", "--display", "none", "--out", str(tmp_path / "out")]) == EXIT_ERROR
    assert not (tmp_path / "out").exists()  # refused before anything was dealt or written
    assert main(["demo", "--profile", "club", "--recogniser", "truth", "--display", "none",
                 "--out", str(tmp_path / "out")]) == EXIT_ERROR
    assert not (tmp_path / "out").exists()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert [line for line in err.splitlines() if "error" in line] == [
        "tarotmate demo: error: unknown deck 'nope'; available decks: default, club",
        "tarotmate demo: error: --profile names the cards with the card model: not with --recogniser truth"]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_table", ROOT / "benchmarks" / "bench_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_benchmark_plays_a_sequence_named_by_the_profile(monkeypatch, tmp_path, capsys):
    import device.demo.table as table
    from device.demo.player import VisionStats

    bench = _bench()
    seen = {}

    def fake_run_demo(settings, report):
        seen["settings"] = settings
        return {"stats": VisionStats()}

    monkeypatch.setattr(table, "run_demo", fake_run_demo)
    run = bench.play_sequence(3, 4, "hard", 10, True, deck=str(tmp_path / "art"), profile="art")
    assert seen["settings"].profile == "art" and seen["settings"].deck == str(tmp_path / "art")
    assert run["profile"] == "art"
    assert bench.demo_overrides(None, None, profile="art") == {"profile": "art"}
    assert bench.who_names(None, "art") == "the enrolled deck profile art"
    bench.play(2, 4, "hard", True, True, profile="art")
    assert seen["settings"].profile == "art" and seen["settings"].seed == 2
    deal = {"prompts": 3, "wrong": 0, "by_hand": 0, "right": 75, "confirmed": 3}
    bench.report_sequences([{**run, "per_deal": [deal, {**deal, "by_hand": 4}], "presses": [9, 20]}])
    out = capsys.readouterr().out
    assert "named by its profile art" in out and "by hand per deal:   0 4" in out


def test_the_table_benchmark_refuses_a_profile_it_cannot_find(enrolled, monkeypatch):
    monkeypatch.setenv("TAROTMATE_DATA", str(enrolled))
    monkeypatch.setattr("sys.argv", ["bench_table.py", "--sequence", "2", "--profile", "nope"])
    with pytest.raises(SystemExit) as err:
        _bench().main()
    assert "--profile nope" in str(err.value) and "club" in str(err.value)


def test_the_devices_tracker_names_an_enrolled_deck_as_the_demo_does(enrolled, monkeypatch):
    from device.config import CameraConfig, Config, GameConfig
    from device.hardware.from_config import open_tracker

    monkeypatch.setenv("TAROTMATE_DATA", str(enrolled))
    tracker = open_tracker(Config(game=GameConfig(kind="french-tarot", players=4),
                                  camera=CameraConfig(source="simulator", deck="club")))
    assert isinstance(tracker.namer, PrototypeNamer) and tracker.namer.at_table
    assert tracker.settings.min_confidence == TABLE_BARS["min_confidence"]
    assert not tracker.deck_unread()  # an enrolled deck's prototypes are never judged by the card model's gauge


def test_the_table_learns_an_enrolled_deck_too_by_its_views_keypoints_alone(enrolled, monkeypatch, tmp_path):
    from types import SimpleNamespace

    from device.app.deck_learning import attach
    from vision.deck_memory import MemoryNamer

    monkeypatch.setenv("TAROTMATE_DATA", str(enrolled))
    recognition = Recognition("auto", None, lambda line: None, profile="club")
    profile = recognition.namer
    controller = SimpleNamespace(session=SimpleNamespace(on_deal_scored=[]))
    namer = attach(controller, profile, tmp_path / "deals.sqlite")
    assert isinstance(namer, MemoryNamer) and namer.base is profile and not namer.fuses
    assert namer.memory.model_id == profile.embedder.model_id  # the card model's embeddings, as a model table's
    assert controller.learner.memory is namer.memory and controller.session.on_deal_scored
    recognition.namer = namer
    tracker, _ = recognition.tracker_and_frames(TableSimulator([Idle(2)], seed=1))
    # the profile's own bars, and never judged by the card model's gauge
    assert tracker.settings == with_bars(TrackerSettings(), TABLE_BARS) and not tracker.deck_unread()
    assert not tracker._gauged()
    probs, views = namer.run([render_card("HK"), render_card("T21")])
    assert [namer.labels[int(j)] for j in probs.argmax(1)] == ["HK", "T21"] and len(views[0]) > 128

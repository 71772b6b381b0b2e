"""The table benchmark measures a candidate model and other tracker settings on the demo's own path."""

import importlib.util
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from device.demo.table import Recognition
from vision.simulator import Idle, TableSimulator
from vision.tracker import settings_for
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
    assert bench.tracker_overrides(["outline=false"]) == {"outline": False}
    assert bench.tracker_overrides(["outline=on"]) == {"outline": True}
    for bad in (["commit_bar"], ["no_such=1"], ["votes=2.5"], ["outline=maybe"]):
        with pytest.raises(SystemExit) as err:
            bench.tracker_overrides(bad)
        assert "--set" in str(err.value) and "\n" not in str(err.value)
    over = bench.demo_overrides("models", {"commit_bar": 0.9})
    assert over["models"] == Path("models") and over["tracker"] == {"commit_bar": 0.9}  # over the model's own
    assert bench.demo_overrides(None, {}) == {}


def test_the_demo_tracker_uses_the_settings_and_the_model_folder_given():
    messages = []
    recognition = Recognition("model", None, messages.append, models=ROOT / "models", tracker=TrackerSettings(commit_bar=0.5))
    tracker, _ = recognition.tracker_and_frames(TableSimulator([Idle(2)], seed=1))
    assert tracker.settings.commit_bar == 0.5 and recognition.namer.model_path == ROOT / "models" / "cards.onnx"
    shipped = Recognition("model", None, messages.append)
    default, _ = shipped.tracker_and_frames(TableSimulator([Idle(2)], seed=1))
    assert default.settings == settings_for(shipped.namer)  # the defaults with the shipped model's own bars
    changed, _ = Recognition("model", None, messages.append, tracker={"votes": 5}).tracker_and_frames(
        TableSimulator([Idle(2)], seed=1))
    assert changed.settings == replace(default.settings, votes=5)


def _table_bars():
    spec = importlib.util.spec_from_file_location("table_bars", ROOT / "benchmarks" / "table_bars.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_bar_replayed_on_a_trace_turns_weak_commits_into_questions(tmp_path):
    def view(track, card, p, truth):
        return {"what": "vote", "frame": 1, "track": track, "card": card, "top": [[card, p], ["H01", 0.01]], "truth": truth}

    scene = {"prompts": 1, "votes": [
        view(1, "D03", 0.92, "D02"), view(1, "D03", 0.94, "D02"),  # a confident misread
        {"what": "verdict", "frame": 2, "track": 1, "verdict": "card", "card": "D03", "reverify": False},
        view(2, "T21", 0.999, "T21"), view(2, "T21", 0.998, "T21"),  # a sure card
        {"what": "verdict", "frame": 3, "track": 2, "verdict": "card", "card": "T21", "reverify": False},
        view(3, "S05", 0.7, "S05"),
        {"what": "verdict", "frame": 4, "track": 3, "verdict": "uncertain", "card": None, "reverify": False},
    ]}
    bars = _table_bars()
    assert [c[:2] for c in bars.committed_cards(scene)] == [("D03", "D02"), ("T21", "T21")]
    result = bars.replay([scene], (0.0, 0.95))
    assert result[0.0] == {"right": 1, "wrong": 1, "asked": 0, "asked_wrong_card": 0}
    assert result[0.95] == {"right": 1, "wrong": 0, "asked": 1, "asked_wrong_card": 1}
    folder = tmp_path / "trace"
    folder.mkdir()
    (folder / "1-4p-hard-help.jsonl").write_text(__import__("json").dumps(scene) + "\n", encoding="utf-8")
    assert bars.main([str(folder), "--bars", "0", "0.95"]) == 0
    assert bars.main([str(folder), "--none"]) == 1  # no deals played without the help: said, not a traceback


def test_a_sequence_can_learn_its_deck_on_a_deck_of_scans_and_says_what_it_learned(monkeypatch, tmp_path, capsys):
    import numpy as np

    import device.demo.table as table
    from device.demo.player import VisionStats
    from vision.deck_memory import DeckMemory, memory_path_beside

    bench = _bench()
    seen = {}

    def fake_run_demo(settings, report):
        seen["settings"] = settings
        if settings.learn_deck:  # what the table would have learned: two views
            with DeckMemory(memory_path_beside(settings.out / table.DB_NAME), "sha256:x", 4) as memory:
                for k, card in enumerate(("H07", "T21")):
                    memory.learn(card, np.eye(4, dtype=np.float32)[k], "answer", f"ref{k}")
        return {"stats": VisionStats()}

    monkeypatch.setattr(table, "run_demo", fake_run_demo)
    run = bench.play_sequence(3, 4, "hard", 10, True, learn=True, deck=str(tmp_path / "my-deck"))
    assert seen["settings"].learn_deck and seen["settings"].deck == str(tmp_path / "my-deck")
    assert seen["settings"].deals == 10 and seen["settings"].conditions == "hard"
    assert run["learned"] == 2 and run["deck"].endswith("my-deck")
    plain = bench.play_sequence(3, 4, "easy", 10, True, learn=False)
    assert not seen["settings"].learn_deck and seen["settings"].deck is None and plain["learned"] is None
    shipped = bench.play_sequence(3, 4, "easy", 10, True)  # no choice: what the demo and the device do
    assert seen["settings"].learn_deck and shipped["learned"] == 2
    bench.report_sequences([run])
    out = capsys.readouterr().out
    assert "deck my-deck" in out and "2 views learned" in out


def test_the_verdict_replayed_with_other_settings_and_what_the_rules_after_it_changed_kept(tmp_path, capsys):
    def view(track, card, p, truth, weight=1.0):
        return {"what": "vote", "frame": 1, "track": track, "card": card, "top": [[card, p], ["H01", 0.02]],
                "truth": truth, "weight": weight}

    def decided(track, verdict, card):
        return {"what": "verdict", "frame": 2, "track": track, "verdict": verdict, "card": card, "reverify": False}

    scene = {"prompts": 0, "votes": [
        view(1, "D03", 0.7, "D02"), view(1, "D03", 0.72, "D02"), decided(1, "card", "D03"),  # a weak misread
        view(2, "T21", 0.99, "T21"), view(2, "T21", 0.98, "T21"), decided(2, "card", "T21"),  # a sure card
        view(3, "S05", 0.95, "S05"), view(3, "S05", 0.95, "S05"), decided(3, "none", None),  # dropped by a twin rule
        view(4, "HK", 0.9, "HK", weight=0.0), view(4, "HK", 0.9, "HK", weight=0.0), decided(4, "card", "HK"),  # the pile
    ]}
    bars = _table_bars()
    assert [d[:3] for d in bars.decided_cards(scene)] == [("card", "D03", "D02"), ("card", "T21", "T21"), ("none", None, "S05")]
    same = bars.replay_settings([scene], TrackerSettings())
    assert same["played"] == same["replayed"] == {"right": 1, "wrong": 1, "asked": 0, "unnamed": 1}
    strict = bars.replay_settings([scene], TrackerSettings(min_confidence=0.8))
    assert strict["replayed"] == {"right": 1, "wrong": 0, "asked": 1, "unnamed": 1}  # the misread asked; S05 still dropped
    (tmp_path / "1-4p-hard-help.jsonl").write_text(__import__("json").dumps(scene) + "\n", encoding="utf-8")
    assert bars.main([str(tmp_path), "--set", "min_confidence=0.8"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.split()[:1] in (["played"], ["replayed"])]
    assert rows == [["played", "1.0", "1.00", "0.0", "1.0"], ["replayed", "1.0", "0.00", "1.0", "1.0"]]


def test_the_replayed_verdict_drops_the_views_the_tracker_dropped(tmp_path, capsys):
    def view(card, p, dropped=0):
        return {"what": "vote", "frame": 1, "track": 5, "card": card, "top": [[card, p], ["H01", 0.02]],
                "truth": "SK", "weight": 1.0, "dropped": dropped}

    # a first view taken while the card still slid (the wrong suit), cleared when its quad moved
    scene = {"prompts": 0, "votes": [view("CK", 0.95), view("SK", 0.9, dropped=1), view("SK", 0.92),
                                     {"what": "verdict", "frame": 2, "track": 5, "verdict": "card", "card": "SK",
                                      "reverify": False}]}
    bars = _table_bars()
    (decided,) = bars.decided_cards(scene)
    played, card, truth, votes, drops = decided
    assert (played, card, truth, drops) == ("card", "SK", "SK", [0, 1, 0])
    assert bars.replayed_verdict(votes, TrackerSettings(), drops) == ("card", "SK")
    assert bars.replayed_verdict(votes, TrackerSettings()) != ("card", "SK")  # with the slid view kept: split
    strict = bars.replay_settings([scene], TrackerSettings(min_confidence=0.95))
    assert strict["played"] == {"right": 1, "wrong": 0, "asked": 0, "unnamed": 0}
    assert strict["replayed"]["right"] == 0  # replayed, not kept as played: 0.91 is under the bar
    (tmp_path / "1-4p-hard-help.jsonl").write_text(__import__("json").dumps(scene) + "\n", encoding="utf-8")
    assert bars.main([str(tmp_path), "--played", "min_confidence=0.6", "--set", "min_confidence=0.95"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.split()[:1] in (["played"], ["replayed"])]
    assert rows[1][1] == "0.0"
    # the trace says what it was played with: no --played needed
    told = {**scene, "tracker": {"min_confidence": 0.6, "pip_above_margin": 60.0}}
    assert bars.played_settings([told]) == TrackerSettings(pip_above_margin=60.0)
    assert bars.played_settings([told, scene]) == TrackerSettings()  # scenes that disagree: the defaults
    (tmp_path / "1-4p-hard-help.jsonl").write_text(__import__("json").dumps(told) + "\n", encoding="utf-8")
    assert bars.main([str(tmp_path), "--set", "min_confidence=0.95"]) == 0
    assert "played with min_confidence=0.6, pip_above_margin=60.0, as the trace says" in capsys.readouterr().out


def test_the_causes_read_a_wrong_card_however_it_was_mended():
    spec = importlib.util.spec_from_file_location("table_causes", ROOT / "benchmarks" / "table_causes.py")
    causes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(causes)
    scene = {"scene": "trick 2", "expected": [["appeared", 10, "middle", "C05"], ["appeared", 40, "middle", "SQ"]],
             "events": [], "votes": [], "prompts": 0,
             "details": ["camera: {'op': 'play', 'seat': 2, 'card': 'C04'} for {'op': 'play', 'seat': 2, 'card': 'C05'}, fixed in place",
                         "camera: {'op': 'play', 'seat': 3, 'card': 'SQ'} for {'op': 'play', 'seat': 3, 'card': 'CQ'}"]}
    found = causes.scene_causes(scene)
    assert found[("wrong", "confident misread of a card the rules still allow")] == 1
    assert found[("wrong", "a card missed before it: the next card taken for the missed card's seat's")] == 1


def test_the_causes_tell_an_audit_question_about_a_card_from_one_about_no_card():
    spec = importlib.util.spec_from_file_location("table_causes", ROOT / "benchmarks" / "table_causes.py")
    causes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(causes)
    asked = [{"type": "uncertain", "frame": 50, "candidates": [["C05", 0.6]]},
             {"type": "uncertain", "frame": 90, "candidates": [["SQ", 0.4]]}]
    scene = {"scene": "trick 2", "expected": [["appeared", 40, "middle", "C05"]], "events": asked, "prompts": 3,
             "details": [], "votes": [
                 {"what": "audit", "frame": 50, "track": 7, "asked": True, "truth": "C05", "off": 4.0},
                 {"what": "audit", "frame": 90, "track": 8, "asked": True, "truth": "C05", "off": 3.0},  # asked again
                 {"what": "audit", "frame": 90, "track": 9, "asked": False, "truth": "C05", "off": 80.0}]}
    found = causes.scene_causes(scene)
    assert found[("prompt", "card laid unseen, asked once the table settled (audit)")] == 1
    assert found[("prompt", "a change of the table asked, no new card there (audit)")] == 1
    assert found[("prompt", "card never named, asked when the trick was swept")] == 1  # the third question


def test_a_candidate_folder_brings_its_card_locator_when_it_has_one(tmp_path):
    from device.demo.table import locator_in
    from vision.locator import CardLocator
    from vision.model_files import models_dir

    assert locator_in(None) is None  # the shipped card finder
    assert locator_in(tmp_path) is None  # a folder with a card model only: the shipped card finder too
    shipped = models_dir() / "locator.onnx"
    if not shipped.is_file():
        pytest.skip("no shipped locator.onnx to copy")
    (tmp_path / "locator.onnx").write_bytes(shipped.read_bytes())
    found = locator_in(tmp_path)
    assert isinstance(found, CardLocator)
    frame = np.zeros((360, 640, 3), np.uint8)
    assert isinstance(found(frame), list)  # a card finder: frame -> quads


def test_the_causes_tell_a_question_asked_for_a_card_skipped_from_one_at_the_sweep():
    spec = importlib.util.spec_from_file_location("table_causes", ROOT / "benchmarks" / "table_causes.py")
    causes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(causes)
    scene = {"scene": "trick 3", "expected": [["appeared", 40, "middle", "C05"]], "events": [], "votes": [],
             "prompts": 3, "asked": ["skipped", "missing", "skipped"], "details": []}
    found = causes.scene_causes(scene)
    assert found[("prompt", "a card on a later player's side: the card of the player to play asked first")] == 2
    assert found[("prompt", "card never named, asked when the trick was swept")] == 1


def test_the_causes_count_the_trick_cards_on_nobodys_side():
    spec = importlib.util.spec_from_file_location("table_causes", ROOT / "benchmarks" / "table_causes.py")
    causes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(causes)
    quad = [[0, 0], [10, 0], [10, 16], [0, 16]]
    events = [{"type": "appeared", "zone": "middle", "corners": quad, "toward": 2},
              {"type": "uncertain", "zone": "middle", "corners": quad, "toward": None},
              {"type": "appeared", "zone": "middle", "corners": quad},  # an older trace: no side recorded
              {"type": "cleared", "zone": "middle", "corners": None, "toward": None},
              {"type": "appeared", "zone": "seat1", "corners": quad, "toward": None}]
    found = causes.trick_sides({"scene": "trick 4", "players": 5, "events": events})
    assert found[5, "cards"] == 3 and found[5, causes.NOBODY] == 2
    assert not causes.trick_sides({"scene": "the chien", "players": 5, "events": events})


def test_the_causes_measure_how_much_a_trick_card_lies_on_the_cards_before_it():
    spec = importlib.util.spec_from_file_location("table_causes", ROOT / "benchmarks" / "table_causes.py")
    causes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(causes)

    def card(x0, y0, w=40, h=60):
        return {"type": "appeared", "zone": "middle", "corners": [[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]]}

    events = [card(100, 100), card(120, 100), {"type": "uncertain", "zone": "middle", "corners": None},
              card(100, 100, 40, 60)]
    shares = causes.on_pile({"scene": "trick 2", "events": events})
    assert len(shares) == 2
    (union, one), (union2, one2) = shares
    assert abs(union - 0.5) < 0.05 and abs(one - 0.5) < 0.05  # half on the first
    assert union2 > 0.99 and one2 > 0.99  # wholly on the two, and wholly on the first
    assert causes.on_pile({"scene": "the chien (6 cards)", "events": events}) == []


def test_the_causes_count_the_namings_taken_for_the_card_below_showing():
    spec = importlib.util.spec_from_file_location("table_causes", ROOT / "benchmarks" / "table_causes.py")
    causes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(causes)
    votes = [{"what": "vote", "track": 3, "card": "D04", "truth": "C09"},
             {"what": "verdict", "track": 3, "verdict": "uncertain", "card": "D04", "truth": "C09", "from_under": "asked"},
             {"what": "verdict", "track": 4, "verdict": "none", "card": "SK", "truth": "SN", "from_under": "gave way"},
             {"what": "verdict", "track": 5, "verdict": "uncertain", "card": "D05", "truth": "D05", "from_under": "asked"},
             {"what": "verdict", "track": 6, "verdict": "card", "card": "H01", "truth": "H01", "from_under": None},
             {"what": "verdict", "track": 7, "verdict": "card", "card": "H02", "truth": "H02"}]  # an older trace
    assert causes.below_showing({"votes": votes}) == [("asked", False), ("gave way", False), ("asked", True)]


def test_the_causes_judge_sides_by_the_seats_spots_and_skip_unclear_quads_shown_to_be_none():
    spec = importlib.util.spec_from_file_location("table_causes", ROOT / "benchmarks" / "table_causes.py")
    causes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(causes)
    from vision.seat_spots import SeatSpots

    def at(x, y):
        return [[x - 5, y - 8], [x + 5, y - 8], [x + 5, y + 8], [x - 5, y + 8]]

    spots = SeatSpots(3)
    places = {1: (100, 130), 2: (130, 100), 3: (70, 100)}
    first = {"scene": "trick 1", "players": 3,
             "expected": [["appeared", 10 * s, "middle", f"T0{s}", s] for s in (1, 2, 3)],
             "events": [{"type": "appeared", "zone": "middle", "card": f"T0{s}", "corners": at(*places[s]),
                         "toward": 3 if s == 2 else None} for s in (1, 2, 3)]}
    found = causes.trick_sides(first, spots)
    assert found[3, causes.ASTRAY] == 1 and found[3, causes.NOBODY] == 2  # by the zones
    assert found[3, causes.SPOTS_ASTRAY] == 1  # the zones judge until every seat has laid a card
    second = {**first, "scene": "trick 2"}
    found = causes.trick_sides(second, spots)
    assert found[3, causes.SPOTS_ASTRAY] == 0 and found[3, causes.SPOTS_NOBODY] == 0
    # an unclear quad the next card showed to be no card is no question
    votes = [{"what": "vote", "frame": 45, "track": 1, "truth": "C05", "off": 60.0},
             {"what": "verdict", "frame": 50, "track": 1, "verdict": "uncertain"},
             {"what": "vote", "frame": 85, "track": 2, "truth": "SQ", "off": 2.0, "visible": 1.0},
             {"what": "verdict", "frame": 90, "track": 2, "verdict": "uncertain"}]
    scene = {"scene": "trick 2", "expected": [], "votes": votes, "prompts": 1, "asked": ["uncertain"], "details": [],
             "no_card": [50], "events": [{"type": "uncertain", "frame": 50, "candidates": [["C05", 0.3]]},
                                         {"type": "uncertain", "frame": 90, "candidates": [["SQ", 0.4]]}]}
    found = causes.scene_causes(scene)
    assert dict(found) == {("prompt", "real card, unclear (clear), best candidate right"): 1}
    found = causes.scene_causes({**scene, "no_card": [], "prompts": 2})
    assert found[("prompt", "false quad across cards already reported")] == 1


def test_the_causes_list_the_cards_reported_from_quads_deep_in_the_pile():
    from tests.benchmark_module import load_benchmark

    causes = load_benchmark("table_causes")
    verdict = {"what": "verdict", "verdict": "card", "reverify": False}
    scene = {"events": [{"type": "appeared", "frame": 94, "card": "C01"}, {"type": "appeared", "frame": 30, "card": "C02"}],
             "votes": [{**verdict, "frame": 94, "card": "C01", "truth": "C02", "confidence": 0.857, "pile": 0.996},
                       {**verdict, "frame": 30, "card": "C02", "truth": "C02", "confidence": 0.92, "pile": 0.2},
                       {**verdict, "frame": 50, "card": "CK", "truth": "CK", "confidence": 0.8, "pile": 0.97}]}
    # the last one brought no event (a card found again where it lay)
    assert causes.deep_reports(scene) == [(0.857, False, 0.996)]
    assert causes.deep_reports(scene, deep=0.1) == [(0.857, False, 0.996), (0.92, True, 0.2)]


def test_the_report_gives_the_share_of_cards_on_time(capsys):
    bench = _bench()
    summary = dict.fromkeys(bench.FIELDS, 0)
    runs = [{"conditions": "hard", "helped": True, "summary": summary, "latencies": [3, 4, 8, 9], "sweeps": [2]},
            {"conditions": "hard", "helped": True, "summary": summary, "latencies": [5, 34, 4, 6], "sweeps": [3]}]
    bench.report(runs)
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("hard"))
    assert "75.0%" in row.split()  # 6 of the 8 cards within 8 frames
    assert "[MISSED] a card at rest gets its event within 8 frames" in out
    assert bench.on_time([]) == "-"


def test_the_changes_sort_new_quads_by_the_card_under_them_and_count_them_under_the_bars(tmp_path, capsys):
    from tests.benchmark_module import load_benchmark

    changes = load_benchmark("table_changes")

    def verdict(frame, verdict, card, truth, changed, still=None, reverify=False):
        v = {"what": "verdict", "frame": frame, "verdict": verdict, "card": card, "truth": truth,
             "changed": changed, "pile": 0.9, "reverify": reverify}
        return v if still is None else {**v, "changed_still": still}

    scene = {"scene": "the chien (6 cards)", "votes": [
        verdict(10, "card", "S10", "S10", 0.9, 0.8),       # a card just laid
        verdict(20, "card", "SJ", "SJ", 0.5, 0.2),         # one more: the larger share counts
        verdict(30, "none", "S09", "SJ", 0.1, 0.0),        # a quad across the SJ, already reported
        verdict(31, "card", "SJ", "SJ", 0.0, 0.0),         # the SJ named again: a second view, not judged
        verdict(40, "card", "H10", "H10", 0.7, reverify=True),  # a reported card named again: not judged
        {"what": "vote", "frame": 41, "card": "H10"},
    ]}
    sorted_ = [(kind, round(share, 3)) for kind, share, _ in changes.verdicts([json.dumps(scene)])]
    assert sorted_ == [("laid", 0.9), ("laid", 0.5), ("there", 0.1)]
    (tmp_path / "1.jsonl").write_text(json.dumps(scene) + "\n")
    assert changes.main([str(tmp_path), "--bars", "0.25", "0.6"]) == 0
    out = capsys.readouterr().out
    assert "card just laid              2" in out and "across cards there          1" in out
    assert changes.main([str(tmp_path / "none")]) == 2  # no traces: one line, no traceback

    def patchy(frame, verdict, card, truth, conf, pile, still):
        return {"what": "verdict", "frame": frame, "verdict": verdict, "card": card, "truth": truth, "confidence": conf,
                "patchy": True, "reverify": False, "pile": pile, "changed": 0.0, "changed_still": still}

    dark = {"scene": "trick 2", "votes": [
        verdict(5, "card", "C02", "C02", 0.8, 0.8),
        patchy(60, "none", "S01", "S01", 0.78, 0.33, 0.71),  # found now and then, laid beside the pile: judged a card
        patchy(70, "none", "T07", "C02", 0.73, 0.9, 0.0),    # on the C02 reported, nothing changed: a glimpse
        patchy(80, "none", "T08", "C02", 0.91, 0.9, 0.0),    # named surely: not what patchy_laid judges
    ]}
    found = [(kind, pile, still) for kind, pile, still, _ in changes.patchy_namings([json.dumps(dark)], 0.85)]
    assert found == [("laid", 0.33, 0.71), ("there", 0.9, 0.0)]
    (tmp_path / "1.jsonl").write_text(json.dumps(dark) + "\n")
    assert changes.main([str(tmp_path), "--patchy", "0.5", "--list", "0"]) == 0
    out = capsys.readouterr().out
    assert "card just laid              1 namings, 1 so" in out and "across cards there          1 namings, 0 so" in out
    assert changes.main([str(tmp_path), "--patchy", "0.75"]) == 0
    assert "card just laid              1 namings, 0 so" in capsys.readouterr().out

    def followed(frame, card, truth, conf, on_rest, track=7):
        return {"what": "verdict", "frame": frame, "track": track, "verdict": "card", "card": card, "truth": truth,
                "confidence": conf, "reverify": True, "pile": 0.0, "on_rest": on_rest, "changed_now": 0.3}

    moved = {"scene": "trick 11", "votes": [
        {**verdict(5, "card", "C02", "C02", 0.8, 0.8), "track": 7, "confidence": 0.97},
        followed(60, "C07", "C07", 0.68, 0.6),            # followed to the C07 laid beside it
        followed(70, "C01", "C02", 0.53, 0.89),           # the C02 itself, nudged and misread
        followed(80, "C09", "C09", 0.95, 0.1),            # named surely: the laid-over bar takes it
        followed(90, "C02", "C02", 0.7, 0.9),             # the card it was: no other card
    ]}
    rows = [(kind, on_rest) for kind, on_rest, _ in changes.followed_namings([json.dumps(moved)], 0.9)]
    assert rows == [("laid", 0.6), ("itself", 0.89)]
    (tmp_path / "1.jsonl").write_text(json.dumps(moved) + "\n")
    assert changes.main([str(tmp_path), "--followed", "0.75"]) == 0
    out = capsys.readouterr().out
    assert "card just laid              1 namings, on its place 0.600-0.600, 1 under" in out
    assert "the card, misread           1 namings, on its place 0.890-0.890, 0 under" in out
    (tmp_path / "2.jsonl").write_text("{not json\n")
    assert changes.main([str(tmp_path)]) == 2
    assert "not a trace" in capsys.readouterr().err
    broken = {**patchy(60, "none", "S01", "S01", 0.78, 0.33, 0.71)}
    del broken["confidence"]  # a found-now-and-then naming without its confidence: one line, no traceback
    (tmp_path / "2.jsonl").write_text(json.dumps({"scene": "trick 2", "votes": [broken]}) + "\n")
    assert changes.main([str(tmp_path), "--patchy", "0.5"]) == 2
    assert "2.jsonl: not a trace" in capsys.readouterr().err

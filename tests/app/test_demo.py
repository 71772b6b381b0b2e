"""The demo on the simulated table: it finishes, its record replays to the
same scores, and ``kill -9`` at random moments does not change the result."""

import json
import random
import subprocess
import sys
import time

import pytest

from device.demo.table import DemoSettings, run_demo
from engine.tarot import random_deal, replay_record

# small, quick scenes for the tests; the ground truth stands in for the model
QUICK = dict(fast=True, display="none", recogniser="truth", frame_width=640, speed=3.0)


def test_tarot_demo_scores_equal_the_engine_and_the_replay(tmp_path):
    result = run_demo(DemoSettings(seed=3, out=tmp_path, **QUICK), report=lambda t: None)
    truth = random_deal(4, 3, poignee_rate=0.5)
    assert result["scores"] == list(truth.result().scores)
    record = json.loads((tmp_path / "record.json").read_text())
    assert replay_record(record)["scores"] == result["scores"]
    assert (tmp_path / "demo.gif").stat().st_size > 0
    assert "replay of record.json: same scores" in (tmp_path / "scores.txt").read_text()
    lines = (tmp_path / "scores.csv").read_text().splitlines()
    assert lines[0] == "seat,player,deal,total" and len(lines) == 5
    # run again on the same folder: the result is shown again, nothing is replayed twice
    again = run_demo(DemoSettings(seed=3, out=tmp_path, **QUICK), report=lambda t: None)
    assert again["scores"] == result["scores"] and again["totals"] == result["totals"]


def test_trivium_demo(tmp_path):
    from engine.trivium import random_game

    result = run_demo(DemoSettings(game="trivium", seed=2, out=tmp_path, **QUICK), report=lambda t: None)
    truth = random_game(["Ana", "Luis", "Marta", "Pau"], 2)
    assert result["scores"] == list(truth.scores)
    assert json.loads((tmp_path / "trivium-game.json").read_text())["format"] == "trivium-game/1"


def test_a_trivium_demo_whose_camera_misreads_a_card_taken_from_the_olla_undoes_it_and_plays_on(tmp_path, monkeypatch):
    """The camera names the card a player discards while taking from the olla as another card
    (which the game cannot fix where it lies): the scripted player undoes the operation, enters
    the right one, and the game ends with the bots' scores."""
    from dataclasses import replace

    from device.app.table import TableApp
    from engine.trivium import random_game

    truth = random_game(["Ana", "Luis", "Marta", "Pau"], 2)
    k, olla = next((i, op.to_dict()) for i, op in enumerate(truth.operations)
                   if op.to_dict()["op"] == "take_from_olla")
    original, misread = TableApp.on_events, []

    def on_events(app, events):
        events = list(events)
        for j, e in enumerate(events):
            if (not misread and e.type == "appeared" and e.card == olla["discard"]
                    and len(app.session.state.operations) == k):
                misread.append(e.card)
                events[j] = replace(e, card="S07" if e.card != "S07" else "S06")
        return original(app, events)

    monkeypatch.setattr(TableApp, "on_events", on_events)
    reports = []
    result = run_demo(DemoSettings(game="trivium", seed=2, out=tmp_path, **QUICK), report=reports.append)
    assert misread and any("wrong: undo" in r for r in reports)
    assert result["stats"].wrong >= 1
    assert result["scores"] == list(truth.scores)


def test_demo_refuses_a_foreign_database_in_out(tmp_path):
    (tmp_path / "demo.db").write_text("not mine")
    from device.storage.deal_log import StoreError

    with pytest.raises(StoreError, match="not a Tarotmate deal log"):
        run_demo(DemoSettings(seed=3, out=tmp_path, **QUICK), report=lambda t: None)
    assert (tmp_path / "demo.db").read_text() == "not mine"


def demo_command(out, seed):
    return [sys.executable, "-m", "device.cli", "demo", "--out", str(out), "--seed", str(seed), "--fast",
            "--display", "none", "--recogniser", "truth", "--frame-width", "640", "--speed", "3"]


@pytest.mark.slow
def test_kill_9_at_random_moments_then_resume_gives_the_same_scores(tmp_path):
    seed = 4
    truth = random_deal(4, seed, poignee_rate=0.5)
    rng = random.Random(2024)
    kills = 0
    for _ in range(3):
        proc = subprocess.Popen(demo_command(tmp_path, seed), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(1.5, 4.0))
        if proc.poll() is None:
            proc.kill()
            kills += 1
        proc.wait()
    assert kills >= 1
    done = subprocess.run(demo_command(tmp_path, seed), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    expected = [f"{s:g}" for s in truth.result().scores]
    table = [line.split() for line in done.stdout.splitlines() if line.split()[:1] in (["Ana"], ["Luis"], ["Marta"], ["Pau"])]
    assert [row[1] for row in table] == expected
    record = json.loads((tmp_path / "record.json").read_text())
    assert replay_record(record)["scores"] == list(truth.result().scores)


def _expected_totals(players: int, seed: int, deals: int, target: int | None):
    """The engine alone: the demo's deals (deal k is seed + k - 1, the dealer moving one seat) until the target."""
    from engine.match import Match

    first = random_deal(players, seed, poignee_rate=0.5)
    match = Match(players, first_dealer=first.dealer, target=target, length=deals)
    while not match.is_over():
        number = match.deals + 1
        deal = first if number == 1 else random_deal(players, seed + number - 1, dealer=match.dealer,
                                                     poignee_rate=0.5)
        match.add(deal.scores)
    return match


def test_demo_plays_n_deals_and_reports_the_totals_in_summary_json(tmp_path):
    from device.cli import main

    args = ["demo", "--deals", "3", "--seed", "5", "--players", "3", "--out", str(tmp_path), "--fast",
            "--display", "none", "--recogniser", "truth", "--frame-width", "640", "--speed", "3"]
    assert main(args) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    expected = _expected_totals(3, 5, 3, None)
    assert {k: summary[k] for k in ("game", "players", "deals", "scores")} == \
        {"game": "french-tarot", "players": 3, "deals": 3, "scores": list(expected.totals)}
    per = summary["per_deal"]  # one entry per deal, in order, adding up to the totals
    assert len(per) == 3 and all(list(d) == ["prompts", "wrong", "by_hand", "right", "confirmed"] for d in per)
    assert sum(d["prompts"] for d in per) == summary["prompts"]
    for key in ("wrong", "by_hand", "right", "confirmed"):
        assert sum(d[key] for d in per) == summary["camera"][key]
    assert all(d["right"] >= 24 for d in per)  # the truth names every card: each deal's 24 cards at least
    assert "deal 3: contract" in (tmp_path / "scores.txt").read_text()


def test_demo_stops_early_when_the_target_is_reached(tmp_path):
    expected = _expected_totals(4, 7, 6, 400)
    assert expected.deals < 6, "pick a seed whose target comes before the sixth deal"
    result = run_demo(DemoSettings(seed=7, deals=6, target=400, out=tmp_path, **QUICK), report=lambda t: None)
    assert result["deals"] == expected.deals and result["totals"] == list(expected.totals)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["deals"] == expected.deals and summary["scores"] == list(expected.totals)


def test_trivium_demo_plays_a_match(tmp_path):
    from engine.trivium import random_game

    result = run_demo(DemoSettings(game="trivium", players=3, seed=2, deals=2, out=tmp_path, **QUICK),
                      report=lambda t: None)
    names = ["Ana", "Luis", "Marta"]
    games = [random_game(names, 2), random_game(names, 3, dealer=1)]
    totals = [a + b for a, b in zip(games[0].scores, games[1].scores)]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert {k: summary[k] for k in ("game", "players", "deals", "scores")} == \
        {"game": "trivium", "players": 3, "deals": 2, "scores": totals} and result["deals"] == 2


def test_summary_json_says_what_the_camera_and_the_player_did(tmp_path, monkeypatch):
    from .demo_witness import Witness

    witness = Witness(monkeypatch, lose_every=5)  # a card lost now and then: questions, hand entries
    result = run_demo(DemoSettings(seed=4, players=3, out=tmp_path, **QUICK), report=lambda t: None)
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert list(summary) == ["game", "players", "deals", "cards", "camera", "prompts", "presses", "scores", "replay",
                             "per_deal"]
    assert list(summary["camera"]) == ["right", "wrong", "confirmed", "by_hand", "fixed"]
    assert summary["game"] == "french-tarot" and summary["players"] == 3 and summary["deals"] == 1
    assert summary["scores"] == result["scores"] and summary["replay"] == "ok"
    camera = summary["camera"]
    shown = result["record"]["contract"] in ("prise", "garde")
    assert summary["cards"] == 72 + (6 if shown else 0)  # 3 x 24 played, and the chien when it is shown
    given = witness.count(tmp_path)
    assert camera["wrong"] == witness.wrong(tmp_path)  # a lost card's successor, undone or fixed where it lay
    assert (camera["right"], camera["confirmed"], camera["by_hand"], camera["fixed"]) == \
        (given["camera"], given["oled"], given["hand"], given.get("fix", 0))
    assert sum(given.values()) == summary["cards"] and min(given.values()) > 0
    assert summary["prompts"] >= camera["confirmed"]
    assert summary["presses"] >= 3  # three bids at least, on the buttons


def test_demo_on_the_hard_table_with_and_without_the_rules_help(tmp_path):
    helped = run_demo(DemoSettings(seed=5, players=4, out=tmp_path / "a", conditions="hard", **QUICK),
                      report=lambda t: None)
    alone = run_demo(DemoSettings(seed=5, players=4, out=tmp_path / "b", conditions="hard", rules_help=False,
                                  **QUICK), report=lambda t: None)
    assert helped["scores"] == alone["scores"]
    for result in (helped, alone):
        stats = result["stats"]
        assert stats.wrong == 0 and stats.seen_right + stats.confirmed + stats.entered_by_hand == stats.cards
        assert stats.latencies and stats.sweep_latencies


def test_demo_conditions_on_the_command_line(tmp_path, capsys):
    from device.cli import EXIT_ERROR, main

    out = tmp_path / "out"
    with pytest.raises(SystemExit) as refused:
        main(["demo", "--conditions", "medium", "--out", str(out)])
    assert refused.value.code == EXIT_ERROR  # a usage error: nothing done
    err = capsys.readouterr().err
    assert "tarotmate demo: error: argument --conditions: invalid choice: 'medium'" in err
    assert "easy" in err and "hard" in err and not out.exists()


@pytest.mark.parametrize("flags, learns", [([], True), (["--learn-deck"], True), (["--no-learn-deck"], False)])
def test_the_demo_learns_its_deck_unless_told_not_to(tmp_path, monkeypatch, flags, learns):
    import device.demo.table as table
    from device.cli import main

    seen = {}

    def fake_run_demo(settings, report=None):
        seen["settings"] = settings
        return {"text": "", "seconds": 0.0}

    monkeypatch.setattr(table, "run_demo", fake_run_demo)
    assert main(["demo", "--out", str(tmp_path), "--display", "none", *flags]) == 0
    assert seen["settings"].learn_deck is learns


def test_a_trace_says_for_every_scene_what_the_camera_saw_and_what_lay_there(tmp_path):
    trace = tmp_path / "trace.jsonl"
    run_demo(DemoSettings(seed=3, out=tmp_path / "out", trace=trace, **QUICK), report=lambda t: None)
    scenes = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [s["scene"] for s in scenes if s["scene"].startswith("trick")] == [f"trick {n}" for n in range(1, 19)]
    for scene in scenes:
        assert {"events", "expected", "votes", "prompts", "wrong", "confirmed", "by_hand", "details"} <= set(scene)
        votes = [v for v in scene["votes"] if v["what"] == "vote"]
        assert votes and all(v["truth"] and 0 <= v["visible"] <= 1 and v["top"] for v in votes)
    # with the simulator's truth as the namer, each named card is the card lying under its quad
    named = [v for s in scenes for v in s["votes"] if v["what"] == "verdict" and v["verdict"] == "card"]
    assert named and all(v["card"] == v["truth"] for v in named)
    assert all(s["tracker"] == {} for s in scenes)  # the defaults: the truth carries no bars


def test_a_trace_says_which_tracker_settings_it_was_played_with():
    from dataclasses import replace
    from types import SimpleNamespace

    from device.demo.player import SceneTrace
    from vision.tracker_settings import TrackerSettings

    def played(settings):
        trace = SceneTrace.__new__(SceneTrace)
        trace.tracker = SimpleNamespace(settings=settings)
        return trace.settings_played()

    assert played(TrackerSettings()) == {}
    assert played(replace(TrackerSettings(), pip_above_margin=60.0, audit=True)) == {"pip_above_margin": 60.0, "audit": True}
    assert played(None) == {}


def test_every_deal_of_a_demo_is_played_at_the_same_table():
    """One room, one camera, one evening: the hard table's light, lamp and camera are drawn once."""
    from types import SimpleNamespace

    from device.app.registry import game_for
    from device.demo.table import DemoSettings
    from device.games.french_tarot.demo import TarotDemo

    demo = TarotDemo(game_for("french-tarot"), DemoSettings(seed=3, deals=3, conditions="hard"), lambda line: None)
    table = demo.table
    first = demo.truth
    demo.start_deal(SimpleNamespace(deal=SimpleNamespace(number=2, setup={"dealer": 1})))
    assert demo.number == 2 and demo.truth is not first  # the next deal's cards...
    assert demo.table is table and table.name == "hard"  # ...at the same table


def test_the_presses_of_each_deal_add_up_to_the_demos():
    from device.demo.player import VisionStats

    stats = VisionStats()
    stats.mark_deal(1)
    stats.presses += 7
    stats.mark_deal(2)
    stats.mark_deal(2)  # marked once
    stats.presses += 3
    assert stats.presses_per_deal() == [7, 3] and sum(stats.presses_per_deal()) == stats.presses
    assert list(stats.per_deal()[0]) == ["prompts", "wrong", "by_hand", "right", "confirmed"]  # the summary's, as it was
    old = VisionStats(deal_marks=[{"deal": 1, "prompts": 0, "wrong": 0, "by_hand": 0, "right": 0, "confirmed": 0}])
    old.mark_deal(2)
    old.presses += 4
    assert old.presses_per_deal() == [None, 4]  # a deal marked before presses were counted per deal

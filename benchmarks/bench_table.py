"""Table benchmark: whole French tarot deals on the simulated table, with and without the rules' help.

Each deal is ``tarotmate demo`` (the real pipeline: simulator, tracker with
the shipped card model, controller, deal log, engine, the scripted player)
played twice: once with the rules telling the camera which cards are
possible (the default), once without (``--no-rules-help``). Deals cycle
through 3, 4 and 5 players and alternate the easy and the hard table; the
seed draws the deal and the hard table's conditions.

It prints, per table and help, the averages of the summary's figures
(cards, camera right / wrong / confirmed / by hand, prompts, presses), the
worst deal's ``wrong``, ``prompts`` and ``by_hand``, and the latency in
frames from a card coming to rest to its event (mean, worst, and the share
within ``ON_TIME`` frames; and from a trick's pile leaving the middle to its
``cleared``), against the targets.

    .venv/bin/python benchmarks/bench_table.py                 # 20 deals x 2 (--fast frames), all cores
    .venv/bin/python benchmarks/bench_table.py --deals 6 --jobs 1
    .venv/bin/python benchmarks/bench_table.py --deals 6 --jobs 1 --trace /tmp/trace   # then table_causes.py
    .venv/bin/python benchmarks/bench_table.py --deals 6 --only help --models-dir models/training/candidate \
        --set commit_bar=0.99                            # a candidate model, a tracker setting changed

``--sequence N`` plays instead one game of N deals at each table (easy and
hard, 4 players, the rules' help on), the same table and deck all evening,
and prints the questions, wrong cards and button presses of each deal, and
the questions of deals 1–5 against 6–10 (what a table that learns its deck
should show falling); the table learns
its deck as it plays, as the demo and the device do (``--no-learn-deck``:
the card model alone, ``tarotmate demo --no-learn-deck``), ``--deck DIR``
draws the cards from a folder of scans (a deck never trained on),
``--table`` plays one table only::

    .venv/bin/python benchmarks/bench_table.py --sequence 10
    .venv/bin/python benchmarks/bench_table.py --sequence 10 --table hard --deck ../shared/decks/DECK [--no-learn-deck]

``--trace DIR`` writes, per deal and help, one JSON line per scene: every
view the tracker took with the card truly under it, its verdicts and events,
and what the player had to do; ``benchmarks/table_causes.py DIR`` gives each
question and wrong card its cause.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ON_TIME = 8  # frames from a card coming to rest to its event (the target)
FIELDS = ("cards", "right", "wrong", "confirmed", "by_hand", "prompts", "presses")


def plan(deals: int, first_seed: int) -> list[tuple[int, int, str]]:
    """(seed, players, conditions) of each deal: players cycle 3, 4, 5; tables alternate easy, hard."""
    return [(first_seed + i, (3, 4, 5)[i % 3], ("easy", "hard")[i % 2]) for i in range(deals)]


def tracker_overrides(pairs: list[str]) -> dict:
    """``NAME=VALUE`` texts as tracker settings (``vision.tracker_settings.TrackerSettings`` fields),
    each value of its field's type; a one-line error for an unknown name or a bad value."""
    from vision.tracker_settings import parse_settings

    try:
        return parse_settings(pairs)
    except ValueError as exc:
        raise SystemExit(f"bench_table: --set {exc}") from None


def demo_overrides(models: str | None, tracker: dict | None, follow: float | None = None,
                   sides: bool = True, profile: str | None = None) -> dict:
    """DemoSettings fields for another card model, an enrolled deck's profile and other tracker settings
    (none: the shipped ones; the settings change the tracker's own for that model, its bars included)."""
    out = {}
    if models:
        out["models"] = Path(models)
    if profile:
        out["profile"] = profile
    if tracker:
        out["tracker"] = dict(tracker)
    if follow is not None:
        out["follow_weight"] = float(follow)
    if not sides:
        out["seat_sides"] = False
    return out


def play(seed: int, players: int, conditions: str, helped: bool, fast: bool, trace: str | None = None,
         models: str | None = None, tracker: dict | None = None, follow: float | None = None,
         sides: bool = True, learn: bool | None = None, profile: str | None = None) -> dict:
    """One demo deal; its summary figures and latencies."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
    import cv2

    cv2.setNumThreads(1)
    from device.demo.table import DemoSettings, run_demo

    with tempfile.TemporaryDirectory(prefix="bench-table-") as out:
        settings = DemoSettings(game="french-tarot", players=players, seed=seed, out=Path(out), fast=fast,
                                display="none", fresh=True, conditions=conditions, rules_help=helped,
                                learn_deck=learning(learn),
                                trace=None if trace is None else
                                Path(trace) / f"{seed}-{players}p-{conditions}-{'help' if helped else 'none'}.jsonl",
                                **demo_overrides(models, tracker, follow, sides, profile))
        started = time.perf_counter()
        result = run_demo(settings, report=lambda text: None)
        stats = result["stats"]
        summary = {"cards": stats.cards, **stats.camera(), "prompts": stats.prompts, "presses": stats.presses}
        return {"seed": seed, "players": players, "conditions": conditions, "helped": helped,
                "summary": summary, "latencies": list(stats.latencies), "sweeps": list(stats.sweep_latencies),
                "frames": stats.frames, "seconds": time.perf_counter() - started,
                "recognition": stats.recognition, "unpriced": stats.unpriced}


def on_time(latencies) -> str:
    """The share of the cards whose event came within ``ON_TIME`` frames of their coming to rest."""
    latencies = list(latencies)
    if not latencies:
        return "-"
    return f"{100 * sum(x <= ON_TIME for x in latencies) / len(latencies):.1f}%"


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def report(runs: list[dict]) -> None:
    print(f"{'table':<6} {'rules':<7} {'deals':>5} " + " ".join(f"{f:>9}" for f in FIELDS)
          + f" {'worst w/p/h':>12} {'rest->event':>12} {'<=%d fr' % ON_TIME:>8} {'sweep':>10}")
    groups = {}
    for run in runs:
        groups.setdefault((run["conditions"], run["helped"]), []).append(run)
    for (conditions, helped), group in sorted(groups.items(), key=lambda kv: (kv[0][0], not kv[0][1])):
        avg = [mean(r["summary"][f] for r in group) for f in FIELDS]
        worst = (max(r["summary"]["wrong"] for r in group), max(r["summary"]["prompts"] for r in group),
                 max(r["summary"]["by_hand"] for r in group))
        lat = [x for r in group for x in r["latencies"]]
        sw = [x for r in group for x in r["sweeps"]]
        print(f"{conditions:<6} {'help' if helped else 'none':<7} {len(group):>5} "
              + " ".join(f"{a:>9.1f}" for a in avg)
              + f" {'%d/%d/%d' % worst:>12} {mean(lat):>5.1f} / {max(lat, default=0):>3d} {on_time(lat):>8}"
              + f" {mean(sw):>4.1f} / {max(sw, default=0):>2d}")
    print()
    by = {(r["conditions"], r["helped"]): [] for r in runs}
    for r in runs:
        by[(r["conditions"], r["helped"])].append(r)
    hard_help = [r["summary"]["prompts"] for r in by.get(("hard", True), [])]
    hard_none = [r["summary"]["prompts"] for r in by.get(("hard", False), [])]
    easy_help = [r["summary"]["prompts"] for r in by.get(("easy", True), [])]
    targets = [
        ("wrong = 0 in every deal", all(r["summary"]["wrong"] == 0 for r in runs)),
        ("hard: <= 3 prompts per deal (with help)", bool(hard_help) and max(hard_help) <= 3),
        ("hard: by_hand = 0 (with help)", all(r["summary"]["by_hand"] == 0 for r in by.get(("hard", True), []))),
        ("easy: <= 1 prompt per deal (with help)", bool(easy_help) and max(easy_help) <= 1),
        ("the rules' help at least halves hard prompts",
         bool(hard_help) and bool(hard_none) and mean(hard_help) <= mean(hard_none) / 2),
        (f"a card at rest gets its event within {ON_TIME} frames",
         max((x for r in runs if r["helped"] for x in r["latencies"]), default=0) <= ON_TIME),
        ("sweeping a trick within 10 frames", max((x for r in runs if r["helped"] for x in r["sweeps"]), default=0) <= 10),
    ]
    for text, ok in targets:
        print(f"  [{'met' if ok else 'MISSED'}] {text}")


def play_sequence(seed: int, players: int, conditions: str, deals: int, fast: bool,
                  models: str | None = None, tracker: dict | None = None, learn: bool | None = None,
                  deck: str | None = None, trace: str | None = None, profile: str | None = None) -> dict:
    """One game of ``deals`` deals at one table; its ``per_deal`` figures (and, when the table
    learns its deck, how many views it learned)."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
    import cv2

    cv2.setNumThreads(1)
    from device.demo.table import DemoSettings, run_demo

    with tempfile.TemporaryDirectory(prefix="bench-table-") as out:
        settings = DemoSettings(game="french-tarot", players=players, seed=seed, deals=deals, out=Path(out), fast=fast,
                                display="none", fresh=True, conditions=conditions, deck=deck,
                                learn_deck=learning(learn),
                                trace=None if trace is None else Path(trace) / f"{seed}-{players}p-{conditions}-help.jsonl",
                                **demo_overrides(models, tracker, profile=profile))
        started = time.perf_counter()
        result = run_demo(settings, report=lambda text: None)
        return {"conditions": conditions, "players": players, "seed": seed, "per_deal": result["stats"].per_deal(),
                "presses": result["stats"].presses_per_deal(),
                "seconds": time.perf_counter() - started, "recognition": result["stats"].recognition,
                "learned": learned_views(Path(out)) if settings.learn_deck else None, "deck": deck,
                "profile": profile}


def learning(learn: bool | None) -> bool:
    """Whether the table learns its deck: ``learn``, or the demo's default when None."""
    from device.demo.table import DemoSettings

    return DemoSettings.learn_deck if learn is None else learn


def who_names(learn: bool | None, profile: str | None = None) -> str:
    """What names the cards, as the benchmark's first line says it."""
    if profile:
        return f"the enrolled deck profile {profile}"
    return "the table learning its deck" if learning(learn) else "the card model alone"


def learned_views(out: Path) -> int | None:
    """How many views the table's deck memory holds at the end of a demo in ``out`` (None: no memory)."""
    from device.demo.table import DB_NAME
    from vision.deck_memory import memory_path_beside, read_summary

    summary = read_summary(memory_path_beside(out / DB_NAME))
    return None if summary is None else int(summary["views"])


def report_sequences(runs: list[dict]) -> None:
    for run in sorted(runs, key=lambda r: r["conditions"]):
        per = run["per_deal"]
        prompts = [d["prompts"] for d in per]
        first, later = prompts[:5], prompts[5:10]
        deck = f", deck {Path(run['deck']).name}" if run.get("deck") else ""
        deck += f", named by its profile {run['profile']}" if run.get("profile") else ""
        learned = "" if run.get("learned") is None else f", {run['learned']} views learned"
        print(f"{run['conditions']} table, {run['players']} players, seed {run['seed']}{deck}, {len(per)} deals "
              f"({run['seconds']:.0f} s, {run['recognition']}{learned}):")
        print("  questions per deal: " + " ".join(str(p) for p in prompts))
        print("  wrong per deal:     " + " ".join(str(d["wrong"]) for d in per))
        print("  by hand per deal:   " + " ".join(str(d.get("by_hand", "?")) for d in per))
        print("  presses per deal:   " + " ".join("?" if n is None else str(n) for n in run.get("presses", [])))
        if later:
            print(f"  deals 1-5: {mean(first):.1f} questions per deal; deals 6-10: {mean(later):.1f} "
                  f"({'at most half' if mean(later) <= mean(first) / 2 else 'not half'} of deals 1-5)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20, help="deals, each played with and without help (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the first deal's seed (default 1)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="deals played at once (default: all cores)")
    parser.add_argument("--full-size", action="store_true", help="1280x720 frames at normal speed (default: --fast, 960x540)")
    parser.add_argument("--trace", metavar="DIR", help="for diagnosis: a JSON line per scene and deal in DIR "
                        "(every vote with the card truly under it, the events, the outcome)")
    parser.add_argument("--only", choices=("help", "none"), help="play each deal only with (help) or without the rules' help")
    parser.add_argument("--sequence", type=int, default=0, metavar="N",
                        help="instead: one game of N deals at the easy and at the hard table (4 players, help on)")
    parser.add_argument("--learn-deck", action=argparse.BooleanOptionalAction, default=None,
                        help="the table learns its deck as it plays, or not (--no-learn-deck); default: as the demo "
                             "and the device do (on)")
    parser.add_argument("--deck", metavar="DIR", help="with --sequence: draw the cards from a folder of scans (CODE.jpg/png)")
    parser.add_argument("--table", choices=("easy", "hard"), help="with --sequence: play at this table only")
    parser.add_argument("--profile", metavar="NAME", help="name the cards with this enrolled deck's profile "
                        "(`tarotmate enroll NAME --from-dir DIR`, found as `tarotmate decks` lists it) instead of "
                        "the card model's own classes")
    parser.add_argument("--models-dir", metavar="DIR", help="the card model of DIR (cards.onnx, labels.txt), and its card "
                        "locator when DIR has a locator.onnx, instead of the shipped ones: a candidate measured at "
                        "the table before it ships")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a tracker setting for this measurement (vision/tracker_settings.py), e.g. commit_bar=0.99")
    parser.add_argument("--follow-weight", type=float, default=None, metavar="W",
                        help="the prior of a card that does not follow the trick, for each void it needs that the "
                             "plays have not proven (device/games/french_tarot/controller.py: follow_prior; "
                             "default: the game's, 1)")
    parser.add_argument("--no-seat-sides", action="store_true",
                        help="take a trick's cards by turn order wherever they lie (game.played_in_front = false)")
    args = parser.parse_args()
    if args.follow_weight is not None and not 0 < args.follow_weight <= 1:
        raise SystemExit(f"bench_table: --follow-weight {args.follow_weight}: a weight in (0, 1]")
    tracker = tracker_overrides(args.set)
    if args.models_dir and not (Path(args.models_dir) / "cards.onnx").is_file():
        raise SystemExit(f"bench_table: --models-dir {args.models_dir}: no cards.onnx there")
    if args.profile:
        from engine.errors import TarotmateError
        from vision.decks import check_deck

        try:
            check_deck(args.profile)
        except TarotmateError as exc:
            raise SystemExit(f"bench_table: --profile {args.profile}: {exc}") from None
    if args.set:
        print("tracker settings: " + ", ".join(f"{k}={v}" for k, v in tracker.items()), flush=True)
    if args.trace:
        Path(args.trace).mkdir(parents=True, exist_ok=True)
        for old in Path(args.trace).glob("*.jsonl"):
            old.unlink()
    if args.sequence:
        tables = [args.table] if args.table else ["easy", "hard"]
        where = f"the {args.table} table" if args.table else "the easy and at the hard table"
        print(f"Tarotmate table benchmark: one game of {args.sequence} deals at {where}"
              f", {who_names(args.learn_deck, args.profile)}", flush=True)
        n = len(tables)
        with ProcessPoolExecutor(max_workers=max(1, min(n, args.jobs))) as pool:
            runs = list(pool.map(play_sequence, [args.seed] * n, [4] * n, tables, [args.sequence] * n,
                                 [not args.full_size] * n, [args.models_dir] * n, [tracker] * n,
                                 [args.learn_deck] * n, [args.deck] * n, [args.trace] * n, [args.profile] * n))
        report_sequences(runs)
        return 0
    helps = {"help": (True,), "none": (False,), None: (True, False)}[args.only]
    jobs = [(seed, players, cond, helped, not args.full_size, args.trace, args.models_dir, tracker, args.follow_weight,
             not args.no_seat_sides, args.learn_deck, args.profile)
            for seed, players, cond in plan(args.deals, args.seed) for helped in helps]
    print(f"Tarotmate table benchmark: {args.deals} French tarot deals (3/4/5 players, easy and hard tables), "
          f"each with and without the rules' help; {'1280x720' if args.full_size else '960x540 --fast'} frames, "
          f"{args.jobs} at once; {who_names(args.learn_deck, args.profile)}", flush=True)
    started = time.perf_counter()
    runs = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(play, *job): job for job in jobs}
        for done, future in enumerate(as_completed(futures), 1):
            run = future.result()
            runs.append(run)
            s = run["summary"]
            print(f"  [{done:>2}/{len(jobs)}] seed {run['seed']:>3} {run['players']}p {run['conditions']:<4} "
                  f"{'help' if run['helped'] else 'none'}: right {s['right']} wrong {s['wrong']} confirmed "
                  f"{s['confirmed']} by_hand {s['by_hand']} prompts {s['prompts']} presses {s['presses']} "
                  f"({run['seconds']:.0f} s)", flush=True)
    print(f"\nrecognition: {runs[0]['recognition']}; {time.perf_counter() - started:.0f} s in all; "
          f"decisions no menu could price (one press each): {sum(r['unpriced'] for r in runs)}\n")
    report(runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Table tracking benchmark: simulated deals through the tracker, scored against the simulator's truth.

For 4- and 5-player deals on the built-in deck (and, when ``../shared/decks``
is present, on real deck scans) it prints card events right / wrong /
uncertain / missed / spurious, whether they came in order, the latency from a
card coming to rest to its event (frames and ms at 30 fps), the latency of
``cleared`` after a trick is swept, the frames per second the tracker
processes with one thread, and the time per frame of each stage (motion,
localisation, classification, tracking). A third scene lays Trivium tercias
in seat zones, steals one (``moved``), carries cards over the table without
laying them and changes the light (only the laid and moved cards must make
events). Scenes on deck scans use the table textures of
``../shared/backgrounds``. A last run plays a long deal and prints the process
memory along the way (it should stay flat).

Recognition: the real localiser and the shipped card model when
``models/cards.onnx`` exists; the "truth" rows name cards from the
simulator's ground truth (the tracker's own logic, apart from recognition).

    .venv/bin/python benchmarks/bench_tracking.py            # full run (a few minutes)
    .venv/bin/python benchmarks/bench_tracking.py --quick    # fewer tricks
    .venv/bin/python benchmarks/bench_tracking.py --quick --conditions hard   # the hard table
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.simulator import (  # noqa: E402
    GroundTruthRecogniser,
    Hover,
    Idle,
    Light,
    Move,
    TableSimulator,
    french_deal_script,
    random_tricks,
    score_events,
    trivium_script,
)
from vision.sources import Frame  # noqa: E402
from vision.tracker import Tracker  # noqa: E402

DECKS = ROOT.parent / "shared" / "decks"
BACKGROUNDS = ROOT.parent / "shared" / "backgrounds"


def table_scripts(tricks: int, seed: int) -> list[tuple[str, int, list]]:
    """(name, players, script) of the scenes played on every deck."""
    scenes = []
    for players in (4, 5):
        scenes.append((f"{players}p x{tricks} tricks", players,
                       french_deal_script(random_tricks(tricks, players, seed=seed), players=players)))
    # hands hovering with cards, lamp changes, tercias laid and one stolen: no event but the right ones
    trivium = trivium_script([(1, ("T10", "H05", "S06")), (3, ("C10", "D10", "H01"))])
    scenes.append(("trivium, hover, light", 4, [Hover(2, "EX", hold=20), Light(0.7, 20)] + trivium
                   + [Light(1.15, 10), Hover(4, "T21", zone="seat1", hold=15), Move(4, "H05", "seat4"), Idle(10)]))
    return scenes


def rss_mb() -> float:
    """Resident memory of this process now (MB)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_namer():
    try:
        from vision.namer import Namer

        return Namer.load(threads=1)
    except Exception as exc:  # no model yet: say so and use the truth
        print(f"(card model not available: {exc}; the 'model' rows are skipped)")
        return None


def run(sim: TableSimulator, recogniser: str, namer, memory_every: int = 0):
    oracle = GroundTruthRecogniser(sim)
    if recogniser == "truth":
        tracker = Tracker(sim.zones, localiser=oracle.localise, namer=oracle, cropper=oracle.crop)
    elif recogniser == "localiser+truth":
        tracker = Tracker(sim.zones, namer=oracle, cropper=oracle.crop)
    else:
        tracker = Tracker(sim.zones, namer=namer)
    events = []
    render = 0.0
    memory = []
    t = time.perf_counter()
    for f in oracle.frames():
        render += time.perf_counter() - t
        events += tracker.process(Frame(f.image, f.timestamp, f.index))
        if memory_every and f.index % memory_every == 0:
            memory.append((f.index, rss_mb()))
        t = time.perf_counter()
    events += tracker.flush()
    return score_events(sim.expected, events), tracker.stats, render / len(sim), memory


def fmt_latency(values, fps):
    if not values:
        return "-"
    v = np.array(values)
    return f"{v.mean():.1f}/{v.max():d} ({v.mean() * 1000 / fps:.0f}/{v.max() * 1000 / fps:.0f} ms)"


HEADER = (
    f"{'scene':<38} {'recogniser':<16} {'cards':>5} {'right':>5} {'wrong':>5} {'unsure':>6} {'missed':>6} "
    f"{'spur.':>5} {'order':>5}  {'latency mean/max':<22} {'cleared':>7} {'clr lat max':>11} {'fps':>6}  "
    f"{'motion':>6} {'locate':>6} {'name':>6} {'track':>6} {'loc%':>5}"
)


def row(scene, recogniser, score, stats, fps_sim):
    n = stats.frames
    per = lambda s: f"{s / n * 1000:6.2f}"  # noqa: E731
    fps = n / stats.total() if stats.total() > 0 else float("inf")
    clr = f"{score.cleared_right}/{score.cleared_right + score.cleared_missed}"
    clat = max(score.cleared_latencies) if score.cleared_latencies else "-"
    return (
        f"{scene:<38} {recogniser:<16} {score.expected_cards:5d} {score.right:5d} {score.wrong:5d} {score.uncertain:6d} "
        f"{score.missed:6d} {score.spurious:5d} {'yes' if score.in_order else 'NO':>5}  {fmt_latency(score.latencies, fps_sim):<22} "
        f"{clr:>7} {clat!s:>11} {fps:6.0f}  {per(stats.motion)} {per(stats.localisation)} {per(stats.classification)} "
        f"{per(stats.tracking)} {stats.localised / n * 100:4.0f}%"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer tricks and decks")
    parser.add_argument("--tricks", type=int, help="tricks per deal on the built-in deck (default 6, quick 2); half on scans")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--conditions", choices=("easy", "hard"), default="easy",
                        help="the simulated table: easy (default) or hard (dim, glare, lingering hands, piles, "
                             "small cards, tilt, blur; drawn from the seed)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    tricks = args.tricks or (2 if args.quick else 6)
    namer = load_namer()
    recognisers = ["truth", "localiser+truth"] + (["model"] if namer is not None else [])

    scenes = []  # (label, players, script, deck, background)
    for name, players, script in table_scripts(tricks, args.seed):
        scenes.append((f"builtin {name}", players, script, None, None))
    if DECKS.is_dir():
        decks = sorted(p for p in DECKS.iterdir() if p.is_dir())
        backgrounds = sorted(BACKGROUNDS.glob("polyhaven_*.jpg")) + sorted(BACKGROUNDS.glob("pysolfc_*.png"))
        n = max(1, tricks // 2)
        for k, deck in enumerate(decks[: 1 if args.quick else len(decks)]):
            for j, (name, players, script) in enumerate(table_scripts(n, args.seed + k + 1)[:2]):
                bg = backgrounds[(2 * k + j) % len(backgrounds)] if backgrounds else None
                scenes.append((f"{deck.name[:16]} {name}", players, script, deck, bg))
    else:
        print("(../shared/decks is absent: real deck scans skipped)")

    print(f"Tarotmate table tracking benchmark: 1280x720, 30 fps, one thread (cv2.setNumThreads(1)), seed {args.seed}, "
          f"{args.conditions} table")
    print("latency = frames from a card coming to rest to its event; fps = frames / tracker time (rendering excluded);")
    print("motion/locate/name/track = ms per frame on average over all frames; loc% = frames on which the localiser ran")
    print(HEADER)
    for scene, players, script, deck, background in scenes:
        for recogniser in recognisers:
            sim = TableSimulator(script, players=players, seed=args.seed, deck=deck, background=background,
                                 conditions=args.conditions)
            score, stats, render, _ = run(sim, recogniser, namer)
            print(row(scene, recogniser, score, stats, sim.fps), flush=True)
            for line in score.details[:6]:
                print(f"    {line}")
    # long run: memory along a whole deal
    long_tricks = 6 if args.quick else 18
    script = french_deal_script(random_tricks(long_tricks, 4, seed=args.seed + 1), players=4)
    sim = TableSimulator(script, players=4, seed=args.seed + 1, conditions=args.conditions)
    recogniser = "model" if namer is not None else "localiser+truth"
    before = rss_mb()
    score, stats, render, memory = run(sim, recogniser, namer, memory_every=250)
    print()
    print(f"long run: {len(sim)} frames ({long_tricks} tricks, 4 players, {recogniser}): "
          f"{score.right}/{score.expected_cards} right, {score.spurious} spurious, fps {stats.frames / stats.total():.0f}, "
          f"simulator {render * 1000:.1f} ms/frame to render")
    print("  memory (MB resident) by frame: " + ", ".join(f"{i}: {m:.0f}" for i, m in memory))
    print(f"  start {before:.0f} MB, peak of the process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB, "
          f"growth over the second half {memory[-1][1] - memory[len(memory) // 2][1]:+.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

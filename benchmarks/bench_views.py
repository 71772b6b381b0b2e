"""A new card's views with and without a hand over it, on the hard simulated table.

The tracker names a card once it lies still; at the hard table a hand often
still lies over part of it then (it lingers before drawing back). This plays
simulated tricks on the hard table with the tracker on the ground-truth namer
and the simulator's own quads (so that every view is of the card itself) and,
for every view the tracker took of a new card, records whether a hand covered
part of the card then (the simulator's truth: under 90 % of it visible) and
the two signals the tracker's views settings read:

* ``look`` (``TrackerSettings.look_change``): how different the view's look
  (:func:`vision.votes.look_of`) is from the card's last view of the same
  naming, when a hand covered it in one of the two and not in the other, or
  in neither;
* ``around`` (``TrackerSettings.hand_clear``): how much of the ring around the
  card changed since before it came (:func:`vision.change_outline.change_around`).

It prints each signal's quantiles per kind of view and, for a few bars, the
share of views with a hand that the bar catches and of views without one that
it wrongly holds back.

    .venv/bin/python benchmarks/bench_views.py [--seeds 3] [--tricks 2] [--json F]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.change_outline import change_around  # noqa: E402
from vision.simulator import GroundTruthRecogniser, TableSimulator, french_deal_script, random_tricks  # noqa: E402
from vision.sources import Frame  # noqa: E402
from vision.track_geometry import quad_distance  # noqa: E402
from vision.tracker import Tracker, TrackerSettings  # noqa: E402
from vision.votes import look_distance, look_of  # noqa: E402
from vision.warp import warp_card  # noqa: E402

HAND = 0.9  # a view with less of the card visible than this had a hand over part of it
QUANTILES = (0.0, 0.1, 0.5, 0.9, 1.0)


def views_of(seed: int, tricks: int, players: int) -> list[dict]:
    """Every view the tracker took of a new card in one hard-table deal: its truth and signals."""
    script = french_deal_script(random_tricks(tricks, players, seed=seed), players=players)
    sim = TableSimulator(script, players=players, seed=seed, size=(960, 540), conditions="hard")
    oracle = GroundTruthRecogniser(sim)
    # a bar no ring reaches: the background is kept for ``change_around``, no naming is put off
    tracker = Tracker(sim.zones, localiser=oracle.localise, namer=oracle, cropper=oracle.crop,
                      settings=replace(TrackerSettings(), hand_clear=2.0, hand_wait=0))
    rows: list[dict] = []
    current: dict = {}

    def record(what, index, ident, quad, data):
        if what != "vote" or data.get("state") != "new":
            return
        frame = current["frame"]
        track = next(t for t in tracker._tracks if t.ident == ident)
        q = np.asarray(quad, np.float32)
        truth = min(frame.cards, key=lambda c: quad_distance(c.corners, q))
        rows.append({"seed": seed, "track": ident, "frame": index, "hand": float(truth.visible) < HAND,
                     "look": look_of(warp_card(frame.image, q)),
                     "around": None if track.before is None else change_around(track.before, frame.image, q)})

    tracker.trace = record
    for f in oracle.frames():
        current["frame"] = f
        tracker.process(Frame(f.image, f.timestamp, f.index))
    return rows


def pairs(rows: list[dict]) -> dict[str, list[float]]:
    """Look distances of each view to the last view of its card, by kind of pair."""
    out: dict[str, list[float]] = defaultdict(list)
    by_track: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        by_track[(r["seed"], r["track"])].append(r)
    for views in by_track.values():
        last = views[-1]
        for v in views[:-1]:
            if v["look"] is None or last["look"] is None:
                continue
            kind = "hand then clear" if v["hand"] and not last["hand"] else (
                "both clear" if not v["hand"] and not last["hand"] else "hand in the last")
            out[kind].append(look_distance(v["look"], last["look"]))
    return out


def quantiles(values: list[float]) -> list[float]:
    return [round(float(np.quantile(values, q)), 3) for q in QUANTILES] if values else []


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=3, help="deals (seeds 1..N), 4 then 5 players in turn")
    p.add_argument("--tricks", type=int, default=2)
    p.add_argument("--json", metavar="F")
    a = p.parse_args(argv)
    rows = []
    for seed in range(1, a.seeds + 1):
        rows += views_of(seed, a.tricks, 4 + (seed + 1) % 2)
        print(f"  seed {seed}: {len(rows)} views so far", file=sys.stderr, flush=True)
    looks = pairs(rows)
    around = {"hand": [r["around"] for r in rows if r["hand"] and r["around"] is not None],
              "clear": [r["around"] for r in rows if not r["hand"] and r["around"] is not None]}
    figures = {"views": len(rows), "with_hand": sum(r["hand"] for r in rows),
               "look": {k: {"pairs": len(v), "quantiles": quantiles(v)} for k, v in looks.items()},
               "around": {k: {"views": len(v), "quantiles": quantiles(v)} for k, v in around.items()},
               "look_bars": {str(b): {"caught": round(float(np.mean([d > b for d in looks["hand then clear"]])), 3)
                                      if looks["hand then clear"] else None,
                                      "wrongly": round(float(np.mean([d > b for d in looks["both clear"]])), 3)
                                      if looks["both clear"] else None} for b in (0.25, 0.3, 0.35)},
               "around_bars": {str(b): {"caught": round(float(np.mean([x > b for x in around["hand"]])), 3) if around["hand"] else None,
                                        "wrongly": round(float(np.mean([x > b for x in around["clear"]])), 3) if around["clear"] else None}
                               for b in (0.075, 0.085, 0.1)}}
    print(f"Tarotmate views of new cards, hard simulated table: {a.seeds} deals x {a.tricks} tricks, "
          f"{figures['views']} views, {figures['with_hand']} with a hand over part of the card")
    print(f"quantiles {', '.join(f'{q:g}' for q in QUANTILES)}")
    for kind, f in figures["look"].items():
        print(f"  look distance to the card's last view, {kind:<16} {f['pairs']:>4} pairs: {f['quantiles']}")
    for kind, f in figures["around"].items():
        print(f"  ring around the card changed, views {kind:<5}        {f['views']:>4} views: {f['quantiles']}")
    for b, f in figures["look_bars"].items():
        print(f"  look_change={b}: drops {f['caught']} of the hand views, {f['wrongly']} of the clear ones")
    for b, f in figures["around_bars"].items():
        print(f"  hand_clear={b}: holds back {f['caught']} of the hand views, {f['wrongly']} of the clear ones")
    if a.json:
        Path(a.json).write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

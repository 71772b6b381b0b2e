"""The new card's outline from what changed, against the card finder's quad, on the simulated table.

For every card laid in simulated tricks (easy and hard tables, 4 and 5
players), at the frame its hand has gone and it lies still (the simulator's
rest frame + ``--settle``): the card finder's quad nearest the card's true
corners (the *hint*), and :func:`vision.change_outline.outline_from_change`
between that frame and the table as it last lay still when the card was first
seen (a :class:`vision.change_outline.StillBackground` fed with the tracker's
motion masks). It
prints, per table and per "on a pile" / "alone", the corner error (mean over
the four corners, in card widths, along the card's own sides: what
``vision.training.corner_errors`` measures) of the finder's quad, of the
outline where one was found, and of "the outline where found, else the quad"
(what the tracker would crop), median and 90th percentile, and how often the
outline is found and how often it is the closer of the two.

    .venv/bin/python benchmarks/bench_outline.py [--seeds 6] [--tricks 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.change_outline import StillBackground, explain_outline  # noqa: E402
from vision.motion import changed_pixels, small_grey  # noqa: E402
from vision.quad_error import card_frame_error  # noqa: E402
from vision.simulator import TableSimulator, french_deal_script, random_tricks  # noqa: E402
from vision.track_geometry import covered_fraction, quad_distance, sides  # noqa: E402
from vision.tracker_settings import TrackerSettings  # noqa: E402


def error(found, truth) -> float:
    """Mean corner error in card widths."""
    return float(np.linalg.norm(card_frame_error(np.asarray(found), np.asarray(truth)), axis=1).mean())


def landings(sim: TableSimulator, settle: int):
    """(before image, after image, truth corners, on a pile, hands over the table) per card laid.

    "Before" is what the tracker would have: the :class:`StillBackground` fed with the
    tracker's motion masks, as it was when the card was first seen (in the hand)."""
    settings = TrackerSettings()
    rest = {e.card: e.frame for e in sim.expected if e.type == "appeared" and e.card}
    background = StillBackground()
    prev = None
    before: dict[str, np.ndarray] = {}
    for frame in sim.frames():
        h, w = frame.image.shape[:2]
        size = (settings.motion_width, max(1, round(h * settings.motion_width / w)))
        small = small_grey(frame.image, size)
        background.update(frame.image, None if prev is None else changed_pixels(prev, small, settings.motion_threshold))
        prev = small
        present = {c.code for c in frame.cards}
        for code in rest:
            if code in present and code not in before:
                before[code] = background.snapshot()
        for code, at in rest.items():
            if frame.index == at + settle and code in before:
                card = next((c for c in frame.cards if c.code == code), None)
                if card is None or card.moving:
                    continue
                under = [c for c in frame.cards if c.code != code]
                pile = any(covered_fraction(c.corners, card.corners) > 0.05 for c in under)
                yield before.pop(code), frame.image, card.corners, pile, frame.hands


def measure(seeds: int, tricks: int, settle: int, report) -> dict:
    from vision.localise import find_cards

    groups: dict[str, list[dict]] = defaultdict(list)
    for seed in range(1, seeds + 1):
        for conditions in ("easy", "hard"):
            players = (4, 5)[seed % 2]
            script = french_deal_script(random_tricks(tricks, players, seed), players=players)
            sim = TableSimulator(script, players=players, seed=seed, size=(960, 540), conditions=conditions)
            for before, after, truth, pile, hands in landings(sim, settle):
                quads = [np.asarray(q, np.float32).reshape(4, 2) for q in find_cards(after)]
                width = sides(truth)[0]
                near = [q for q in quads if quad_distance(q, truth) < 0.5 * width]
                if not near:
                    groups[f"{conditions} {'pile' if pile else 'alone'}"].append({"hint": None})
                    continue
                hint = min(near, key=lambda q: quad_distance(q, truth))
                t0 = time.perf_counter()
                outline, why = explain_outline(before, after, hint)
                ms = 1000 * (time.perf_counter() - t0)
                row = {"hint": error(hint, truth), "outline": None if outline is None else error(outline, truth),
                       "ms": ms, "hands": hands, "why": why}
                groups[f"{conditions} {'pile' if pile else 'alone'}"].append(row)
            report(f"seed {seed}: {sum(len(g) for g in groups.values())} cards laid so far")
    return groups


def summary(rows: list[dict]) -> dict:
    found = [r for r in rows if r["hint"] is not None]
    out = [r for r in found if r["outline"] is not None]
    used = [r["outline"] if r["outline"] is not None else r["hint"] for r in found]

    def stats(values):
        return None if not values else {"median": float(np.median(values)), "p90": float(np.percentile(values, 90))}

    return {"cards": len(rows), "with_quad": len(found), "outline_found": len(out),
            "quad": stats([r["hint"] for r in found]), "outline": stats([r["outline"] for r in out]),
            "quad_where_outline": stats([r["hint"] for r in out]), "used": stats(used),
            "outline_closer": sum(r["outline"] < r["hint"] for r in out),
            "ms": float(np.mean([r["ms"] for r in found])) if found else None,
            "not_found": dict(Counter(r["why"] for r in found if r["outline"] is None))}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=6)
    p.add_argument("--tricks", type=int, default=2, help="tricks per simulated deal")
    p.add_argument("--settle", type=int, default=3, help="frames after the card came to rest")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    import cv2

    cv2.setNumThreads(1)
    started = time.perf_counter()
    groups = measure(a.seeds, a.tricks, a.settle, lambda text: print(text, file=sys.stderr, flush=True))
    result = {name: summary(rows) for name, rows in sorted(groups.items())}
    if a.json:
        print(json.dumps(result, indent=1))
        return 0

    def f(s):
        return "      –      " if s is None else f"{100 * s['median']:5.1f} / {100 * s['p90']:5.1f}"

    print(f"corner error, % of a card width, median / p90 ({time.perf_counter() - started:.0f} s)")
    print(f"{'cards':<12} {'laid':>5} {'quad':>5} {'outline':>8}  {'finder quad':>13}  {'outline':>13}  "
          f"{'quad there':>13}  {'cropped':>13}  {'closer':>6}  {'ms':>5}")
    for name, s in result.items():
        print(f"{name:<12} {s['cards']:>5} {s['with_quad']:>5} {s['outline_found']:>8}  {f(s['quad']):>13}  "
              f"{f(s['outline']):>13}  {f(s['quad_where_outline']):>13}  {f(s['used']):>13}  "
              f"{s['outline_closer']:>6}  {s['ms'] or 0:>5.1f}")
    print("\nno outline, why (cards):")
    for name, s in result.items():
        if s["not_found"]:
            print(f"  {name:<12} " + ", ".join(f"{why} {n}" for why, n in sorted(s["not_found"].items(), key=lambda kv: -kv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

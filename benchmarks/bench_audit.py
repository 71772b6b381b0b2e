"""Nothing vanishes: how many cards the card finder never found the still table's audit asks for.

    .venv/bin/python benchmarks/bench_audit.py [--seeds 4] [--tricks 4] [--players 4]

On the simulated table (960x540, easy and hard), French tarot tricks are
tracked with the simulator's ground truth as the card finder and namer, except
that the finder never finds one card of each trick (the ``--drop``-th card
laid, default the second): the card a real finder misses in a pile. Each deal
is tracked with the audit off and on (``TrackerSettings(audit=True)``). Per
table: the cards dropped; those the audit asked for (an ``uncertain`` event
whose best candidate is that card), and how many of them before the next card
of the trick was reported (in time for the seat whose turn it was); questions
about anything else (no card dropped there); the cards the tracker reported
right; the audit's cost (ms per audit, and per frame over the whole run, one
thread).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402

from vision.simulator import GroundTruthRecogniser, TableSimulator, french_deal_script, random_tricks  # noqa: E402
from vision.sources import Frame  # noqa: E402
from vision.tracker import Tracker, TrackerSettings  # noqa: E402


def run(seed: int, tricks: int, players: int, conditions: str, drop: int, audit: bool) -> dict:
    deal = random_tricks(tricks, players, seed)
    dropped = {t.cards[drop] for t in deal}
    sim = TableSimulator(french_deal_script(deal, players=players), players=players, seed=seed, size=(960, 540),
                         conditions=conditions)
    oracle = GroundTruthRecogniser(sim)

    def finder(image):
        return [q for q in oracle.localise(image) if oracle.crop(image, q) not in dropped]

    tracker = Tracker(sim.zones, localiser=finder, namer=oracle, cropper=oracle.crop,
                      settings=replace(TrackerSettings(), audit=audit))
    audit_time = [0.0]
    if tracker._audit is not None:
        inner = tracker._audit.audit

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                audit_time[0] += time.perf_counter() - t0

        tracker._audit.audit = timed
    events, frames = [], 0
    for f in oracle.frames():
        events += tracker.process(Frame(f.image, f.timestamp, f.index))
        frames += 1
    events += tracker.flush()
    order = [c for t in deal for c in t.cards]
    reported = [e for e in events if e.type == "appeared"]
    asked = [e for e in events if e.type == "uncertain"]
    found = in_time = other = 0
    for e in asked:
        best = next((c for c, _ in e.candidates if c), None)
        if best in dropped:
            found += 1
            nxt = order[order.index(best) + 1] if order.index(best) + 1 < len(order) else None
            later = next((r.frame for r in reported if r.card == nxt), None)
            in_time += later is None or e.frame <= later
        else:
            other += 1
    return {"dropped": len(dropped), "found": found, "in_time": in_time, "other": other,
            "right": sum(e.card in order and e.card not in dropped for e in reported),
            "cards": len(order) - len(dropped), "audits": tracker.stats.audits,
            "audit_s": audit_time[0], "frames": frames, "track_s": tracker.stats.total()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("--tricks", type=int, default=4)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--drop", type=int, default=1, help="the card of each trick the finder never finds (0: the first)")
    a = p.parse_args(argv)
    cv2.setNumThreads(1)
    print(f"Tarotmate still-table audit: {a.seeds} deals x {a.tricks} tricks, {a.players} players, 960x540, "
          f"card {a.drop + 1} of each trick never found; ground-truth finder and namer otherwise")
    print(f"{'table':6} {'audit':5} {'dropped':>7} {'asked':>6} {'in time':>7} {'other q':>7} {'right':>9} "
          f"{'audits':>6} {'ms/audit':>8} {'ms/frame':>8}")
    for conditions in ("easy", "hard"):
        for audit in (False, True):
            rows = []
            for seed in range(1, a.seeds + 1):
                rows.append(run(seed, a.tricks, a.players, conditions, a.drop, audit))
                print(f"  {conditions} seed {seed} audit {'on' if audit else 'off'}: {rows[-1]}", file=sys.stderr)
            tot = {k: sum(r[k] for r in rows) for k in rows[0]}
            per_audit = 1000 * tot["audit_s"] / tot["audits"] if tot["audits"] else 0.0
            print(f"{conditions:6} {'on' if audit else 'off':5} {tot['dropped']:7d} {tot['found']:6d} {tot['in_time']:7d} "
                  f"{tot['other']:7d} {tot['right']:4d}/{tot['cards']:<4d} {tot['audits']:6d} {per_audit:8.2f} "
                  f"{1000 * tot['audit_s'] / max(1, tot['frames']):8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

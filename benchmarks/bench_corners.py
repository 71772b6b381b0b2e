"""Snapped corners of both card finders on the localisation tests' scenes, over many random angles.

    .venv/bin/python benchmarks/bench_corners.py [--scenes N] [--seed S]

Each scene is the one ``tests/vision/test_localise.py::test_any_rotation``
draws: six built-in cards at random angles on felt, 1280x720. The corner
error of a card is the largest distance between a found corner and the true
one over the card's long side (the tests' bound is 0.06). Prints, per finder,
the scenes whose worst card misses the bound, the worst error and the 99th
percentile of each scene's worst card, and the scenes that missed (angles and
seed: the arguments of ``scattered``), so that a miss can be replayed.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.vision.scenes import match  # noqa: E402
from tests.vision.test_localise import TOLERANCE, scattered  # noqa: E402
from vision.localise import localiser  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=150)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    print(f"{args.scenes} scenes of 6 cards (seed {args.seed}); bound {TOLERANCE} of the card's long side")
    print(f"{'finder':8} {'missed':>7} {'worst':>7} {'p99':>7}")
    for name in ("network", "classic"):
        rng = random.Random(args.seed)
        find = localiser(name)
        worst, missed = [], []
        for _ in range(args.scenes):
            angles = [round(rng.uniform(0, 360), 1) for _ in range(6)]
            seed = rng.randint(0, 1000)
            canvas, truths = scattered((50, 90, 40), angles, seed)
            found = find(canvas)
            errors = [match(found, t) for t in truths]
            worst.append(max(errors))
            if worst[-1] >= TOLERANCE:
                missed.append((angles, seed, int(np.argmax(errors)), worst[-1]))
        w = np.array(worst)
        print(f"{name:8} {len(missed):>3}/{len(w):<3} {w.max():7.4f} {np.percentile(w, 99):7.4f}")
        for angles, seed, card, error in missed:
            print(f"    missed: angles {angles} seed {seed}: card {card} at {error:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

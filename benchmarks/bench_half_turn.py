"""Does naming each crop also turned half a turn name more cards right, and fewer wrong?

    .venv/bin/python benchmarks/bench_half_turn.py [--crops 4800] [--models-dir DIR] [--json]

On held-out crops made like a real table (the crops of
``benchmarks/bench_calibration.py``: ``vision.training.data.make_batch`` with
every crop at a real table, 60 % of them cut with the card finder's measured
corner errors, 12 % not a card; seeds no training batch uses), the card model
names every crop as it is, then turned half a turn, then both ways as the
namer does with ``half_turn`` (:class:`vision.namer.Namer`: the two views'
mean logits). Per set (the
decks the model was trained on, the held-out decks): the share named right
(top class), and at the bars the table uses (the per-frame 0.3, the tracker's
0.6, 0.9) the share of crops named right and named wrong (a card that is not
the crop's, or a card for a crop that is none). The model's stored
temperature applies to all three. Rendering the crops takes about a minute per
thousand on one core here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.namer import Namer  # noqa: E402
from vision.training.data import HELD_OUT_DECKS, UNKNOWN_INDEX, namer_batches, real_table_recipe  # noqa: E402

SEED = 940_000_000  # bench_calibration.py's crops (training: 1e7 + ..., its held-out check: 9e8 + ...)
BARS = (0.3, 0.6, 0.9)
WAYS = ("as it is", "half a turn", "both, mean logits")


def figures(probs: np.ndarray, labels: np.ndarray, bars=BARS) -> dict:
    """Named right (top class) and, per bar, named right / wrong among all crops (shares)."""
    pred, conf = probs.argmax(1), probs.max(1)
    card = pred != UNKNOWN_INDEX
    out = {"right": float((pred == labels).mean()) if len(labels) else float("nan")}
    for bar in bars:
        named = card & (conf >= bar)
        out[str(bar)] = {"right": float((named & (pred == labels)).mean()), "wrong": float((named & (pred != labels)).mean())}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"))
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"))
    p.add_argument("--models-dir", default=None)
    p.add_argument("--crops", type=int, default=4800)
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    a = p.parse_args(argv)
    if not Path(a.decks).is_dir():
        print(f"bench_half_turn: no decks in {a.decks} (the crops are drawn from deck scans)", file=sys.stderr)
        return 2
    bg = a.backgrounds if Path(a.backgrounds).is_dir() else None
    recipe = real_table_recipe(a.decks, bg, ROOT / "models" / "training" / "corner_errors.npz")
    namer = Namer.load(a.models_dir, threads=1)
    probs = {way: [] for way in WAYS}
    labels, sources = [], []
    for crops, y, src in namer_batches(recipe, a.crops, SEED):
        for way, views, half_turn in zip(WAYS, (crops, [c[::-1, ::-1] for c in crops], crops), (False, False, True)):
            namer.half_turn = half_turn  # the last: the namer's own half-turn naming
            probs[way].append(namer.run(views)[0])
        labels.append(y)
        sources += src
        print(f"\rcrops {len(sources)}/{a.crops}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    labels = np.concatenate(labels)
    probs = {way: np.concatenate(v) for way, v in probs.items()}
    held = np.array([s in HELD_OUT_DECKS for s in sources])
    res = {"model": str(namer.model_path), "crops": len(labels), "sets": {}}
    for name, mask in (("trained-on decks", ~held), ("held-out decks", held)):
        res["sets"][name] = {"crops": int(mask.sum()),
                             **{way: figures(probs[way][mask], labels[mask]) for way in WAYS}}
    if a.json:
        print(json.dumps(res, indent=1))
        return 0
    print(f"Half-turn naming: {res['crops']} held-out real-table crops, model {res['model']}")
    header = "   ".join(f"at {b:g}: right / wrong" for b in BARS)
    for name, fig in res["sets"].items():
        print(f"{name} ({fig['crops']} crops)")
        print(f"  {'named':<20} {'right':>6}   {header}")
        for way in WAYS:
            f = fig[way]
            print(f"  {way:<20} {100 * f['right']:5.1f} %   " + "   ".join(
                f"{100 * f[str(b)]['right']:5.1f} / {100 * f[str(b)]['wrong']:4.1f} %" for b in BARS))
    return 0


if __name__ == "__main__":
    sys.exit(main())

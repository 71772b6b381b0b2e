"""Does the card model's confidence mean what it says? Expected calibration error and a reliability diagram.

    .venv/bin/python benchmarks/bench_calibration.py [--crops 2400] [--models-dir DIR] [--png models/calibration.png] [--json]

On held-out crops made like a real table (``vision.training.data.make_batch``
with every crop at a real table, 60 % of them cut with the card finder's
measured corner errors, 12 % not a card; seeds no training batch uses), for
the trained-on decks and the held-out decks apart: the expected calibration
error (15 equal-width bins of the top probability, weighted by crops), the
share right among the crops reported at 0.9 and above, and the same after
temperature scaling (``softmax(log p / T)``, T fitted by the least negative
log-likelihood on the first half of the trained-on decks' crops and measured
on the rest; a model that already stores a temperature is measured with it, and
the temperature to store is the product). Per bar (0.5 ... 0.999), raw and
scaled: the share of real cards named right at that probability or more, and
the wrong ones among those named: what a commit bar costs and buys, per crop. Draws the reliability diagram (accuracy per bin against the
diagonal) to ``--png``. Rendering the crops takes about a minute per thousand
on one core here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # chart.py

from vision.calibration import ece, fit_temperature, reliability, scaled  # noqa: E402
from vision.namer import Namer  # noqa: E402
from vision.training.data import HELD_OUT_DECKS, UNKNOWN_INDEX, namer_batches, real_table_recipe  # noqa: E402

CAL_SEED = 940_000_000  # seeds of the calibration crops (training: 1e7 + ..., its held-out check: 9e8 + ...)


def figures(probs: np.ndarray, labels: np.ndarray) -> dict:
    conf, pred = probs.max(1), probs.argmax(1)
    right = pred == labels
    high = conf >= 0.9
    return {"crops": int(len(labels)), "ece": ece(conf, right), "accuracy": float(right.mean()),
            "reported_at_0.9": int(high.sum()), "right_at_0.9": float(right[high].mean()) if high.any() else None}


BARS = (0.5, 0.6, 0.8, 0.9, 0.95, 0.99, 0.999)


def bars(probs: np.ndarray, labels: np.ndarray, bars=BARS) -> list[dict]:
    """Per bar: the share of the real cards named at that probability or more, and how many of
    the crops so named (a card face or not) are right: what a bar costs and what it buys."""
    conf, pred = probs.max(1), probs.argmax(1)
    cards = labels != UNKNOWN_INDEX
    out = []
    for bar in bars:
        named = (conf >= bar) & (pred != UNKNOWN_INDEX)
        right = named & (pred == labels)
        out.append({"bar": bar, "named": float(right[cards].sum() / max(1, cards.sum())),
                    "named_crops": int(named.sum()), "wrong_crops": int((named & ~right).sum()),
                    "precision": float(right.sum() / named.sum()) if named.any() else None})
    return out


def draw(curves: dict, path: Path) -> None:
    from chart import canvas

    W, H, M = 620, 660, 60
    img, d, font = canvas(W, H)
    side = W - 2 * M

    def xy(c, a):
        return M + side * c, M + side * (1 - a)

    d.text((M, 15), "Tarotmate card model: reliability (accuracy by confidence)", fill="black", font=font)
    for v in np.linspace(0, 1, 11):
        x, _ = xy(v, 0)
        _, y = xy(0, v)
        d.line([(x, M), (x, M + side)], fill=(235, 235, 235))
        d.line([(M, y), (M + side, y)], fill=(235, 235, 235))
        d.text((x - 8, M + side + 5), f"{v:.1f}", fill="black", font=font)
        d.text((M - 30, y - 7), f"{v:.1f}", fill="black", font=font)
    d.line([xy(0, 0), xy(1, 1)], fill=(160, 160, 160), width=1)
    d.rectangle([M, M, M + side, M + side], outline="black")
    colours = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (148, 103, 189)]
    for k, (name, pts) in enumerate(curves.items()):
        colour = colours[k % len(colours)]
        xs = [xy(c, a) for c, a, _ in pts]
        if len(xs) > 1:
            d.line(xs, fill=colour, width=2)
        for (x, y), (_, _, n) in zip(xs, pts):
            r = 2 + min(5, n ** 0.5 / 6)
            d.ellipse([x - r, y - r, x + r, y + r], fill=colour)
        d.text((M, M + side + 28 + 18 * k), f"— {name}", fill=colour, font=font)
    d.text((M + side - 160, M + side + 28), "x: confidence, y: share right", fill="black", font=font)
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"))
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"))
    p.add_argument("--models-dir", default=None)
    p.add_argument("--crops", type=int, default=2400)
    p.add_argument("--png", default=str(ROOT / "models" / "calibration.png"))
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    a = p.parse_args(argv)
    decks = a.decks if Path(a.decks).is_dir() else None
    bg = a.backgrounds if Path(a.backgrounds).is_dir() else None
    recipe = real_table_recipe(decks, bg, ROOT / "models" / "training" / "corner_errors.npz")
    namer = Namer.load(a.models_dir, threads=1)
    probs, labels, sources = [], [], []
    for crops, y, src in namer_batches(recipe, a.crops, CAL_SEED):
        pr, _ = namer.run(crops)
        probs.append(pr)
        labels.append(y)
        sources += src
        print(f"\rcrops {len(sources)}/{a.crops}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    probs, labels = np.concatenate(probs), np.concatenate(labels)
    # the namer's labels are engine.cards.CODES then unknown: the same order as training's
    held = np.array([s in HELD_OUT_DECKS for s in sources])
    trained = ~held
    idx = np.flatnonzero(trained)
    fit, test = idx[: len(idx) // 2], idx[len(idx) // 2:]
    t = fit_temperature(probs[fit], labels[fit])
    res = {
        "model": str(namer.model_path), "threshold": namer.threshold, "temperature": t,
        "model_temperature": namer.temperature, "calibrated_temperature": namer.temperature * t,
        "trained_decks": figures(probs[test], labels[test]),
        "trained_decks_scaled": figures(scaled(probs[test], t), labels[test]),
        "held_out_decks": figures(probs[held], labels[held]) if held.any() else None,
        "held_out_decks_scaled": figures(scaled(probs[held], t), labels[held]) if held.any() else None,
        "unknown_crops": int((labels == UNKNOWN_INDEX).sum()),
        "bars": {"trained_decks": bars(probs[test], labels[test]),
                 "trained_decks_scaled": bars(scaled(probs[test], t), labels[test]),
                 "held_out_decks": bars(probs[held], labels[held]) if held.any() else None,
                 "held_out_decks_scaled": bars(scaled(probs[held], t), labels[held]) if held.any() else None},
    }
    curves = {"trained-on decks": reliability(probs[test].max(1), probs[test].argmax(1) == labels[test]),
              f"trained-on decks, T = {t:.2f}": reliability(scaled(probs[test], t).max(1), scaled(probs[test], t).argmax(1) == labels[test])}
    if held.any():
        curves["held-out decks"] = reliability(probs[held].max(1), probs[held].argmax(1) == labels[held])
    draw(curves, Path(a.png))
    if a.json:
        print(json.dumps(res, indent=1))
        return 0
    print(f"model {res['model']} (threshold {namer.threshold}); {len(labels)} real-table crops, {res['unknown_crops']} not a card")

    def line(name, f):
        if f is None:
            return
        r9 = "–" if f["right_at_0.9"] is None else f"{100 * f['right_at_0.9']:.1f} %"
        print(f"  {name:36s} crops {f['crops']:5d}  accuracy {100 * f['accuracy']:5.1f} %  ECE {100 * f['ece']:5.2f} %  "
              f"reported at >= 0.9: {f['reported_at_0.9']:5d}, right {r9}")

    line("trained-on decks (second half)", res["trained_decks"])
    line(f"  ... temperature {t:.2f}", res["trained_decks_scaled"])
    line("held-out decks", res["held_out_decks"])
    line(f"  ... temperature {t:.2f}", res["held_out_decks_scaled"])
    print("\nper bar (a crop named at that probability or more): the real cards named right, the crops "
          "named wrong / named, precision")
    for name, rows in res["bars"].items():
        if rows:
            print(f"  {name:22s} " + "  ".join(
                f"{r['bar']:g}: {100 * r['named']:4.1f} % {r['wrong_crops']}/{r['named_crops']}"
                + ("" if r["precision"] is None else f" {100 * r['precision']:.1f} %") for r in rows))
    print(f"reliability diagram: {a.png}")
    print(f"to store the calibration (the model's {namer.temperature:g} times {t:.2f}; then measure its thresholds again):\n"
          f"  .venv-train/bin/python -m vision.training.set_threshold {namer.model_path} "
          f"{namer.temperature * t:.3f} --temperature --source \"bench_calibration.py, {len(fit)} real-table crops\"")
    return 0


if __name__ == "__main__":
    sys.exit(main())

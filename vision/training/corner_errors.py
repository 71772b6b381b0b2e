"""The locator's real corner error at a real table, measured, and kept for the namer to train on.

    .venv/bin/python -m vision.training.corner_errors [--scenes 240] [--out models/training/corner_errors.npz]

On real-table scenes of the trained-on decks (``vision.synth.make_table_scene``,
seeds of their own: neither the benchmark's nor the training crops'), each
target card that the shipped card finder finds (a quad with IoU >= 0.5) gives
the error of its four corners, in the card's own frame: along its short side
and along its long side, in card widths (both quads ordered by
:func:`vision.quad_fit.order_quad`, the found one turned half a turn when that
fits better; :mod:`vision.quad_error`). Prints the error by condition (median and 90th percentile of
the mean corner error, the share of quads off by more than 10 % of a width),
and writes the errors with their condition labels to ``--out``: the card
model's real-table crops draw their corners' error from them
(``Recipe.corner_errors``), so the namer learns the quads it will be given.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SEED_BASE = 8_300_000  # scene seeds of this measurement (bench: 7.5e6; training crops: 1e7 and up)
DEFAULT_OUT = ROOT / "models" / "training" / "corner_errors.npz"

from vision.quad_error import apply_error, card_frame_error  # noqa: E402  (re-exported: the measurement's own terms)

__all__ = ["apply_error", "card_frame_error", "measure", "summary"]


def measure(scenes: int, decks_dir: str | None, backgrounds: str | None, report=print,
            locator: str | None = None) -> tuple[np.ndarray, list[list[str]]]:
    import cv2

    from vision import synth
    from vision.localise import localiser
    from vision.training.data import held_out_present, training_decks

    cv2.setNumThreads(1)
    if locator:  # a candidate card finder (its own locator.onnx)
        from vision.locator import CardLocator

        find = CardLocator.load(locator)
    else:
        find = localiser(None)  # the shipped card finder (the network when models/locator.onnx is there)
    decks = training_decks(decks_dir, held_out_present(decks_dir))
    errors, labels = [], []
    found_n = targets = 0
    names = list(decks)
    for i in range(scenes):
        rng = np.random.default_rng(SEED_BASE + i)
        faces = decks[names[i % len(names)]]
        scene = synth.make_table_scene(rng, faces, size=(1280, 720), layout="pile" if i % 2 else "scattered",
                                       backgrounds_dir=backgrounds, back=synth.builtin_back() if rng.random() < 0.3 else None)
        quads = [np.asarray(q, np.float32).reshape(4, 2) for q in find(scene.image)]
        for card in scene.cards:
            if card.visible < 0.3:
                continue
            targets += 1
            best = max(((_iou(q, card.corners), q) for q in quads), default=(0.0, None), key=lambda t: t[0])
            if best[0] < 0.5:
                continue
            found_n += 1
            errors.append(card_frame_error(best[1], card.corners))
            labels.append(sorted(card.labels))
        if report and (i + 1) % 40 == 0:
            report(f"  {i + 1}/{scenes} scenes, {found_n}/{targets} cards found")
    return np.array(errors, np.float32).reshape(-1, 4, 2), labels


def _iou(a, b) -> float:
    import cv2

    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = abs(cv2.contourArea(a)) + abs(cv2.contourArea(b)) - inter
    return float(inter / union) if union > 0 else 0.0


def summary(errors: np.ndarray, labels: list[list[str]]) -> list[tuple[str, int, float, float, float]]:
    """(condition, cards, median and p90 of the mean corner error in % of a width, % off by > 10 %)."""
    mean = np.linalg.norm(errors, axis=2).mean(1) * 100 if len(errors) else np.zeros(0)
    groups = defaultdict(list)
    for k, labs in enumerate(labels):
        groups["all"].append(k)
        for lab in labs:
            groups[lab].append(k)
    rows = []
    for name, idx in sorted(groups.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        m = mean[idx]
        rows.append((name, len(idx), float(np.median(m)), float(np.percentile(m, 90)), float((m > 10).mean() * 100)))
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="corner_errors", description=__doc__.splitlines()[0])
    p.add_argument("--scenes", type=int, default=240)
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"))
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"))
    p.add_argument("--out", default=str(DEFAULT_OUT))
    p.add_argument("--locator", help="a candidate card finder's locator.onnx (default: the shipped one)")
    a = p.parse_args(argv)
    decks = a.decks if Path(a.decks).is_dir() else None
    bg = a.backgrounds if Path(a.backgrounds).is_dir() else None
    if a.locator and not Path(a.locator).is_file():
        print(f"error: no card finder at {a.locator}", file=sys.stderr)
        return 2
    errors, labels = measure(a.scenes, decks, bg, report=lambda s: print(s, file=sys.stderr, flush=True),
                             locator=a.locator)
    if not len(errors):
        print("error: the card finder found no card in these scenes", file=sys.stderr)
        return 1
    print(f"the locator's corner error on {len(errors)} cards found in {a.scenes} real-table scenes "
          f"(mean of the four corners, % of the card's width)")
    print(f"{'condition':14s} {'cards':>6s} {'median':>7s} {'p90':>7s} {'>10%':>6s}")
    for name, n, med, p90, off in summary(errors, labels):
        print(f"{name:14s} {n:6d} {med:7.1f} {p90:7.1f} {off:6.1f}")
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    with open(tmp, "wb") as fh:
        np.savez_compressed(fh, errors=errors, labels=np.array(["|".join(x) for x in labels]))
    tmp.replace(out)
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

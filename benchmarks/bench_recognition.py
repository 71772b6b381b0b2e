"""Card recognition benchmark: localisation + naming on freshly synthesised scenes.

    .venv/bin/python benchmarks/bench_recognition.py [--scenes N] [--tricks N] [--quick]

For the built-in deck and every deck of ``../shared/decks``: scenes of
1280x720 with scattered cards and distractors (card backs, hand-like blobs,
coins), and scenes with a trick of 4 overlapping cards, all drawn with seeds
the training never used (same decks, new scenes: not unseen decks). A card is
*found* when a detected quad overlaps it with IoU >= 0.5, *named right* when
that detection carries its code. A *false detection* is a named detection
that matches no card. Close-ups are single straightened cards named without
localisation (what ``tarotmate classify --whole`` does). Unknown rejection is
measured on crops of backs, hands, coins, empty table patches and cards mostly
outside the crop. Times are for one thread (OpenCV and onnxruntime), as wall
clock and as the CPU time of that thread (which a machine shared with other
jobs inflates much less than the wall clock).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision import synth  # noqa: E402
from vision.localise import LOCALISERS, localiser  # noqa: E402
from vision.namer import MODEL_FILE, Namer, models_dir  # noqa: E402
from vision.warp import warp_card  # noqa: E402

TIMES = ("loc_ms", "cls_ms", "loc_cpu", "cls_cpu", "loc_warm_cpu")  # per-frame time series (ms)
SEED_BASE = 7_000_000  # scene seeds; training draws crops from other seeds


def iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = abs(cv2.contourArea(a)) + abs(cv2.contourArea(b)) - inter
    return float(inter / union) if union > 0 else 0.0


def bench_scenes(d: int, faces, n_scenes: int, n_tricks: int, bg):
    """The benchmark's scenes for the deck at index ``d``: ``n_scenes`` scattered, then
    ``n_tricks`` with a trick of four cards (fixed seeds; also used by baseline_orb.py)."""
    for i in range(n_scenes + n_tricks):
        rng = np.random.default_rng(SEED_BASE + 10_000 * d + i)
        trick = 4 if i >= n_scenes else 0
        yield synth.make_scene(
            rng, faces, n_cards=int(rng.integers(1, 4)) if trick else int(rng.integers(2, 6)),
            trick=trick, distractors=int(rng.integers(0, 3)), backgrounds_dir=bg,
            back=synth.builtin_back() if rng.random() < 0.3 else None,
        )


def evaluate_scene(scene, namer, stats, key, find_cards):
    t0, c0 = time.perf_counter(), time.thread_time()
    quads = find_cards(scene.image)
    t1, c1 = time.perf_counter(), time.thread_time()
    find_cards(scene.image)  # the same frame again: warm caches (a fresh frame's cost is the first call)
    stats["loc_warm_cpu"].append((time.thread_time() - c1) * 1000)
    t1, c1 = time.perf_counter(), time.thread_time()
    crops = [warp_card(scene.image, q, namer.input_size) for q in quads]
    namings = namer.name(crops) if crops else []
    t2, c2 = time.perf_counter(), time.thread_time()
    stats["loc_ms"].append((t1 - t0) * 1000)
    stats["cls_ms"].append((t2 - t1) * 1000)
    stats["loc_cpu"].append((c1 - c0) * 1000)
    stats["cls_cpu"].append((c2 - c1) * 1000)
    stats["crops"] += len(crops)
    used = set()
    for pc in scene.cards:
        k = key if not pc.in_trick else key + "_trick"
        stats[k + "_cards"] += 1
        scores = [iou(q, pc.corners) for q in quads]
        j = int(np.argmax(scores)) if scores else -1
        if j >= 0 and scores[j] >= 0.5:
            used.add(j)
            stats[k + "_found"] += 1
            stats[k + "_named"] += int(namings[j].card == pc.code)
    for j, n in enumerate(namings):
        if j not in used and n.card is not None:
            stats["false"] += 1
        if j not in used and n.card is None:
            stats["rejected_extra"] += 1


def closeups(rng, faces, namer, n, size):
    picks = rng.choice(len(faces), n)
    crops = [synth.make_crop(rng, faces[i], size, jitter=0.03, effects=0.8, colour=0.5) for i in picks]
    names = namer.name(crops)
    return sum(nm.card == faces[i].code for nm, i in zip(names, picks))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"))
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"))
    p.add_argument("--scenes", type=int, default=30, help="scattered scenes per deck")
    p.add_argument("--tricks", type=int, default=15, help="trick scenes per deck")
    p.add_argument("--closeups", type=int, default=156, help="close-up crops per deck")
    p.add_argument("--unknown", type=int, default=300, help="unknown crops")
    p.add_argument("--localiser", choices=LOCALISERS, default=None, help="card finder (default: the network when models/locator.onnx is there)")
    p.add_argument("--quick", action="store_true")
    a = p.parse_args(argv)
    if a.quick:
        a.scenes, a.tricks, a.closeups, a.unknown = 6, 3, 40, 60
    cv2.setNumThreads(1)
    namer = Namer.load(threads=1)
    find_cards = localiser(a.localiser)
    # the runtime's own footprint: model loaded, one frame localised and a few crops named
    frame = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    find_cards(frame)
    namer.name([np.zeros((namer.input_size[1], namer.input_size[0], 3), np.uint8)] * 4)
    runtime_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    bg = a.backgrounds if Path(a.backgrounds).is_dir() else None
    decks = {"builtin": synth.builtin_faces()}
    if Path(a.decks).is_dir():
        for folder in synth.deck_folders(a.decks):
            decks[folder.name] = synth.load_deck(str(folder))
    else:
        print(f"({a.decks} absent: built-in deck only)")
    rows = []
    from collections import defaultdict

    total = defaultdict(float)
    for k in TIMES:
        total[k] = []
    for d, (name, faces) in enumerate(decks.items()):
        stats = defaultdict(int)
        for k in TIMES:
            stats[k] = []
        for scene in bench_scenes(d, faces, a.scenes, a.tricks, bg):
            evaluate_scene(scene, namer, stats, "s", find_cards)
        rng = np.random.default_rng(SEED_BASE + 10_000 * d + 9_999)
        close = closeups(rng, faces, namer, a.closeups, namer.input_size)
        cards = stats["s_cards"] + stats["s_trick_cards"]
        rows.append((
            name,
            stats["s_cards"], 100 * stats["s_found"] / max(1, stats["s_cards"]), 100 * stats["s_named"] / max(1, stats["s_cards"]),
            stats["s_trick_cards"], 100 * stats["s_trick_found"] / max(1, stats["s_trick_cards"]), 100 * stats["s_trick_named"] / max(1, stats["s_trick_cards"]),
            100 * stats["false"] / max(1, cards), 100 * close / a.closeups,
        ))
        for k in TIMES:
            total[k] += stats[k]
        total["crops"] += stats["crops"]
    # unknown rejection on crops
    rng = np.random.default_rng(SEED_BASE - 1)
    pool = decks[list(decks)[-1]]
    unk = [synth.make_unknown_crop(rng, namer.input_size, pool, bg) for _ in range(a.unknown)]
    rejected = sum(n.card is None for n in namer.name([c for c, _ in unk]))
    by_kind = defaultdict(lambda: [0, 0])
    for (c, kind), n in zip(unk, namer.name([c for c, _ in unk])):
        by_kind[kind][0] += n.card is None
        by_kind[kind][1] += 1

    print(f"localiser: {type(find_cards).__name__}")
    print(f"model: {MODEL_FILE} {os.path.getsize(models_dir() / MODEL_FILE) / 1e6:.2f} MB, input {namer.input_size[0]}x{namer.input_size[1]}, threshold {namer.threshold}")
    print(f"{'deck':28s} {'cards':>5s} {'found%':>7s} {'named%':>7s} | {'trick':>5s} {'found%':>7s} {'named%':>7s} | {'false%':>6s} | {'close-up%':>9s}")
    for r in rows:
        print(f"{r[0]:28s} {r[1]:5d} {r[2]:7.1f} {r[3]:7.1f} | {r[4]:5d} {r[5]:7.1f} {r[6]:7.1f} | {r[7]:6.1f} | {r[8]:9.1f}")
    print(f"unknown crops rejected: {100 * rejected / a.unknown:.1f}% of {a.unknown} (" + ", ".join(f"{k} {100 * v[0] / v[1]:.0f}%" for k, v in sorted(by_kind.items())) + ")")
    crops = max(1, total["crops"])
    for label, lk, ck in (("wall clock", "loc_ms", "cls_ms"), ("CPU time of the thread", "loc_cpu", "cls_cpu")):
        loc, cls = np.array(total[lk]), np.array(total[ck])
        print(f"per 1280x720 frame, 1 thread, {label}: localisation median {np.median(loc):.1f} ms (p90 {np.percentile(loc, 90):.1f}); "
              f"classification median {np.median(cls):.1f} ms per frame, {cls.sum() / crops:.2f} ms per crop (warp + model)")
    warm = np.array(total["loc_warm_cpu"])
    print(f"localisation of the same frame a second time (warm caches), CPU time: median {np.median(warm):.1f} ms (p90 {np.percentile(warm, 90):.1f})")
    print(f"peak memory (ru_maxrss): {runtime_rss:.0f} MB with the model loaded and a frame processed; "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB for the whole benchmark (deck scans and scene synthesis)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

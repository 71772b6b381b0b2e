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
from vision import table_conditions  # noqa: E402
from vision.localise import LOCALISERS, localiser  # noqa: E402
from vision.namer import MODEL_FILE, Namer, models_dir  # noqa: E402
from vision.training.data import HELD_OUT_DECKS  # noqa: E402
from vision.warp import warp_card  # noqa: E402

TIMES = ("loc_ms", "cls_ms", "loc_cpu", "cls_cpu", "loc_warm_cpu")  # per-frame time series (ms)
SEED_BASE = 7_000_000  # scene seeds; training draws crops from other seeds
TABLE_SEED_BASE = 7_500_000  # real-table scene seeds (training never draws these)
MIN_VISIBLE = 0.3  # a real-table card this uncovered and inside the frame is a target; less: neither hit nor miss
MIN_INSIDE = 0.9
LOW_RES_HEIGHT = 150  # the low-resolution variant of a scan: faces this tall, JPEG'd, in 640x480 frames


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


# ---------------------------------------------------------------- the real-table set
def low_res_deck(faces, height: int = LOW_RES_HEIGHT, quality: int = 60):
    """A low-resolution copy of a deck's scans: each face shrunk to ``height`` rows and JPEG'd."""
    out = []
    for f in faces:
        k = height / f.bgr.shape[0]
        small = cv2.resize(f.bgr, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])
        small = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        alpha = cv2.resize(f.alpha, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_AREA)
        out.append(synth.Face(f.code, small, alpha))
    return tuple(out)


def recoloured_deck(faces, hue: float = 14, saturation: float = 0.75, gamma: float = 0.85):
    """A copy of a deck in another colouring: hues turned by ``hue`` (OpenCV units, 180 a turn),
    saturation scaled, a gamma on the value (another printing of the same art)."""
    out = []
    for f in faces:
        hsv = cv2.cvtColor(f.bgr, cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[..., 0] = (hsv[..., 0] + hue) % 180
        hsv[..., 1] *= saturation
        hsv[..., 2] = 255 * (hsv[..., 2] / 255) ** gamma
        out.append(synth.Face(f.code, cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR), f.alpha))
    return tuple(out)


def table_decks(decks: dict) -> list[tuple[str, tuple, tuple[int, int]]]:
    """(name, faces, frame size) of the real-table set: every deck at 1280x720; the first
    Rider-Waite-Smith scan again recoloured (another colouring of art the model has seen) and as
    a low-resolution scan in 640x480 frames."""
    out = [(name, faces, (1280, 720)) for name, faces in decks.items()]
    rws = next((n for n in decks if "rws" in n), None)
    if rws:
        out.append((f"{rws} recoloured", recoloured_deck(decks[rws]), (1280, 720)))
        out.append((f"{rws} low-res 640x480", low_res_deck(decks[rws]), (640, 480)))
    return out


def table_scenes(d: int, faces, n_scenes: int, bg, size=(1280, 720)):
    """Real-table scenes for deck index ``d``: half a trick pile, half scattered cards (fixed seeds)."""
    for i in range(n_scenes):
        rng = np.random.default_rng(TABLE_SEED_BASE + 10_000 * d + i)
        yield synth.make_table_scene(rng, faces, size=size, layout="pile" if i % 2 else "scattered", backgrounds_dir=bg,
                                     back=synth.builtin_back() if rng.random() < 0.3 else None)


def is_target(card) -> bool:
    return card.visible >= MIN_VISIBLE and card.inside >= MIN_INSIDE


def evaluate_table_scene(scene, namer, find_cards, stats, per_label) -> None:
    """Score one real-table frame into ``stats`` (per deck) and ``per_label`` (per condition)."""
    t0 = time.thread_time()
    quads = find_cards(scene.image)
    t1 = time.thread_time()
    crops = [warp_card(scene.image, q, namer.input_size) for q in quads]
    namings = namer.name(crops) if crops else []
    t2 = time.thread_time()
    stats["loc_cpu"].append((t1 - t0) * 1000)
    stats["cls_cpu"].append((t2 - t1) * 1000)
    stats["frame_cpu"].append((t2 - t0) * 1000)
    targets = [c for c in scene.cards if is_target(c)]
    ignored = [c for c in scene.cards if not is_target(c)]
    oracle = namer.name([warp_card(scene.image, c.corners, namer.input_size) for c in targets]) if targets else []
    used = set()
    for card, orc in zip(targets, oracle):
        scores = [iou(q, card.corners) for q in quads]
        j = int(np.argmax(scores)) if scores else -1
        found = j >= 0 and scores[j] >= 0.5 and j not in used
        named = found and namings[j].card == card.code
        wrong = found and namings[j].card not in (None, card.code)
        if found:
            used.add(j)
        for key in ["all", *sorted(card.labels)]:
            row = per_label[key] if key != "all" else stats
            row["cards"] += 1
            row["found"] += found
            row["named"] += named
            row["wrong"] += wrong
            row["oracle"] += orc.card == card.code
    for j, n in enumerate(namings):
        if j in used or n.card is None:
            continue
        if any(iou(quads[j], c.corners) >= 0.3 for c in ignored):
            continue  # a half-hidden or cut card: neither a hit nor a false detection
        stats["false"] += 1


def bench_real_table(decks: dict, namer, find_cards, n_scenes: int, bg, only: str | None = None) -> dict:
    """The real-table set: prints per deck and per condition, returns the figures."""
    from collections import defaultdict

    per_label = defaultdict(lambda: defaultdict(int))
    rows, times = [], defaultdict(list)
    for d, (name, faces, size) in enumerate(table_decks(decks)):
        if only and only not in name:
            continue
        stats = defaultdict(int)
        for k in ("loc_cpu", "cls_cpu", "frame_cpu"):
            stats[k] = []
        deck_labels = defaultdict(lambda: defaultdict(int))
        for scene in table_scenes(d, faces, n_scenes, bg, size):
            evaluate_table_scene(scene, namer, find_cards, stats, deck_labels)
        for lab, row in deck_labels.items():
            for k, v in row.items():
                per_label[lab][k] += v
        top = deck_labels["pile_top"]
        n = max(1, stats["cards"])
        rows.append((name, size, stats["cards"], 100 * stats["found"] / n, 100 * stats["named"] / n, 100 * stats["wrong"] / n,
                     100 * stats["false"] / n, 100 * top["named"] / max(1, top["cards"]), 100 * stats["oracle"] / n))
        for k in ("loc_cpu", "cls_cpu", "frame_cpu"):
            times[k] += stats[k]
    print(f"real-table set: {n_scenes} scenes per deck (half a trick pile of 3-5 cards, half 2-6 scattered cards), "
          f"cards {100 * MIN_VISIBLE:.0f} %+ visible; decks of the training set in new scenes, and the held-out decks "
          f"never trained on ({', '.join(HELD_OUT_DECKS)}), marked *")
    print(f"{'deck':40s} {'frame':>8s} {'cards':>5s} {'found%':>7s} {'named%':>7s} {'wrong%':>7s} {'false%':>7s} {'top%':>6s} {'oracle%':>8s}")
    for r in rows:
        print(f"{(r[0] + (' *' if r[0] in HELD_OUT_DECKS else '')):40s} {r[1][0]:4d}x{r[1][1]:<3d} {r[2]:5d} {r[3]:7.1f} {r[4]:7.1f} {r[5]:7.1f} {r[6]:7.1f} {r[7]:6.1f} {r[8]:8.1f}")
    print("by condition, all decks together (a card counts under each of its conditions):")
    print(f"{'condition':12s} {'cards':>5s} {'found%':>7s} {'named%':>7s} {'wrong%':>7s} {'oracle%':>8s}")
    for lab in table_conditions.LABELS:
        row = per_label.get(lab)
        if not row or not row["cards"]:
            print(f"{lab:12s} {0:5d}")
            continue
        n = row["cards"]
        print(f"{lab:12s} {n:5d} {100 * row['found'] / n:7.1f} {100 * row['named'] / n:7.1f} {100 * row['wrong'] / n:7.1f} {100 * row['oracle'] / n:8.1f}")
    if times["frame_cpu"]:
        loc, cls, fr = (np.array(times[k]) for k in ("loc_cpu", "cls_cpu", "frame_cpu"))
        print(f"real-table frame, 1 thread, CPU time: localisation median {np.median(loc):.1f} ms (p90 {np.percentile(loc, 90):.1f}), "
              f"naming median {np.median(cls):.1f} ms, whole frame median {np.median(fr):.1f} ms (p90 {np.percentile(fr, 90):.1f})")
    print("found: a detection with IoU >= 0.5; named: found and named right; wrong: found and named another card; "
          "false: a card reported where no card is; top: the top card of a pile named right; "
          "oracle: named right from the true corners (what a perfect card finder would give)")
    return {"decks": rows, "labels": {k: dict(v) for k, v in per_label.items()}}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"))
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"))
    p.add_argument("--scenes", type=int, default=30, help="scattered scenes per deck")
    p.add_argument("--tricks", type=int, default=15, help="trick scenes per deck")
    p.add_argument("--closeups", type=int, default=156, help="close-up crops per deck")
    p.add_argument("--unknown", type=int, default=300, help="unknown crops")
    p.add_argument("--localiser", choices=LOCALISERS, default=None, help="card finder (default: the network when models/locator.onnx is there)")
    p.add_argument("--table", type=int, default=40, help="real-table scenes per deck (0: skip the real-table set)")
    p.add_argument("--only-table", action="store_true", help="run only the real-table set")
    p.add_argument("--deck", default=None, help="only the decks whose name contains this (real-table set)")
    p.add_argument("--models-dir", default=None, help="models folder (default models/)")
    p.add_argument("--locator-threshold", type=float, default=None, help="the locator's peak threshold (default: the model's)")
    p.add_argument("--threshold", type=float, default=None, help="the card model's acceptance threshold (default: the model's)")
    p.add_argument("--json", default=None, metavar="FILE",
                   help="also write the figures to FILE (what benchmarks/learning_curve.py reads)")
    p.add_argument("--quick", action="store_true")
    a = p.parse_args(argv)
    if a.quick:
        a.scenes, a.tricks, a.closeups, a.unknown, a.table = 6, 3, 40, 60, 8
    cv2.setNumThreads(1)
    namer = Namer.load(a.models_dir, threads=1, threshold=a.threshold)
    find_cards = _localiser_in(a.models_dir, a.localiser, a.locator_threshold)
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
    print(f"localiser: {type(find_cards).__name__}; model: {namer.model_path} threshold {namer.threshold}")
    figures = {"model": str(namer.model_path), "threshold": namer.threshold, "table_scenes": a.table,
               "held_out_decks": [n for n in decks if n in HELD_OUT_DECKS]}
    if a.table:
        table = bench_real_table(decks, namer, find_cards, a.table, bg, a.deck)
        cols = ("deck", "frame", "cards", "found", "named", "wrong", "false", "pile_top", "oracle")
        figures["table"] = [dict(zip(cols, r)) for r in table["decks"]]
        figures["table_conditions"] = table["labels"]
    if a.only_table:
        write_figures(a.json, figures)
        return 0
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
    print(f"model: {MODEL_FILE} {os.path.getsize(namer.model_path) / 1e6:.2f} MB, input {namer.input_size[0]}x{namer.input_size[1]}, threshold {namer.threshold}")
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
    cols = ("deck", "cards", "found", "named", "trick_cards", "trick_found", "trick_named", "false", "closeup")
    figures["easy"] = [dict(zip(cols, r)) for r in rows]
    figures["unknown_rejected"] = 100 * rejected / a.unknown
    figures["localisation_cpu_ms_median"] = float(np.median(np.array(total["loc_cpu"])))
    write_figures(a.json, figures)
    return 0


def write_figures(path: str | None, figures: dict) -> None:
    if not path:
        return
    import json

    Path(path).write_text(json.dumps(figures, indent=1, default=float) + "\n", encoding="utf-8")
    print(f"figures written to {path}")


def _localiser_in(folder: str | None, kind: str | None, threshold: float | None = None):
    """The card finder with the locator network of ``folder`` (default models/; when there),
    at ``threshold`` (default: the model's), else the default card finder."""
    from vision.locator import LOCATOR_FILE, CardLocator
    from vision.namer import models_dir as default_models

    path = Path(folder or default_models()) / LOCATOR_FILE
    if kind == "classic" or not path.is_file():
        return localiser(kind)
    return CardLocator.load(path, threads=1, threshold=threshold)


if __name__ == "__main__":
    sys.exit(main())

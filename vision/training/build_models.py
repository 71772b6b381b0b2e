"""Rebuild ``models/`` (the card classifier) from the deck scans.

    .venv-train/bin/python -m vision.training.build_models [--epochs N] [--quick] [--exclude NAME[,NAME]]

Trains :class:`vision.training.model.CardNet` (ImageNet-initialised truncated
EfficientNet-Lite0) on crops synthesised on the fly from the built-in deck and
every deck of ``--decks`` (default ``../shared/decks``), picks the rejection
threshold on a held-out set of crops (same decks, other seeds), and writes
``cards.onnx`` and ``labels.txt`` into ``--out`` (default ``models/``).
``--exclude`` leaves deck folders out of training and of the held-out check
(a leave-one-deck-out model, to measure enrollment on a deck it never saw;
write it elsewhere than ``models/`` with ``--out`` and ``--work``).
Needs the training environment (torch); the runtime never imports this.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
VAL_SEED = 900_000_000  # validation batches come from seeds no training batch uses


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="build_models", description=__doc__.splitlines()[0])
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"), help="folder of deck folders (default ../shared/decks)")
    p.add_argument("--exclude", default="", metavar="NAME[,NAME]",
                   help="deck folders of --decks left out of training and of the held-out check")
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"), help="table textures (optional)")
    p.add_argument("--out", default=str(ROOT / "models"), help="output folder (default models/)")
    p.add_argument("--minutes", type=float, default=58.0,
                   help="training time budget: the learning rate decays with elapsed time, so a busy machine "
                        "trains fewer steps but finishes on time (0: no budget, run all steps)")
    p.add_argument("--epochs", type=int, default=8, help="most epochs (an epoch ends with a held-out check and an export)")
    p.add_argument("--steps", type=int, default=200, help="batches per epoch")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=1.5e-3)
    p.add_argument("--val", type=int, default=1600, help="held-out crops for measuring")
    p.add_argument("--threads", type=int, default=2, help="torch threads")
    p.add_argument("--workers", type=int, default=1, help="processes synthesising batches")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--size", default="112x192", help="crop size WxH")
    p.add_argument("--table-rate", type=float, default=0.5, help="fraction of card crops drawn at a real table (piles, light, glare, hands, tilt, blur)")
    p.add_argument("--unknown-rate", type=float, default=0.12, help="fraction of unknown crops")
    p.add_argument("--negative-rate", type=float, default=0.5, help="fraction of the unknown crops that are screens, text, backs, hands, coins, table under real-table conditions")
    p.add_argument("--quick", action="store_true", help="smoke run: 1 short epoch, small held-out set")
    p.add_argument("--work", default="/tmp/tarotmate-train", help="checkpoints go here (not in models/)")
    p.add_argument("--resume", action="store_true", help="start from the last checkpoint in --work (a further cosine cycle)")
    a = p.parse_args(argv)
    from vision.training.data import parse_exclude

    a.exclude = parse_exclude(a.exclude)
    if a.quick:
        a.epochs, a.steps, a.val, a.minutes = 1, 12, 160, 0
    return a


def progress(total: int, desc: str):
    try:
        from tqdm import tqdm

        return tqdm(total=total, desc=desc, file=sys.stderr, dynamic_ncols=True)
    except ImportError:  # a plain bar
        class Plain:
            def __init__(self):
                self.n = 0

            def update(self, k=1):
                self.n += k
                print(f"\r{desc}: {self.n}/{total}", end="", file=sys.stderr, flush=True)

            def set_postfix_str(self, s):
                pass

            def close(self):
                print(file=sys.stderr)

        return Plain()


def prefetched(pool, jobs, ahead: int):
    """make_batch over ``jobs`` in ``pool``, at most ``ahead`` batches in flight (no unbounded queue)."""
    from collections import deque

    from vision.training.data import make_batch

    pending = deque()
    it = iter(jobs)
    for job in it:
        pending.append(pool.apply_async(make_batch, (job,)))
        if len(pending) >= ahead:
            break
    while pending:
        result = pending.popleft().get()
        job = next(it, None)
        if job is not None:
            pending.append(pool.apply_async(make_batch, (job,)))
        yield result


def to_tensor(x_uint8):
    import torch

    return torch.from_numpy(x_uint8).float().div_(255.0)


def freeze_early(net, blocks: int = 5) -> list:
    """Freeze the stem and the first ``blocks`` blocks (generic ImageNet filters); return the trainable parameters."""
    frozen = [net._conv_stem, net._bn0, *net._blocks[:blocks]]
    for m in frozen:
        for prm in m.parameters():
            prm.requires_grad_(False)
    net._frozen = frozen
    return [prm for prm in net.parameters() if prm.requires_grad]


def set_train(net) -> None:
    net.train()
    for m in net._frozen:
        m.eval()


def evaluate(net, val, threshold: float | None = None) -> dict:
    """Accuracy per source on held-out crops, plus the probabilities for threshold picking."""
    import torch

    from vision.training.data import UNKNOWN_INDEX

    x, y, src = val
    net.eval()
    probs = []
    with torch.no_grad():
        for i in range(0, len(x), 64):
            logits, _ = net(to_tensor(x[i : i + 64]))
            probs.append(torch.softmax(logits, 1).numpy())
    p = np.concatenate(probs)
    pred, conf = p.argmax(1), p.max(1)
    res = {"probs": p, "pred": pred, "conf": conf}
    per = defaultdict(lambda: [0, 0])
    for s, yy, pp in zip(src, y, pred):
        key = "unknown" if yy == UNKNOWN_INDEX else s
        per[key][0] += int(pp == yy)
        per[key][1] += 1
    res["per_source"] = {k: (a / n, n) for k, (a, n) in sorted(per.items())}
    cards = y != UNKNOWN_INDEX
    res["card_acc"] = float((pred[cards] == y[cards]).mean()) if cards.any() else float("nan")
    res["unknown_acc"] = float((pred[~cards] == UNKNOWN_INDEX).mean()) if (~cards).any() else float("nan")
    return res


def pick_threshold(res: dict, y: np.ndarray, max_false_accept: float = 0.01) -> float:
    """Smallest confidence threshold at which at most ``max_false_accept`` of the
    unknown crops are accepted as a card (bounded to 0.3 .. 0.8)."""
    from vision.training.data import UNKNOWN_INDEX

    unk = y == UNKNOWN_INDEX
    for t in np.arange(0.30, 0.801, 0.02):
        accepted = (res["pred"][unk] != UNKNOWN_INDEX) & (res["conf"][unk] >= t)
        if accepted.mean() <= max_false_accept:
            return float(round(t, 2))
    return 0.8


def export_onnx(net, path: Path, size: tuple[int, int], meta: dict) -> None:
    import onnx
    import torch

    w, h = size
    net.eval()
    tmp = path.with_suffix(".tmp.onnx")
    torch.onnx.export(
        net, (torch.rand(1, 3, h, w),), str(tmp), dynamo=False, opset_version=17,
        input_names=["input"], output_names=["logits", "embedding"],
        dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}, "embedding": {0: "batch"}},
    )
    model = onnx.load(str(tmp))
    entry = model.metadata_props.add()
    entry.key, entry.value = "tarotmate", json.dumps(meta)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    tmp.unlink()


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch
    import torch.nn.functional as F

    from vision.training.data import LABELS, Recipe, make_batch, training_decks
    from vision.training.model import CardNet, imagenet_checkpoint, load_imagenet_weights

    start = time.time()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    w, h = (int(v) for v in args.size.lower().split("x"))
    decks_dir = args.decks if Path(args.decks).is_dir() else None
    if decks_dir is None:
        print(f"warning: {args.decks} not found: training on the built-in deck only", file=sys.stderr)
    bg = args.backgrounds if Path(args.backgrounds).is_dir() else None
    if args.exclude and decks_dir is None:
        print(f"error: --exclude needs the deck folder {args.decks}", file=sys.stderr)
        return 2
    recipe = Recipe(decks_dir, bg, (w, h), unknown_rate=args.unknown_rate, exclude=args.exclude,
                    table_rate=args.table_rate, negative_rate=args.negative_rate)
    try:
        decks = training_decks(decks_dir, args.exclude)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"decks: {', '.join(f'{k} ({len(v)})' for k, v in decks.items())}", file=sys.stderr)
    if args.exclude:
        print(f"left out of training and of the held-out check: {', '.join(args.exclude)}", file=sys.stderr)

    net = CardNet(len(LABELS))
    n_loaded = load_imagenet_weights(net, imagenet_checkpoint())
    checkpoint = Path(args.work) / ("cardnet_quick.pt" if args.quick else "cardnet.pt")  # a smoke run never replaces the real one
    if args.resume:
        ckpt = checkpoint
        net.load_state_dict(torch.load(ckpt, map_location="cpu"))
        print(f"resumed from {ckpt}", file=sys.stderr)
    params = freeze_early(net)
    print(f"ImageNet tensors loaded: {n_loaded}; trainable parameters: {sum(p.numel() for p in params):,}", file=sys.stderr)

    t0 = time.time()
    val_batches = [make_batch((VAL_SEED + i, 80, recipe)) for i in range(max(1, args.val // 80))]
    val = (np.concatenate([b[0] for b in val_batches]), np.concatenate([b[1] for b in val_batches]), sum((b[2] for b in val_batches), []))
    print(f"held-out crops: {len(val[1])} ({time.time() - t0:.0f} s)", file=sys.stderr)

    total = args.epochs * args.steps
    budget = args.minutes * 60 if args.minutes > 0 else None
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=1e-4)
    warm = min(100, total // 10 + 1)
    train_start = time.time()

    def progress_fraction(step: int) -> float:
        frac = step / total
        if budget:
            frac = max(frac, (time.time() - train_start) / budget)
        return min(frac, 1.0)

    def set_lr(step: int) -> None:
        lr = args.lr * min(1.0, (step + 1) / warm) * 0.5 * (1 + math.cos(math.pi * progress_fraction(step)))
        for group in opt.param_groups:
            group["lr"] = lr

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    seeds = [(args.seed * 10_000_000 + i, args.batch, recipe) for i in range(total)]
    ctx = mp.get_context("fork")
    pool = ctx.Pool(args.workers) if args.workers > 0 else None
    batches = prefetched(pool, seeds, ahead=2 * max(1, args.workers)) if pool else map(make_batch, seeds)
    bar = progress(total, "training")
    step, ema = 0, None
    res = None
    val_small = tuple(v[: len(v) // 2] for v in val[:2]) + (val[2][: len(val[2]) // 2],)
    try:
        for epoch in range(args.epochs):
            set_train(net)
            for _ in range(args.steps):
                x, y, _ = next(batches)
                set_lr(step)
                logits, _ = net(to_tensor(x))
                loss = F.cross_entropy(logits, torch.from_numpy(y), label_smoothing=0.1)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                step += 1
                ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
                bar.update(1)
                bar.set_postfix_str(f"epoch {epoch + 1} loss {ema:.3f} {progress_fraction(step):.0%} of budget")
                if progress_fraction(step) >= 1.0:
                    break
            last = progress_fraction(step) >= 1.0 or epoch == args.epochs - 1
            res = evaluate(net, val if last else val_small)
            per = "  ".join(f"{k} {a:.3f}" for k, (a, n) in res["per_source"].items())
            print(f"\nepoch {epoch + 1} (step {step}): held-out card accuracy {res['card_acc']:.4f}, unknown {res['unknown_acc']:.4f} | {per}", file=sys.stderr, flush=True)
            torch.save(net.state_dict(), checkpoint)
            write_models(net, out, (w, h), pick_threshold(res, (val if last else val_small)[1]), res, args, time.time() - start, step)
            if last:
                break
    finally:
        bar.close()
        if pool:
            pool.terminate()
    elapsed = time.time() - start
    threshold = pick_threshold(res, val[1])
    print(f"wrote {out / 'cards.onnx'} ({(out / 'cards.onnx').stat().st_size / 1e6:.2f} MB), threshold {threshold}")
    print(f"held-out: card accuracy {res['card_acc']:.4f}, unknown recognised {res['unknown_acc']:.4f}")
    for k, (a, n) in res["per_source"].items():
        print(f"  {k:32s} {a:.4f}  ({n} crops)")
    if args.exclude:
        print(f"left out of training and of the held-out check: {', '.join(args.exclude)}")
    print(f"steps: {step} of {args.batch} crops; build time: {elapsed / 60:.1f} min")
    return 0


def write_models(net, out: Path, size, threshold: float, res: dict, args, elapsed: float, steps: int) -> None:
    from vision.training.data import LABELS

    meta = {
        "input_size": list(size),
        "threshold": threshold,
        "classes": len(LABELS),
        "steps": steps,
        "batch": args.batch,
        "heldout_card_accuracy": round(res["card_acc"], 4),
        "heldout_unknown_accuracy": round(res["unknown_acc"], 4),
        "train_minutes": round(elapsed / 60, 1),
        "table_rate": args.table_rate,
        "negative_rate": args.negative_rate,
    }
    if args.exclude:
        meta["excluded_decks"] = list(args.exclude)
    export_onnx(net, out / "cards.onnx", size, meta)
    (out / "labels.txt").write_text("\n".join(LABELS) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())

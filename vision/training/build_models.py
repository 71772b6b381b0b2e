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
A new run (no ``--resume``) where ``--work`` already holds one is refused
unless ``--fresh``, which keeps the old checkpoint beside it.
Needs the training environment (torch); the runtime never imports this.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
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
    p.add_argument("--exclude", default=None, metavar="NAME[,NAME]",
                   help="deck folders of --decks left out of training and of the held-out check "
                        "(default: the held-out decks, vision.training.data.HELD_OUT_DECKS; '' for none)")
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"), help="table textures (optional)")
    p.add_argument("--out", default=None, help="where the exported cards.onnx goes (default WORK/candidate; "
                                                "models/ changes only when the benchmarks say a candidate is better)")
    p.add_argument("--minutes", type=float, default=58.0,
                   help="this session's time: the run saves and stops after it (0: no limit); the learning rate "
                        "follows the run's schedule by step, whatever the sessions")
    p.add_argument("--epochs", type=int, default=8, help="a new run's schedule spans EPOCHS x STEPS steps (unless --campaign-steps)")
    p.add_argument("--steps", type=int, default=200, help="steps between held-out checks (each check exports the model and saves the checkpoint)")
    p.add_argument("--campaign-steps", type=int, default=0,
                   help="the schedule's length in steps: a new run's (default EPOCHS x STEPS), or, with --resume, "
                        "a new length for the run (its step kept: a shorter one anneals sooner)")
    p.add_argument("--session-steps", type=int, default=0, help="stop this session after this many steps (0: no limit)")
    p.add_argument("--new-peak", action="store_true", help="with --resume: replace the run's peak learning rate by --lr")
    p.add_argument("--save-every", type=float, default=5.0, help="minutes between checkpoints (besides the held-out checks and the stop)")
    p.add_argument("--ema", type=float, default=0.999, help="decay of the weights' moving average (the exported model)")
    p.add_argument("--uses", type=float, default=1.0,
                   help="draws per rendered crop before its shard gives way to a fresh one (more when rendering falls behind)")
    p.add_argument("--shard", type=int, default=256, help="crops per rendered shard")
    p.add_argument("--render-nice", type=int, default=0, help="niceness of the rendering processes (19: only idle time)")
    p.add_argument("--no-channels-last", dest="channels_last", action="store_false",
                   help="train in PyTorch's default NCHW layout (channels-last is about 1.4x faster on one core here)")
    p.add_argument("--cache", default=str(ROOT / ".train-cache"), help="rendered shards (a cache, safe to delete)")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=1.5e-3)
    p.add_argument("--val", type=int, default=1600, help="held-out crops for measuring")
    p.add_argument("--device", default="cpu",
                   help="where the steps run: cpu, or cuda on a machine with a GPU (the rendering stays on the CPU cores; "
                        "checkpoints and the exported model are the same either way)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (one thread and one rendering process use two cores best)")
    p.add_argument("--workers", type=int, default=1, help="low-priority processes rendering shards ahead")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--size", default="112x192", help="crop size WxH")
    p.add_argument("--table-rate", type=float, default=0.5, help="fraction of card crops drawn at a real table (piles, light, glare, hands, tilt, blur)")
    p.add_argument("--unknown-rate", type=float, default=0.12, help="fraction of unknown crops")
    p.add_argument("--negative-rate", type=float, default=0.5, help="fraction of the unknown crops that are screens, text, backs, hands, coins, table under real-table conditions")
    p.add_argument("--corner-errors", default=str(ROOT / "models" / "training" / "corner_errors.npz"),
                   help="the card finder's measured corner errors (python -m vision.training.corner_errors); "
                        "ignored when the file is absent")
    p.add_argument("--corner-error-rate", type=float, default=0.6,
                   help="fraction of the real-table crops whose corners are off as the card finder's are (the rest: jittered up to 5 %%)")
    p.add_argument("--printing-rate", type=float, default=0.2,
                   help="fraction of the card crops whose face is another printing of its art (faded, greyscale, "
                        "photocopy, off register, cheap paper: vision.printings)")
    p.add_argument("--phone-rate", type=float, default=0.0,
                   help="fraction of the card crops cut from a phone photo of the card (lying or standing among "
                        "clutter, warm light, the phone's processing: vision.phone_photos)")
    p.add_argument("--random-deck-rate", type=float, default=0.0,
                   help="fraction of the card crops whose face is drawn in a random deck's design (index, court "
                        "letters, suit marks, trump numerals, pictures: vision.random_decks): what decks share, not "
                        "one deck's pictures")
    p.add_argument("--quick", action="store_true", help="smoke run: 1 short epoch, small held-out set")
    p.add_argument("--fresh", action="store_true", help="start a new run even where --work holds one "
                   "(kept beside as cardnet-run-before-<time>.pt); without it a new run there is refused")
    p.add_argument("--work", default=str(ROOT / "models" / "training"), help="the run's checkpoint (cardnet-run.pt) lives here")
    p.add_argument("--resume", action="store_true", help="continue the run of --work/cardnet-run.pt (weights, optimiser, schedule, data); "
                                                         "a bare cardnet.pt (checkpoint_from_onnx) starts a new schedule from its weights")
    a = p.parse_args(argv)
    from vision.training.data import held_out_present, parse_exclude

    a.exclude = held_out_present(a.decks) if a.exclude is None else parse_exclude(a.exclude)
    if a.quick:
        a.epochs, a.steps, a.val, a.minutes, a.shard = 1, 12, 160, 0, 32
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


def to_tensor(x_uint8):
    import torch

    return torch.from_numpy(x_uint8).float().div_(255.0)


def device_of(net):
    return next(net.parameters()).device


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
            logits, _ = net(to_tensor(x[i : i + 64]).to(device_of(net)))
            probs.append(torch.softmax(logits, 1).cpu().numpy())
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

    from vision.training.step_device import on_cpu

    w, h = size
    net = on_cpu(net)  # the exported graph is the same; tracing it on the CPU keeps it free of device copies
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
    from vision.training.allocator import keep_freed_memory

    keep_freed_memory()  # before the first batch: the renderers forked later inherit it
    import torch
    import torch.nn.functional as F

    from vision.training.data import LABELS, Recipe, make_batch, training_decks
    from vision.training.model import CardNet, imagenet_checkpoint, load_imagenet_weights
    from vision.training.run_state import RunState, Schedule, StopRequest, claim_new_run, replanned, load_checkpoint, save_checkpoint
    from vision.training.shards import ShardFeed

    work = Path(args.work)
    checkpoint = work / ("cardnet_quick.pt" if args.quick else "cardnet-run.pt")  # a smoke run never replaces the real one
    if not args.resume and not args.quick:
        refused = claim_new_run(checkpoint, args.fresh)
        if refused:
            print(f"error: {refused}", file=sys.stderr)
            return 2
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
    errors = args.corner_errors if args.corner_errors and Path(args.corner_errors).is_file() else None
    # the held-out crops keep the first recipe (corners jittered up to 5 %), so that checks stay comparable over the run
    val_recipe = Recipe(decks_dir, bg, (w, h), unknown_rate=args.unknown_rate, exclude=args.exclude,
                        table_rate=args.table_rate, negative_rate=args.negative_rate)
    recipe = dataclasses.replace(val_recipe, corner_errors=errors, corner_error_rate=args.corner_error_rate if errors else 0.0,
                                 printing_rate=args.printing_rate, phone_rate=args.phone_rate,
                                 random_deck_rate=args.random_deck_rate)
    try:
        decks = training_decks(decks_dir, args.exclude)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if errors:
        log(f"corner errors of the card finder: {errors} ({args.corner_error_rate:.0%} of the real-table crops)")
    log(f"decks: {', '.join(f'{k} ({len(v)})' for k, v in decks.items())}")
    if args.exclude:
        log(f"left out of training and of the held-out check: {', '.join(args.exclude)}")

    net = CardNet(len(LABELS))
    # a resumed run overwrites every tensor, so it needs no ImageNet file (a machine without the package can resume)
    n_loaded = 0 if args.resume else load_imagenet_weights(net, imagenet_checkpoint())
    tensors, run = {}, None
    if args.resume:
        source = checkpoint if checkpoint.exists() else work / "cardnet.pt"
        if not source.exists():
            print(f"error: --resume: no checkpoint in {work} (cardnet-run.pt, or cardnet.pt from checkpoint_from_onnx)", file=sys.stderr)
            return 2
        tensors, run = load_checkpoint(source)
        net.load_state_dict(tensors["model"])
        if run is None:
            log(f"resumed the weights of {source} (an older checkpoint: a new schedule starts)")
        else:
            log(f"resumed {source}: step {run.step} of {run.schedule.steps}, {run.crops_seen:,} crops seen, "
                f"{run.train_seconds / 3600:.2f} h trained in {run.sessions} session(s)")
    from vision.training.step_device import step_device

    device = step_device(args.device, log)
    if device is None:
        return 2
    net = net.to(device)
    if args.channels_last:
        net = net.to(memory_format=torch.channels_last)
    params = freeze_early(net)
    log(f"ImageNet tensors loaded: {n_loaded}; trainable parameters: {sum(p.numel() for p in params):,}")
    if run is None:
        total = args.campaign_steps or args.epochs * args.steps
        run = RunState(Schedule(peak=args.lr, steps=total, warmup=min(300, total // 10 + 1)), next_seed=args.seed * 10_000_000)
    elif args.new_peak or (args.campaign_steps and args.campaign_steps != run.schedule.steps):
        run.schedule = replanned(run.schedule, args.lr if args.new_peak else None, args.campaign_steps)
        log(f"the run's schedule is now a peak of {run.schedule.peak:g} decaying over {run.schedule.steps} steps "
            f"(at step {run.step}: learning rate {run.schedule.lr(run.step):.2e})")
    run.sessions += 1
    ema = CardNet(len(LABELS))
    ema.load_state_dict(tensors.get("ema", net.state_dict()))
    ema = ema.to(device)
    ema.eval()
    for prm in ema.parameters():
        prm.requires_grad_(False)
    opt = torch.optim.AdamW(params, lr=run.schedule.lr(run.step), weight_decay=1e-4)
    if "optimiser" in tensors:
        opt.load_state_dict(tensors["optimiser"])

    t0 = time.time()
    val_batches = [make_batch((VAL_SEED + i, 80, val_recipe)) for i in range(max(1, args.val // 80))]
    val = (np.concatenate([b[0] for b in val_batches]), np.concatenate([b[1] for b in val_batches]), sum((b[2] for b in val_batches), []))
    log(f"held-out crops: {len(val[1])} ({time.time() - t0:.0f} s)")

    out = Path(args.out) if args.out else work / "candidate"
    out.mkdir(parents=True, exist_ok=True)
    budget = args.minutes * 60 if args.minutes > 0 else None
    end_step = run.schedule.steps
    if args.session_steps:
        end_step = min(end_step, run.step + args.session_steps)
    cache = Path(args.cache) / ("cards_quick" if args.quick else "cards")
    feed = ShardFeed(cache, recipe, run.next_seed, shard_size=args.shard, uses=args.uses,
                     workers=args.workers, nice=args.render_nice, rng_seed=args.seed + run.step)
    session_start, session_step0, session_crops0 = time.time(), run.step, run.crops_seen
    last_save = time.time()
    res = None
    bar = progress(end_step - run.step, "training")

    def session_seconds() -> float:
        return time.time() - session_start

    def checkpoint_now(reason: str) -> None:
        run.next_seed = feed.next_seed
        save_checkpoint(checkpoint, {"model": net.state_dict(), "ema": ema.state_dict(), "optimiser": opt.state_dict()}, run)
        log(f"checkpoint ({reason}): step {run.step}, {run.crops_seen:,} crops seen -> {checkpoint}")

    def measure_and_export() -> None:
        nonlocal res
        res = evaluate(ema, val)
        per = "  ".join(f"{k} {a:.3f}" for k, (a, n) in res["per_source"].items())
        done = run.step - session_step0
        rate = (run.crops_seen - session_crops0) / max(1e-9, session_seconds() / 60)
        log(f"step {run.step}: held-out card accuracy {res['card_acc']:.4f}, unknown {res['unknown_acc']:.4f} | {per} "
            f"| this session {done} steps, {rate:.0f} crops/min, each rendered crop used {feed.reuse:.1f}x, waited {feed.waited_s:.0f} s")
        run.history.append({"step": run.step, "crops_seen": run.crops_seen, "hours": round(run.train_seconds / 3600, 3),
                            "card_acc": round(res["card_acc"], 4), "unknown_acc": round(res["unknown_acc"], 4)})
        write_models(ema, out, (w, h), pick_threshold(res, val[1]), res, args, run.train_seconds, run.step)

    ema_decay = args.ema
    try:
        with StopRequest() as stop:
            set_train(net)
            tick = time.time()
            while run.step < end_step and not stop.requested:
                if budget and session_seconds() >= budget:
                    break
                x, y, _ = feed.batch(args.batch)
                lr = run.schedule.lr(run.step)
                for group in opt.param_groups:
                    group["lr"] = lr
                xt = to_tensor(x).to(device, non_blocking=True)
                if args.channels_last:
                    xt = xt.contiguous(memory_format=torch.channels_last)
                logits, _ = net(xt)
                loss = F.cross_entropy(logits, torch.from_numpy(y).to(device), label_smoothing=0.1)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                with torch.no_grad():
                    d = min(ema_decay, (1 + run.step) / (10 + run.step))
                    for pe, pn in zip(ema.parameters(), net.parameters()):
                        pe.mul_(d).add_(pn.detach(), alpha=1 - d)
                    for be, bn in zip(ema.buffers(), net.buffers()):
                        be.copy_(bn)
                now = time.time()
                run.train_seconds += now - tick
                tick = now
                run.step += 1
                run.crops_seen += len(y)
                bar.update(1)
                bar.set_postfix_str(f"loss {loss.item():.3f} lr {lr:.2e}")
                if run.step % args.steps == 0:
                    measure_and_export()
                    set_train(net)
                    checkpoint_now("held-out check")
                    last_save, tick = time.time(), time.time()
                elif time.time() - last_save >= args.save_every * 60:
                    checkpoint_now("periodic")
                    last_save, tick = time.time(), time.time()
            why = f"stopped by {stop.signal_name}" if stop.requested else "end of the schedule" if run.step >= run.schedule.steps else "end of this session"
            bar.close()
            log(why)
            measure_and_export()
            checkpoint_now(why)
    finally:
        bar.close()
        feed.close()
    elapsed = time.time() - start
    threshold = pick_threshold(res, val[1])
    print(f"wrote {out / 'cards.onnx'} ({(out / 'cards.onnx').stat().st_size / 1e6:.2f} MB), threshold {threshold}")
    print(f"held-out: card accuracy {res['card_acc']:.4f}, unknown recognised {res['unknown_acc']:.4f}")
    for k, (a, n) in res["per_source"].items():
        print(f"  {k:32s} {a:.4f}  ({n} crops)")
    if args.exclude:
        print(f"left out of training and of the held-out check: {', '.join(args.exclude)}")
    seen = run.crops_seen - session_crops0
    print(f"this session: {run.step - session_step0} steps of {args.batch} crops, {seen / max(1e-9, session_seconds() / 60):.0f} crops/min, "
          f"each rendered crop used {feed.reuse:.1f}x; run: step {run.step} of {run.schedule.steps}, "
          f"{run.crops_seen:,} crops, {run.train_seconds / 3600:.2f} h; build time {elapsed / 60:.1f} min")
    return 0


def log(text: str) -> None:
    print(f"\n[{time.strftime('%Y-%m-%d %H:%M:%S')}] {text}", file=sys.stderr, flush=True)


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
        "printing_rate": args.printing_rate,
        "phone_rate": args.phone_rate,
        "random_deck_rate": args.random_deck_rate,
        "corner_error_rate": args.corner_error_rate if args.corner_errors and Path(args.corner_errors).is_file() else 0.0,
    }
    if args.exclude:
        meta["excluded_decks"] = list(args.exclude)
    export_onnx(net, out / "cards.onnx", size, meta)
    (out / "labels.txt").write_text("\n".join(LABELS) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())

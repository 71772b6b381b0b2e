"""Train the card locator network and export it to ``models/locator.onnx``.

    .venv-train/bin/python -m vision.training.build_locator                # about 40 min here
    .venv-train/bin/python -m vision.training.build_locator --quick        # smoke run, about 1 min

Scenes are drawn first (:mod:`vision.training.locator_scenes`, cached in
``--cache`` so a second run reuses them), then the network is trained on them
with random flips, then measured on held-out scenes (recall and false
detections of the rough boxes, IoU >= 0.5) and exported with its threshold to
``--out`` (default ``WORK/candidate``; ``models/`` changes only when the
benchmarks say a candidate is better).

A run is planned once (:class:`vision.training.run_state.Schedule`: the
learning rate by step over ``--campaign-steps``) and continued by
``--resume`` from ``WORK/locator-run.pt`` (weights, optimiser, the step, the
time trained), kept in the repository; ``--minutes`` is this session's time.
SIGINT or SIGTERM stops it cleanly: it measures, exports and saves. A new
run (no ``--resume``) where ``WORK`` already holds one is refused unless
``--fresh``, which keeps the old checkpoint beside it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="build_locator", description=__doc__.splitlines()[0])
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"))
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"))
    p.add_argument("--out", default=None, help="where locator.onnx goes (default WORK/candidate)")
    p.add_argument("--file", default="locator.onnx", choices=("locator.onnx", "locator_looks.onnx"),
                   help="the exported file's name in --out: the locator, or the network of its further looks")
    p.add_argument("--work", default=str(ROOT / "models" / "training"), help="the run's checkpoint (locator-run.pt) lives here")
    p.add_argument("--cache", default=str(ROOT / ".train-cache"), help="drawn scenes (a cache, safe to delete)")
    p.add_argument("--campaign-steps", type=int, default=0, help="a new run's schedule length in steps (default --steps, else 4000)")
    p.add_argument("--save-every", type=float, default=5.0, help="minutes between checkpoints")
    p.add_argument("--scenes", type=int, default=14000, help="training scenes drawn")
    p.add_argument("--val", type=int, default=400, help="held-out scenes")
    p.add_argument("--scene-set", type=int, default=0,
                   help="which draw of the training scenes: 0 the first; N > 0 another N-th set of new scenes (its own "
                        "cache file), for a resumed run that has seen its scenes many times; the held-out scenes stay")
    p.add_argument("--minutes", type=float, default=35.0, help="this session's time: the run saves and stops after it (0: no limit)")
    p.add_argument("--steps", type=int, default=0, help="stop this session after this many batches (0: the time budget)")
    p.add_argument("--batch", type=int, default=24)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--device", default="cpu",
                   help="where the steps run: cpu, or cuda on a machine with a GPU (the scenes are drawn and each batch "
                        "augmented on the CPU; checkpoints and the exported locator are the same either way)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--workers", type=int, default=2, help="processes drawing scenes")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--table-rate", type=float, default=0.5, help="fraction of real-table scenes (vision.synth.make_table_scene) among those drawn")
    p.add_argument("--phone-rate", type=float, default=0.0,
                   help="fraction of the training scenes that are phone photos of one card (vision.phone_photos; "
                        "the held-out scenes stay without, comparable over the run)")
    p.add_argument("--net-width", type=int, default=None, choices=(1, 2, 3),
                   help="a new run's network width (LocatorNet(width): 1, the shipped size, 56 k parameters; 2, "
                        "209 k); a resumed run keeps its checkpoint's (a new width needs a new --work)")
    p.add_argument("--resume", action="store_true", help="continue the run of WORK/locator-run.pt (an older locator_full.pt: its weights, a new schedule)")
    p.add_argument("--new-peak", action="store_true", help="with --resume: replace the run's peak learning rate by --lr")
    p.add_argument("--threshold", type=float, default=None, help="peak threshold to ship (default: the best held-out trade-off)")
    p.add_argument("--export-only", action="store_true", help="measure and export the last checkpoint, no training")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--fresh", action="store_true", help="start a new run even where WORK holds one "
                   "(kept beside as locator-run-before-<time>.pt); without it a new run there is refused")
    a = p.parse_args(argv)
    if a.quick:
        a.scenes, a.val, a.minutes, a.steps, a.campaign_steps = 200, 40, 0, 30, 30
    return a


def scene_set(path: Path, count: int, seed: int, args, phone_rate: float = 0.0, fan_rate: float | None = None) -> dict:
    from vision.training.locator_scenes import draw_set

    if path.is_file():
        data = dict(np.load(path))
        if len(data["images"]) >= count:
            return data
    print(f"drawing {count} scenes -> {path}", file=sys.stderr)
    data = draw_set(count, seed, args.decks, args.backgrounds, args.workers, table_rate=args.table_rate, phone_rate=phone_rate,
                    fan_rate=fan_rate)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part.npz")
    np.savez(tmp, **data)
    tmp.replace(path)
    return data


def batch_of(data: dict, idx, rng, height: int, flips: bool = True):
    from vision.training.locator_targets import augment, encode, flip_quads, pad_to

    imgs, heats, regs, rws, hws = [], [], [], [], []
    for i in idx:
        img = data["images"][i]
        a, b = data["first"][i], data["first"][i + 1]
        q, v = data["quads"][a:b], data["visible"][a:b]
        if flips:
            fx, fy = rng.random() < 0.5, rng.random() < 0.5
            if fx:
                img = img[:, ::-1]
            if fy:
                img = img[::-1]
            q = flip_quads(q, img.shape[1], img.shape[0], fx, fy)
            img = augment(np.ascontiguousarray(img), rng)
        img = pad_to(img, height)
        heat, reg, rw, hw = encode(q, v, (height // 4, img.shape[1] // 4))
        imgs.append(img[..., ::-1].transpose(2, 0, 1))
        heats.append(heat)
        regs.append(reg)
        rws.append(rw)
        hws.append(hw)
    x = np.ascontiguousarray(np.stack(imgs), dtype=np.float32) / 255.0
    return x, np.stack(heats), np.stack(regs), np.stack(rws), np.stack(hws)


def evaluate(net, data: dict, height: int, thresholds=(0.25, 0.3, 0.35, 0.4, 0.5)) -> dict:
    """Recall and false detections of the rough boxes on held-out scenes, per threshold."""
    import torch

    from vision.locator import _iou, decode, suppress_duplicates
    from vision.training.locator_targets import MIN_VISIBLE, pad_to

    net.eval()
    res = {t: [0, 0, 0] for t in thresholds}  # found, targets, false
    ious = []
    with torch.no_grad():
        for i in range(len(data["images"])):
            img = pad_to(data["images"][i], height)
            x = torch.from_numpy(np.ascontiguousarray(img[..., ::-1].transpose(2, 0, 1))[None].astype(np.float32) / 255.0)
            maps = net(x.to(next(net.parameters()).device))[0].cpu().numpy()
            a, b = data["first"][i], data["first"][i + 1]
            q, v = data["quads"][a:b], data["visible"][a:b]
            targets = [qq for qq, vv in zip(q, v) if vv >= MIN_VISIBLE]
            ignored = [qq for qq, vv in zip(q, v) if vv < MIN_VISIBLE]
            for t in thresholds:
                boxes = [bq for bq, _ in suppress_duplicates(decode(maps, t))]
                used = set()
                for tq in targets:
                    best = max(((_iou(bq, tq), j) for j, bq in enumerate(boxes)), default=(0, -1))
                    if best[0] >= 0.5:
                        res[t][0] += 1
                        used.add(best[1])
                        if t == 0.35:
                            ious.append(best[0])
                    res[t][1] += 1
                for j, bq in enumerate(boxes):
                    if j not in used and not any(_iou(bq, iq) >= 0.3 for iq in ignored):
                        res[t][2] += 1
    net.train()
    out = {f"{t}": {"recall": r[0] / max(1, r[1]), "false_per_card": r[2] / max(1, r[1])} for t, r in res.items()}
    out["median_iou"] = float(np.median(ious)) if ious else 0.0
    return out


def export(net, path: Path, meta: dict) -> None:
    import torch

    from vision.training.step_device import on_cpu

    net = on_cpu(net)
    net.eval()
    tmp = path.with_suffix(".part.onnx")
    torch.onnx.export(net, torch.zeros(1, 3, 192, 320), str(tmp), input_names=["image"], output_names=["maps"],
                      dynamic_axes={"image": {0: "batch", 2: "height", 3: "width"}, "maps": {0: "batch", 2: "h", 3: "w"}},
                      opset_version=17, dynamo=False)
    import onnx

    model = onnx.load(str(tmp))
    entry = model.metadata_props.add()
    entry.key, entry.value = "tarotmate", json.dumps(meta)
    onnx.save(model, str(tmp))
    tmp.replace(path)
    net.train()


def net_width_of(state: dict) -> int:
    """The width (``LocatorNet(width)``) of a locator's weights: its stem's first layer has 16 x width filters."""
    return int(state["stem.0.0.weight"].shape[0]) // 16


def main(argv=None) -> int:
    args = parse_args(argv)
    from vision.training.allocator import keep_freed_memory

    keep_freed_memory()  # before the first batch: the renderers forked later inherit it
    import torch

    from vision.locator import input_shape
    from vision.training.build_models import log, progress
    from vision.training.locator_model import LocatorNet, loss_fn
    from vision.training.run_state import RunState, Schedule, StopRequest, claim_new_run, replanned, load_checkpoint, save_checkpoint

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    work, cache = Path(args.work), Path(args.cache) / "locator"
    tag = "quick" if args.quick else "full"
    if not (args.resume or args.export_only or args.quick):  # before the scenes are drawn: refused at once
        refused = claim_new_run(work / "locator-run.pt", args.fresh)
        if refused:
            print(f"error: {refused}", file=sys.stderr)
            return 2
    from vision.training.locator_data import CAMERA_FRAME_RATE, FAN_RATE, FOREARM_RATE

    rate = f"_t{args.table_rate:g}_f{CAMERA_FRAME_RATE:g}_a{FOREARM_RATE:g}" if args.table_rate else ""  # a cache per recipe
    fans = f"_h{FAN_RATE:g}" if FAN_RATE and args.table_rate else ""  # held fans come only in real-table scenes
    phones = f"_p{args.phone_rate:g}" if args.phone_rate else ""
    drawn = f"_s{args.scene_set}" if args.scene_set else ""
    train = scene_set(cache / f"locator_scenes_{tag}{rate}{fans}{phones}{drawn}.npz", args.scenes,
                      100_000_000 + 1_000_000 * args.scene_set, args, args.phone_rate)
    # the held-out scenes stay without held fans (nor phones): the same scenes over the whole run, comparable
    val = scene_set(cache / f"locator_val_{tag}{rate}.npz", args.val, 200_000_000, args, fan_rate=0.0)
    h, w = train["images"].shape[1:3]
    height = input_shape(w, h)[1]
    ckpt = work / f"locator-run{'_quick' if args.quick else ''}.pt"  # a smoke run never replaces the real checkpoint
    tensors, run = {}, None
    width = args.net_width or 1
    if args.resume or args.export_only:
        source = ckpt if ckpt.is_file() else work / f"locator_{tag}.pt"
        if not source.is_file():
            print(f"error: no checkpoint in {work} (locator-run.pt, or locator_full.pt from checkpoint_from_onnx --locator)", file=sys.stderr)
            return 2
        tensors, run = load_checkpoint(source)
        model = tensors["model"]
        width = net_width_of(model)
        if args.net_width and args.net_width != width:
            print(f"error: {source} is a locator of width {width}, not {args.net_width}: a new width is a new run "
                  "(another --work)", file=sys.stderr)
            return 2
    net = LocatorNet(width=width)
    if tensors:
        net.load_state_dict(model)
        log(f"resumed {source}" + (f": step {run.step} of {run.schedule.steps}, {run.train_seconds / 3600:.2f} h trained" if run else " (its weights; a new schedule)"))
    from vision.training.step_device import step_device

    device = step_device(args.device, log)
    if device is None:
        return 2
    net = net.to(device)
    if run is None:
        total = args.campaign_steps or args.steps or 4000
        run = RunState(Schedule(peak=args.lr, steps=total, warmup=min(150, total // 10 + 1)))
    elif args.new_peak or (args.campaign_steps and args.campaign_steps != run.schedule.steps):
        run.schedule = replanned(run.schedule, args.lr if args.new_peak else None, args.campaign_steps)
        log(f"the run's schedule is now a peak of {run.schedule.peak:g} decaying over {run.schedule.steps} steps "
            f"(at step {run.step}: learning rate {run.schedule.lr(run.step):.2e})")
    run.sessions += 1
    opt = torch.optim.AdamW(net.parameters(), lr=run.schedule.lr(run.step), weight_decay=1e-4)
    if "optimiser" in tensors:
        opt.load_state_dict(tensors["optimiser"])
    rng = np.random.default_rng([args.seed, run.step])  # a resumed run draws other batches than it did
    budget = args.minutes * 60 if args.minutes > 0 else None
    end_step = run.schedule.steps if not args.steps else min(run.schedule.steps, run.step + args.steps)
    bar = progress(end_step - run.step, "locator")
    n = len(train["images"])
    session_start = last_save = tick = time.time()
    step0, avg = run.step, None

    def save(reason: str) -> None:
        save_checkpoint(ckpt, {"model": net.state_dict(), "optimiser": opt.state_dict()}, run)
        log(f"checkpoint ({reason}): step {run.step} -> {ckpt}")

    with StopRequest() as stop:
        while not args.export_only and run.step < end_step and not stop.requested:
            if budget and time.time() - session_start >= budget:
                break
            lr = run.schedule.lr(run.step)
            for g in opt.param_groups:
                g["lr"] = lr
            x, heat, reg, rw, hw = (torch.from_numpy(t).to(device, non_blocking=True)
                                    for t in batch_of(train, rng.integers(0, n, args.batch), rng, height))
            loss, parts = loss_fn(net(x), heat, reg, rw, hw)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
            opt.step()
            avg = float(loss) if avg is None else 0.98 * avg + 0.02 * float(loss)
            now = time.time()
            run.train_seconds += now - tick
            tick = now
            run.step += 1
            run.crops_seen += args.batch  # scenes, for the locator
            bar.update(1)
            bar.set_postfix_str(f"loss {avg:.3f} lr {lr:.2e} " + " ".join(f"{k} {v:.3f}" for k, v in parts.items()))
            if now - last_save >= args.save_every * 60:
                save("periodic")
                last_save = tick = time.time()
        bar.close()
        if not args.export_only:
            log(f"stopped by {stop.signal_name}" if stop.requested else "end of this session")
            save("stop")
    res = evaluate(net, val, height)
    best = max((k for k in res if k != "median_iou"), key=lambda k: res[k]["recall"] - res[k]["false_per_card"])
    if args.threshold is not None:
        best = min((k for k in res if k != "median_iou"), key=lambda k: abs(float(k) - args.threshold))
    print(json.dumps(res, indent=1), file=sys.stderr)
    minutes = run.train_seconds / 60
    meta = {"input_width": 320, "stride": 4, "width": width, "threshold": float(best), "steps": run.step, "minutes": round(minutes, 1),
            "held_out_scenes": args.val, "held_out_recall": round(res[best]["recall"], 4),
            "held_out_false_per_card": round(res[best]["false_per_card"], 4), "median_iou": round(res["median_iou"], 3),
            "table_rate": args.table_rate, "phone_rate": args.phone_rate}
    run.history.append({"step": run.step, "hours": round(run.train_seconds / 3600, 3), "recall": meta["held_out_recall"],
                        "false_per_card": meta["held_out_false_per_card"], "median_iou": meta["median_iou"]})
    if not args.export_only:
        save("measured")
    out = Path(args.out) if args.out else work / "candidate"
    out.mkdir(parents=True, exist_ok=True)
    export(net, out / args.file, meta)
    done = run.step - step0
    print(f"this session: {done} steps, {done * args.batch / max(1e-9, (time.time() - session_start) / 60):.0f} scenes/min; "
          f"run: step {run.step} of {run.schedule.steps}, {minutes:.1f} min trained; threshold {best}: recall {res[best]['recall']:.3f}, "
          f"false detections {res[best]['false_per_card']:.3f} per card -> {out / args.file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

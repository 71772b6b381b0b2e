"""Training throughput on this machine: making the data and the training step, for both models.

    .venv-train/bin/python benchmarks/bench_training.py [--seconds 20] [--only card|locator]
        [--default-allocator] [--json]

Prints, for the card model, crops per minute made by one process (the same
recipe as ``build_models``: real-table crops at ``--table-rate``, unknown
crops) and crops per minute through the training step (forward, backward,
AdamW) at one and two torch threads, in the channels-last layout
``build_models`` uses and in PyTorch's default one; for the locator, scenes
per minute drawn by one process and through its training step. Then what a
run on two cores can sustain: ``build_models`` trains on one thread while one
process renders shards, so its rate is the training step's at one thread, and
each rendered crop is used ``step rate / render rate`` times on average (the
feed never waits; it reuses). Needs the training environment (torch); run it
on idle cores, never beside a training run (each halves the other).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed(fn, seconds: float, warm: int = 2) -> tuple[float, int, float, float]:
    """(seconds per call, calls, page faults per call, share of the CPU time spent in the kernel) of
    ``fn`` over about ``seconds`` after ``warm`` untimed calls."""
    for _ in range(warm):
        fn()
    n, t0, r0 = 0, time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    while n < 3 or time.perf_counter() - t0 < seconds:
        fn()
        n += 1
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return ((time.perf_counter() - t0) / n, n, (r1.ru_minflt - r0.ru_minflt) / n,
            (r1.ru_stime - r0.ru_stime) / cpu if cpu > 0 else 0.0)


def card_rates(args) -> dict:
    import torch
    import torch.nn.functional as F

    from vision.training.build_models import freeze_early, set_train
    from vision.training.data import LABELS, Recipe, held_out_present, make_batch, training_decks
    from vision.training.model import CardNet

    decks = args.decks if Path(args.decks).is_dir() else None
    bg = args.backgrounds if Path(args.backgrounds).is_dir() else None
    recipe = Recipe(decks, bg, (112, 192), unknown_rate=0.12, table_rate=args.table_rate, negative_rate=0.5,
                    exclude=held_out_present(decks))
    training_decks(recipe.decks_dir, recipe.exclude)  # loading the scans is not making crops
    seed = iter(range(10**6))
    per_batch, _, faults, kernel = timed(lambda: make_batch((next(seed), 32, recipe)), args.seconds, warm=1)
    out = {"make_crops_per_min": 32 * 60 / per_batch, "make_faults_per_batch": faults, "make_kernel_share": kernel}
    x = torch.rand(args.batch, 3, 192, 112)
    y = torch.randint(0, len(LABELS), (args.batch,))
    for threads in (1, 2):
        for layout in ("channels_last", "nchw"):
            torch.set_num_threads(threads)
            net = CardNet(len(LABELS))
            xx = x
            if layout == "channels_last":
                net = net.to(memory_format=torch.channels_last)
                xx = x.contiguous(memory_format=torch.channels_last)
            params = freeze_early(net)
            set_train(net)
            opt = torch.optim.AdamW(params, 1e-4)

            def step():
                logits, _ = net(xx)
                loss = F.cross_entropy(logits, y)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()

            sec, _, faults, kernel = timed(step, args.seconds)
            out[f"train_crops_per_min_{threads}t_{layout}"] = args.batch * 60 / sec
            if threads == 1 and layout == "channels_last":
                out["train_faults_per_step"], out["train_kernel_share"] = faults, kernel
    out["sustained_crops_per_min"] = out["train_crops_per_min_1t_channels_last"]
    out["reuse_per_rendered_crop"] = out["sustained_crops_per_min"] / out["make_crops_per_min"]
    return out


def locator_rates(args) -> dict:
    import torch

    from vision.locator import input_shape
    from vision.training.build_locator import batch_of
    from vision.training.locator_data import make_locator_scene
    from vision.training.locator_model import LocatorNet, loss_fn
    from vision.training.data import held_out_present, training_decks

    decks_dir = args.decks if Path(args.decks).is_dir() else None
    decks = list(training_decks(decks_dir, held_out_present(decks_dir)).values())
    bg = args.backgrounds if Path(args.backgrounds).is_dir() else None
    rng = np.random.default_rng(5)
    scenes = []

    def draw():
        scenes.append(make_locator_scene(rng, decks, bg, table_rate=0.5))

    sec, *_ = timed(draw, args.seconds, warm=1)
    out = {"make_scenes_per_min": 60 / sec}
    s0 = scenes[0]
    img, quads, visible = s0.image, s0.quads, s0.visible
    data = {"images": np.stack([img] * 4), "quads": np.concatenate([quads] * 4),
            "visible": np.concatenate([visible] * 4), "first": np.arange(5) * len(quads)}
    h, w = img.shape[:2]
    height = input_shape(w, h)[1]
    for threads in (1, 2):
        torch.set_num_threads(threads)
        net = LocatorNet()
        opt = torch.optim.AdamW(net.parameters(), 1e-3)
        batch = 24

        def step():
            xs = batch_of(data, rng.integers(0, 4, batch), rng, height)
            x, heat, reg, rw, hw = (torch.from_numpy(t) for t in xs)
            loss, _ = loss_fn(net(x), heat, reg, rw, hw)
            opt.zero_grad()
            loss.backward()
            opt.step()

        sec, *_ = timed(step, args.seconds)
        out[f"train_scenes_per_min_{threads}t"] = batch * 60 / sec
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"))
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"))
    p.add_argument("--seconds", type=float, default=20.0, help="time per measurement")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--table-rate", type=float, default=0.6)
    p.add_argument("--default-allocator", action="store_true",
                   help="leave glibc's allocator as it is (the training runs keep freed memory: vision.training.allocator)")
    p.add_argument("--only", choices=("card", "locator"), default=None, help="measure one model only")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("error: needs the training environment (torch): .venv-train/bin/python benchmarks/bench_training.py", file=sys.stderr)
        return 2
    from vision.training.allocator import keep_freed_memory

    tuned = False if args.default_allocator else keep_freed_memory()
    res = {"allocator_keeps_freed_memory": tuned}
    if args.only in (None, "card"):
        res["card"] = card_rates(args)
    if args.only in (None, "locator"):
        res["locator"] = locator_rates(args)
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    print("allocator: " + ("freed memory kept (as the training runs)" if tuned else "glibc's default"))
    if "card" in res:
        print_card(res["card"], args.batch)
    if "locator" in res:
        print_locator(res["locator"])
    return 0


def print_card(c: dict, batch: int) -> None:
    print("card model (crops of 112x192, batch %d)" % batch)
    print(f"  making crops, one process            {c['make_crops_per_min']:7.0f} crops/min"
          f"   ({c['make_faults_per_batch']:.0f} page faults a batch, {100 * c['make_kernel_share']:.0f} % of CPU in the kernel)")
    for threads in (1, 2):
        print(f"  training step, {threads} thread(s), channels-last {c[f'train_crops_per_min_{threads}t_channels_last']:7.0f} crops/min"
              f"   (NCHW {c[f'train_crops_per_min_{threads}t_nchw']:.0f})")
    print(f"  a run on two cores (1 training thread + 1 renderer): {c['sustained_crops_per_min']:.0f} crops/min, "
          f"each rendered crop used {c['reuse_per_rendered_crop']:.1f}x")
    print(f"  training step, 1 thread: {c['train_faults_per_step']:.0f} page faults a step, "
          f"{100 * c['train_kernel_share']:.0f} % of CPU in the kernel")


def print_locator(loc: dict) -> None:
    print("locator (scenes of 320 px wide, batch 24)")
    print(f"  drawing scenes, one process          {loc['make_scenes_per_min']:7.0f} scenes/min")
    for threads in (1, 2):
        print(f"  training step, {threads} thread(s)           {loc[f'train_scenes_per_min_{threads}t']:7.0f} scenes/min")


if __name__ == "__main__":
    sys.exit(main())

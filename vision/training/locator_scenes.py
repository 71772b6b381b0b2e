"""Draw a set of locator training scenes into one file (``--out``), in parallel, with progress.

    .venv-train/bin/python -m vision.training.locator_scenes --count 12000 --out /tmp/tarotmate-train/locator_scenes.npz

Scene ``i`` is drawn from seed ``seed + i``, so a set is reproducible and two
sets with different seeds do not share a scene.
"""

from __future__ import annotations

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

_DECKS: list = []
_BG: str | None = None
_TABLE_RATE = 0.0
_PHONE_RATE = 0.0
_FAN_RATE = 0.0


def _init(decks_dir: str | None, backgrounds_dir: str | None, table_rate: float = 0.0, phone_rate: float = 0.0,
          fan_rate: float = 0.0) -> None:
    global _BG, _TABLE_RATE, _PHONE_RATE, _FAN_RATE
    _TABLE_RATE, _PHONE_RATE, _FAN_RATE = table_rate, phone_rate, fan_rate
    from vision.training.data import held_out_present, training_decks

    _DECKS[:] = list(training_decks(decks_dir, held_out_present(decks_dir)).values())  # never the held-out decks
    _BG = backgrounds_dir if backgrounds_dir and Path(backgrounds_dir).is_dir() else None


def _draw(seed: int):
    from vision.training.locator_data import make_locator_scene

    s = make_locator_scene(np.random.default_rng(seed), _DECKS, _BG, table_rate=_TABLE_RATE, phone_rate=_PHONE_RATE,
                           fan_rate=_FAN_RATE)
    return s.image, s.quads, s.visible


def draw_set(count: int, seed: int, decks_dir, backgrounds_dir, workers: int = 2, quiet: bool = False, table_rate: float = 0.0,
             phone_rate: float = 0.0, fan_rate: float | None = None) -> dict:
    """``count`` scenes (``phone_rate`` of them phone photos, ``table_rate`` of the others real-table scenes,
    ``fan_rate`` of those with a held fan, default ``locator_data.FAN_RATE``) as arrays:
    images (n, h, w, 3), quads (m, 4, 2), visible (m,), first (n + 1,) offsets."""
    if fan_rate is None:
        from vision.training.locator_data import FAN_RATE as fan_rate
    images, quads, visible, first = [], [], [], [0]
    t0 = time.time()
    with Pool(workers, initializer=_init, initargs=(decks_dir, backgrounds_dir, table_rate, phone_rate, fan_rate)) as pool:
        for k, (img, q, v) in enumerate(pool.imap(_draw, range(seed, seed + count), chunksize=8)):
            images.append(img)
            quads.append(q)
            visible.append(v)
            first.append(first[-1] + len(q))
            if not quiet and (k + 1) % 200 == 0:
                rate = (k + 1) / (time.time() - t0)
                print(f"\rscenes {k + 1}/{count} ({rate:.1f}/s, {(count - k - 1) / rate / 60:.1f} min left)", end="", file=sys.stderr, flush=True)
    if not quiet:
        print(file=sys.stderr)
    return {
        "images": np.stack(images),
        "quads": np.concatenate(quads).astype(np.float32) if quads else np.zeros((0, 4, 2), np.float32),
        "visible": np.concatenate(visible).astype(np.float32),
        "first": np.array(first, np.int64),
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=12000)
    p.add_argument("--seed", type=int, default=100_000_000)
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"))
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"))
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--table-rate", type=float, default=0.0, help="fraction of real-table scenes")
    p.add_argument("--phone-rate", type=float, default=0.0, help="fraction of phone photos of one card")
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    data = draw_set(a.count, a.seed, a.decks, a.backgrounds, a.workers, table_rate=a.table_rate, phone_rate=a.phone_rate)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(a.out).with_suffix(".part.npz")
    np.savez(tmp, **data)
    tmp.replace(a.out)
    print(f"{a.count} scenes, {len(data['quads'])} cards -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Training crops made ahead: a cache of rendered shards on disk, refilled in the background.

Synthesising a crop costs about as much CPU as training on it, and the
machine has two cores. So the crops are rendered ahead into *shards* (``n``
crops of one integer seed, an uncompressed ``.npz`` written atomically) by a
low-priority process, and the trainer draws its batches from the shards in
memory. When a fresh shard is ready, it takes the place of the most drawn one
in memory, once that one's crops have been drawn ``uses`` times on average;
when the renderer falls behind, the trainer reuses what it has rather than
wait, and the reuse it needed is reported.

The seeds are consecutive integers from ``next_seed``: the trainer's
checkpoint keeps the next seed it has not consumed, so a resumed run renders
new crops instead of the ones it has already learned from. Shards left on
disk by an earlier run with the same recipe and seeds at or above that
point are taken as they are.
"""

from __future__ import annotations

import json
import os
import signal
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

SHARD_FORMAT = "tarotmate-shard/1"


def shard_path(folder: Path, seed: int) -> Path:
    return folder / f"shard-{seed:09d}.npz"


def write_shard(folder: Path, seed: int, x: np.ndarray, y: np.ndarray, src: list[str]) -> Path:
    """Write one shard atomically (a reader never sees half a file)."""
    dest = shard_path(folder, seed)
    tmp = dest.with_name(dest.name + ".part")
    with open(tmp, "wb") as fh:
        np.savez(fh, x=x, y=y, src=np.array(src))
    os.replace(tmp, dest)
    return dest


def read_shard(path: Path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    with np.load(path) as z:
        return z["x"], z["y"], [str(s) for s in z["src"]]


def recipe_key(recipe) -> str:
    """A short text that changes whenever the crops would (shards of another recipe are not reused)."""
    fields = asdict(recipe)
    return json.dumps(fields, sort_keys=True, default=str)


def _seed_of(path: Path) -> int:
    return int(path.stem.split("-")[1])


def _render_loop(folder: str, recipe, first_seed: int, stride: int, n: int, keep: int, nice: int, consumed) -> None:
    """Renderer process: render shards ``first_seed, first_seed + stride, ...`` while fewer than
    ``keep`` wait, never one the trainer has passed (``consumed``: the first seed it has not loaded)."""
    from vision.training.data import make_batch

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the trainer decides when to stop
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # and a terminate ends it, whatever handler the trainer had
    try:
        os.nice(nice)
    except OSError:
        pass
    out = Path(folder)
    seed = first_seed
    while True:
        if os.getppid() == 1:  # the trainer is gone
            return
        passed = consumed.value
        while seed < passed:  # loaded already: rendering it again would only clog the cache
            seed += stride
        waiting = sum(1 for p in out.glob("shard-*.npz") if _seed_of(p) >= passed)
        if waiting >= keep:
            time.sleep(0.5)
            continue
        if seed >= consumed.value and not shard_path(out, seed).exists():
            x, y, src = make_batch((seed, n, recipe))
            if seed >= consumed.value:  # the trainer may have loaded an earlier copy meanwhile
                written = write_shard(out, seed, x, y, src)
                if seed < consumed.value:  # ... even while it was being written: it will never be read
                    written.unlink(missing_ok=True)
        seed += stride


class ShardFeed:
    """Batches drawn from rendered shards, with a background renderer keeping the cache full.

    ``next_seed`` is the first shard seed this feed may use; :attr:`next_seed`
    afterwards is the first it has not consumed (kept in the checkpoint).
    """

    def __init__(self, folder: Path, recipe, next_seed: int, *, shard_size: int = 256, uses: float = 4.0,
                 pool_shards: int = 24, keep: int = 48, workers: int = 1, nice: int = 19, rng_seed: int = 0):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        key = recipe_key(recipe) + f"|{shard_size}"
        key_file = self.folder / "recipe.json"
        if key_file.exists() and key_file.read_text(encoding="utf-8") != key:
            for old in self.folder.glob("shard-*.npz"):  # another recipe: these crops are not ours
                old.unlink()
        key_file.write_text(key, encoding="utf-8")
        for old in self.folder.glob("shard-*.npz"):  # already consumed by the run we resume
            if _seed_of(old) < next_seed:
                old.unlink()
        for part in self.folder.glob("*.part"):
            part.unlink()
        self.recipe = recipe
        self.shard_size = shard_size
        self.uses = uses
        self.pool_shards = pool_shards
        self.next_seed = next_seed  # first seed not yet loaded into the pool
        self.rng = np.random.default_rng(rng_seed)
        self.pool: list[dict] = []  # {"seed", "x", "y", "src", "draws"}
        self.rendered = 0  # crops loaded from shards
        self.drawn = 0  # crops handed to training
        self.waited_s = 0.0
        self.procs = []
        import multiprocessing as mp

        ctx = mp.get_context("fork")
        self._consumed = ctx.Value("q", next_seed, lock=False)  # the first seed not loaded, for the renderers
        for w in range(workers):
            p = ctx.Process(target=_render_loop, args=(str(self.folder), recipe, next_seed + w, workers, shard_size, keep,
                                                       nice, self._consumed), daemon=True)
            p.start()
            self.procs.append(p)

    def _load_ready(self, block: bool) -> None:
        while len(self.pool) < self.pool_shards:
            path = shard_path(self.folder, self.next_seed)
            if not path.exists():
                if block and not self.pool:
                    t = time.time()
                    while not path.exists():
                        time.sleep(0.05)
                        self._check_renderers()
                    self.waited_s += time.time() - t
                else:
                    return
            x, y, src = read_shard(path)
            path.unlink()
            self.pool.append({"seed": self.next_seed, "x": x, "y": y, "src": src, "draws": 0})
            self.rendered += len(y)
            self.next_seed += 1
            self._consumed.value = self.next_seed

    def _check_renderers(self) -> None:
        dead = [p for p in self.procs if not p.is_alive()]
        if dead:
            raise RuntimeError(f"the crop renderer stopped (exit code {dead[0].exitcode})")

    def batch(self, n: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """``n`` crops drawn from the pool; a retired shard is replaced by a new one when one is ready."""
        self._load_ready(block=True)
        sizes = np.array([len(s["y"]) for s in self.pool])
        which = self.rng.choice(len(self.pool), size=n, p=sizes / sizes.sum())
        xs, ys, srcs = [], [], []
        for k in which:
            s = self.pool[k]
            i = int(self.rng.integers(len(s["y"])))
            x = s["x"][i]
            if self.rng.random() < 0.5:  # a card is either way up: a half-turn is a new view for free
                x = x[:, ::-1, ::-1]
            xs.append(x)
            ys.append(s["y"][i])
            srcs.append(s["src"][i])
            s["draws"] += 1
        self.drawn += n
        # a fresh shard is ready: it takes the place of the most drawn one, once that one has been
        # drawn ``uses`` times a crop (fresh crops first; reuse grows only when rendering falls behind)
        if len(self.pool) >= self.pool_shards and shard_path(self.folder, self.next_seed).exists():
            worn = max(self.pool, key=lambda s: s["draws"] / len(s["y"]))
            if worn["draws"] >= self.uses * len(worn["y"]):
                self.pool.remove(worn)
        self._load_ready(block=False)
        return np.ascontiguousarray(np.stack(xs)), np.array(ys, np.int64), srcs

    @property
    def reuse(self) -> float:
        return self.drawn / max(1, self.rendered)

    def close(self) -> None:
        for p in self.procs:
            if p.is_alive():
                p.terminate()
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():  # never left behind
                p.kill()
                p.join(timeout=5)

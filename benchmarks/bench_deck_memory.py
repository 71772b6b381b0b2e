"""What the table's deck memory buys, crop by crop: a deck seen, views learned, naming again.

For one deck (default: a deck never trained on), real-table crops are drawn
(``vision.training.data.make_batch``: every crop at a real table, 60 % cut with
the card finder's measured corner errors, seeds no training batch uses). The
first crops play the evening's proven views: each is learned into a fresh
:class:`vision.deck_memory.DeckMemory` under its true name, as a player's
answer would teach it; the rest are named by the shipped model alone and by
the :class:`vision.deck_memory.MemoryNamer` with ``--views`` views learned per
card at most, for several fusion settings (``sharpness``, ``floor`` of
:func:`vision.deck_memory.fuse`). It prints, per setting, the crops named right
and wrong at the tracker's bars (the model's threshold, 0.6, 0.9), and the
time a crop takes, model included, and the memory's own (the same naming over
the model's namings found once: its pictures, keypoints, comparisons and
matches; the best of three runs, the crops named all at once and, with the
keypoints, one at a time as the table names them). The views are learned with the model's
probabilities of them, so the memory calibrates its fused probabilities on
them by itself (:meth:`vision.deck_memory.DeckMemory.temperature`, shown as T;
``--no-calibration``: without); then a head fitted on the kept views
(:mod:`vision.memory_head`, for several pulls ``l2`` towards the model,
calibrated on its out-of-fold probabilities of those views); the last row is
the model alone calibrated the same way on the learned crops. Last, the
crops named by the memory alone, as on a deck the model cannot read
(:class:`vision.deck_memory.MemoryAlone`): from its views' embeddings only,
then with their pictures learned beside (:mod:`vision.card_picture`), then
with their keypoints too (:mod:`vision.card_keypoints`), and what each memory
holds (views, those counted, MB).

    .venv/bin/python benchmarks/bench_deck_memory.py [--deck tarock-adler-cego-pysolfc] [--learn 1600] [--test 800]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision import deck_memory  # noqa: E402
from vision.calibration import fit_temperature, scaled  # noqa: E402
from vision.card_picture import PICTURE_DIM  # noqa: E402
from vision.deck_memory import DeckMemory, MemoryNamer, view_of  # noqa: E402
from vision.memory_head import fit_head, head_probs, out_of_fold_probs  # noqa: E402
from vision.namer import Namer  # noqa: E402
from vision.training.data import UNKNOWN_INDEX, Recipe, namer_batches, real_table_recipe  # noqa: E402


SEED = 950_000_000  # the seeds of these crops (training: 1e7 + ..., its check 9e8 + ..., calibration 9.4e8 + ...)
SETTINGS = ((20.0, 0.6), (10.0, 0.6), (20.0, 0.5), (30.0, 0.6), (20.0, 0.7))
HEAD_L2 = (0.02, 0.05, 0.2)  # pulls of the head fitted on the kept views towards the model (vision.memory_head)
ALONE_BARS = (0.9, 0.99)  # the bars the memory alone is read at (the tracker's memory_alone)


class KeypointsAside:
    """A deck memory whose views' keypoints are set aside (what the same memory names without them)."""

    def __init__(self, memory: DeckMemory):
        self.memory = memory

    def __getattr__(self, name):
        return getattr(self.memory, name)

    def keypoint_matches(self, views, mix=deck_memory.PICTURE_MIX):
        return None


class Precomputed:
    """The card model with its namings of the crops found once: naming through a memory over it times
    the memory's own work (the crops' pictures and keypoints, the comparisons, the matches), apart
    from the model's, whose time from run to run on this machine varies by more."""

    def __init__(self, namer: Namer, crops, probs: np.ndarray, embeddings: np.ndarray):
        self.namer = namer
        self.index = {id(c): k for k, c in enumerate(crops)}
        self.probs, self.embeddings = probs, embeddings

    def __getattr__(self, name):
        return getattr(self.namer, name)

    def run(self, crops):
        rows = [self.index[id(c)] for c in crops]
        return self.probs[rows], self.embeddings[rows]


def best_ms(work, runs: int = 3) -> float:
    """The best of ``runs`` timings of ``work()``, in ms."""
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - t0)
    return 1000 * best


def own_ms(namer, crops, runs: int = 3) -> float:
    """The memory's own time a crop: ``namer`` (over :class:`Precomputed`) naming ``crops`` all at once,
    the best of ``runs`` runs (as the model's time: the first run after another's pays for what that
    one left in the caches, and what the memory finds once after each change)."""
    return best_ms(lambda: namer.run(crops), runs) / len(crops)


def own_one_ms(namer, crops, runs: int = 3) -> float:
    """:func:`own_ms` with the crops named one at a time, as the table names them (a crop in most of
    its namings: the cards that came to rest in that frame), each naming paying for its own
    comparisons with every kept view."""
    return best_ms(lambda: [namer.run([crop]) for crop in crops], runs) / len(crops)


def crops_of(recipe: Recipe, n: int, first_seed: int, report) -> tuple[list[np.ndarray], np.ndarray]:
    crops, labels = [], []
    for batch, y, _ in namer_batches(recipe, n, first_seed):
        crops += batch
        labels.append(y)
        report(f"crops {len(crops)}/{n}")
    return crops, np.concatenate(labels)


def figures(probs: np.ndarray, labels: np.ndarray, bars) -> dict:
    pred, conf = probs.argmax(1), probs.max(1)
    card = pred != UNKNOWN_INDEX
    out = {"accuracy": float((pred == labels).mean())}
    for bar in bars:
        named = card & (conf >= bar)
        out[bar] = (float((named & (pred == labels)).mean()), float((named & (pred != labels)).mean()))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"))
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"))
    p.add_argument("--deck", default="tarock-adler-cego-pysolfc", help="the deck at the table (a folder of --decks)")
    p.add_argument("--models-dir", default=None)
    p.add_argument("--learn", type=int, default=1600, help="crops seen before (their views learned)")
    p.add_argument("--test", type=int, default=800, help="crops named after")
    p.add_argument("--views", type=int, default=deck_memory.PER_CARD, help="views kept per card at most")
    p.add_argument("--no-calibration", dest="calibrate", action="store_false",
                   help="learn the views without the model's probabilities (the memory then cannot calibrate itself)")
    p.add_argument("--save", metavar="NPZ", help="also write the crops' probabilities, embeddings and labels there")
    a = p.parse_args(argv)
    decks = Path(a.decks)
    if not (decks / a.deck).is_dir():
        print(f"bench_deck_memory: no deck {a.deck!r} in {decks}", file=sys.stderr)
        return 2
    others = tuple(d.name for d in decks.iterdir() if d.is_dir() and d.name != a.deck)
    bg = a.backgrounds if Path(a.backgrounds).is_dir() else None
    recipe = real_table_recipe(str(decks), bg, ROOT / "models" / "training" / "corner_errors.npz",
                               unknown_rate=0.0, negative_rate=0.0, exclude=others)
    namer = Namer.load(a.models_dir, threads=1)

    def report(text):
        print(f"\r{text}", end="", file=sys.stderr, flush=True)

    learn_crops, learn_labels = crops_of(recipe, a.learn, SEED, report)
    test_crops, test_labels = crops_of(recipe, a.test, SEED + 10_000, report)
    print(file=sys.stderr)
    bars = (namer.threshold, 0.6, 0.9)
    # the model's first runs of so many crops set it up (15 ms a crop, then 4): its time is the best of three
    base_ms = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        base_probs, test_emb = namer.run(test_crops)
        base_ms = min(base_ms, 1000 * (time.perf_counter() - t0) / len(test_crops))
    learn_probs, learn_emb = namer.run(learn_crops)
    if a.save:
        np.savez(a.save, learn_probs=learn_probs, learn_emb=learn_emb, learn_labels=learn_labels,
                 test_probs=base_probs, test_emb=test_emb, test_labels=test_labels)
    labels = namer.labels
    model = Precomputed(namer, test_crops, base_probs, test_emb)  # what the memory's own time is measured over
    print(f"deck {a.deck} ({'never trained on' if a.deck in ('tarock-adler-cego-pysolfc', 'fine-art-tarot-pysolfc') else 'trained on'}), "
          f"model {namer.model_id}; {len(learn_crops)} crops seen and learned, {len(test_crops)} named after")
    with tempfile.TemporaryDirectory() as tmp:
        memory = DeckMemory(Path(tmp) / "memory.db", namer.model_id, learn_emb.shape[1], per_card=a.views)
        t0 = time.perf_counter()
        for k, (e, y) in enumerate(zip(learn_emb, learn_labels)):
            if int(y) != UNKNOWN_INDEX:
                memory.learn(labels[int(y)], e, "answer", f"crop {k}", probs=learn_probs[k] if a.calibrate else None)
        learn_ms = 1000 * (time.perf_counter() - t0) / max(1, len(learn_crops))
        known = len(memory.known_cards())
        # the same views learned as a scored deal's are: in one transaction (DeckMemory.learn_many)
        batch = DeckMemory(Path(tmp) / "batch.db", namer.model_id, learn_emb.shape[1], per_card=a.views)
        t0 = time.perf_counter()
        batch.learn_many([(labels[int(y)], e, f"crop {k}", learn_probs[k] if a.calibrate else None)
                          for k, (e, y) in enumerate(zip(learn_emb, learn_labels)) if int(y) != UNKNOWN_INDEX], "confirmed")
        batch_ms = 1000 * (time.perf_counter() - t0) / max(1, len(learn_crops))
        batch.close()
        print(f"memory: {memory.views_count()} views of {known} cards ({learn_ms:.2f} ms per view learned one by one, "
              f"{batch_ms:.2f} ms in one transaction)")
        # the same views with their pictures (vision.card_picture), then their keypoints too (vision.card_keypoints)
        views = view_of(learn_emb, learn_crops)
        memories = {"embeddings only": memory}
        for name, width in (("with the pictures", learn_emb.shape[1] + PICTURE_DIM), ("and the keypoints", views.shape[1])):
            kept = memories[name] = DeckMemory(Path(tmp) / f"{width}.db", namer.model_id, learn_emb.shape[1],
                                               per_card=a.views)
            kept.learn_many([(labels[int(y)], v[:width], f"crop {k}", learn_probs[k] if a.calibrate else None)
                             for k, (v, y) in enumerate(zip(views, learn_labels)) if int(y) != UNKNOWN_INDEX], "answer")
        header = " ".join(f"at {b:g}: right / wrong" for b in bars)
        print(f"{'namer':<28} {'accuracy':>8}   {header}")

        def line(name, fig, shown=bars):
            print(f"{name:<28} {100 * fig['accuracy']:7.1f} %   " + "   ".join(
                f"{100 * fig[b][0]:5.1f} / {100 * fig[b][1]:4.1f} %" for b in shown))

        line("the model alone", figures(base_probs, test_labels, bars))
        print(f"{'':<28} ({base_ms:.2f} ms per crop named by the model alone)")
        for sharpness, floor in SETTINGS:
            t0 = time.perf_counter()
            probs, _ = MemoryNamer(namer, memory, sharpness, floor).run(test_crops)
            ms = 1000 * (time.perf_counter() - t0) / len(test_crops)
            t = memory.temperature(labels, sharpness, floor)
            line(f"memory {sharpness:g}/{floor:g}, T {t:.2f}", figures(probs, test_labels, bars))
            mine = own_ms(MemoryNamer(model, memory, sharpness, floor), test_crops)
            print(f"{'':<28} ({ms:.2f} ms per crop named with the memory, model included; the memory's own {mine:.2f} ms)")
        # ... with the views' keypoints too: what they settle surely (vision.deck_memory.verified); what its
        # checks read of the views (likenesses, agreements) found first, apart from the namings' time
        keyed = memories["and the keypoints"]
        t0 = time.perf_counter()
        pairs = keyed.derive()
        print(f"{'':<28} (the keypoints' checks read of the views: {pairs} pairs of views matched, "
              f"{1000 * (time.perf_counter() - t0):.0f} ms; after each change only new pairs, below)")
        t0 = time.perf_counter()
        probs, _ = MemoryNamer(namer, keyed).run(test_crops)
        ms = 1000 * (time.perf_counter() - t0) / len(test_crops)
        line(f"memory 20/0.6, keypoints, T {keyed.temperature(labels):.2f}", figures(probs, test_labels, bars))
        mine, one = own_ms(MemoryNamer(model, keyed), test_crops), own_one_ms(MemoryNamer(model, keyed), test_crops)
        print(f"{'':<28} ({ms:.2f} ms per crop named with the memory, model included; the memory's own {mine:.2f} ms, "
              f"{one:.2f} ms named one at a time)")
        aside, _ = MemoryNamer(namer, KeypointsAside(keyed)).run(test_crops)
        line("the same, keypoints aside", figures(aside, test_labels, bars))
        changed = np.flatnonzero(np.any(np.abs(probs - aside) > 1e-6, axis=1))
        right = int((probs[changed].argmax(1) == test_labels[changed]).sum())
        print(f"{'':<28} (the keypoints changed {len(changed)} namings: {right} right, {len(changed) - right} wrong)")
        # a head fitted on the kept views (vision.memory_head), calibrated on its out-of-fold probabilities
        view_probs, view_emb, view_truth = memory.proven_views(labels)
        if len(view_truth):
            unit = test_emb / np.maximum(np.linalg.norm(test_emb, axis=1, keepdims=True), 1e-12)
            for l2 in HEAD_L2:
                t0 = time.perf_counter()
                delta = fit_head(view_probs, view_emb, view_truth, l2)
                fit_ms = 1000 * (time.perf_counter() - t0)
                t = fit_temperature(out_of_fold_probs(view_probs, view_emb, view_truth, l2), view_truth)
                line(f"head l2 {l2:g}, T {t:.2f}", figures(scaled(head_probs(base_probs, unit, delta), t), test_labels, bars))
                print(f"{'':<28} (fitted on {len(view_truth)} views in {fit_ms:.0f} ms)")
        # named by the memory alone, as on a deck the card model cannot read (vision.deck_memory.MemoryAlone):
        # its views' embeddings only, then with their pictures and their keypoints
        print(f"{'named by the memory alone':<28} {'accuracy':>8}   " + " ".join(f"at {b:g}: right / wrong" for b in ALONE_BARS))
        for name, kept in memories.items():
            alone = MemoryNamer(namer, kept, min_views=1).alone()
            t0 = time.perf_counter()
            probs, _ = alone.run(test_crops)
            ms = 1000 * (time.perf_counter() - t0) / len(test_crops)
            line(f"alone, {name}", figures(probs, test_labels, ALONE_BARS), ALONE_BARS)
            held = kept.footprint()
            mine = own_ms(MemoryNamer(model, kept, min_views=1).alone(), test_crops)
            one = own_one_ms(MemoryNamer(model, kept, min_views=1).alone(), test_crops)
            print(f"{'':<28} ({ms:.2f} ms per crop, model included; the memory's own {mine:.2f} ms, {one:.2f} ms named one at "
                  f"a time; {held.views} views, {held.counted} counted, {held.nbytes / 1e6:.2f} MB held)")
        # what a change costs the keypoints' checks: one view learned (an answer), then forgotten (an undo)
        def learn_one() -> None:  # the first crop named after whose view the memory keeps
            for k in np.flatnonzero(test_labels != UNKNOWN_INDEX):
                if keyed.learn(labels[int(test_labels[k])], view_of(test_emb[k: k + 1], test_crops[k: k + 1])[0],
                               "answer", "one more"):
                    return

        for change, act in (("one view learned", learn_one), ("that view forgotten", lambda: keyed.forget("one more"))):
            act()
            t0 = time.perf_counter()
            pairs = keyed.derive()
            print(f"{'':<28} (after {change}: {pairs} pairs of views matched again, "
                  f"{1000 * (time.perf_counter() - t0):.0f} ms)")
        for kept in memories.values():
            if kept is not memory:
                kept.close()
        memory.close()
    # the model alone, calibrated the same way on the learned crops (what a table without the memory could do)
    cards = learn_labels != UNKNOWN_INDEX
    fitted = fit_temperature(learn_probs[cards], learn_labels[cards])
    line(f"the model alone, T {fitted:.2f} (own views)", figures(scaled(base_probs, fitted), test_labels, bars))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How alike a deck's own cards are in their keypoints (``vision.card_keypoints``), scan against scan.

The deck memory settles a naming by a crop's keypoints matched in place with
a card's kept views (docs/tracking.md "A card's keypoints"). That is safe only
where two *different* cards of the deck match in few places. For each deck
folder (one scan per card, ``CODE.png``/``.jpg``), every scan is shrunk to the
namer's crop and its keypoints found as at the table; then every pair of
different cards is matched in place. Prints, per deck: keypoints per card,
the most places two different cards match in, how many pairs match in 10 and
in 20 places or more (20: ``vision.deck_memory.VERIFIED``), the time a pair
takes matched one by one and each card's scan with all the others' at once
(``matches_in_place_many``, as the deck memory matches a crop: the counts
must be the same), and the pairs that match most. A pip deck prints its pips
at the same places on a suit's cards: there the memory leans on each view's likeness to other cards
(``DeckMemory.likeness``) and seldom settles a pip card.

    .venv/bin/python benchmarks/bench_keypoints.py [../shared/decks/DECK ...]   (default: every deck there)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.card_keypoints import (KEY_SIZE, card_keypoint_blocks, keypoints_of, matches_in_place,  # noqa: E402
                                   matches_in_place_many)
from vision.deck_memory import VERIFIED  # noqa: E402

DECKS = ROOT.parent / "shared" / "decks"


def scans(folder: Path) -> tuple[list[str], list[np.ndarray]]:
    """The deck's cards (codes) and their scans at the namer's crop size."""
    import cv2

    codes, images = [], []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in (".png", ".jpg", ".jpeg"):
            continue
        img = cv2.imread(str(path))
        if img is None:
            continue
        codes.append(path.stem)
        images.append(cv2.resize(img, KEY_SIZE, interpolation=cv2.INTER_AREA))
    return codes, images


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("decks", nargs="*", type=Path, help="deck folders (default: every deck in ../shared/decks)")
    parser.add_argument("--top", type=int, default=5, help="the pairs that match most, shown per deck (default 5)")
    a = parser.parse_args(argv)
    decks = a.decks or (sorted(p for p in DECKS.iterdir() if p.is_dir()) if DECKS.is_dir() else [])
    if not decks:
        print("no deck folder given and none in ../shared/decks", file=sys.stderr)
        return 2
    print(f"{'deck':<34} {'cards':>5} {'keypoints':>9} {'most':>5} {'>= 10':>6} {'>= ' + str(VERIFIED):>6}   "
          f"ms a pair: one by one / at once")
    missing = differ = 0
    for folder in decks:
        if not folder.is_dir():
            print(f"{str(folder):<34} no such deck folder", file=sys.stderr)
            missing += 1
            continue
        codes, images = scans(folder)
        if len(codes) < 2:
            print(f"{folder.name:<34} fewer than two scans: skipped")
            continue
        kept = [keypoints_of(b) for b in card_keypoint_blocks(images)]
        t0 = time.perf_counter()
        pairs = sorted(((matches_in_place(kept[i], kept[j]), codes[i], codes[j])
                        for i in range(len(kept)) for j in range(i + 1, len(kept))), reverse=True)
        ms = 1000 * (time.perf_counter() - t0) / len(pairs)
        t0 = time.perf_counter()
        at_once = [matches_in_place_many(kept[i], kept[i + 1:]) for i in range(len(kept) - 1)]
        ms_at_once = 1000 * (time.perf_counter() - t0) / len(pairs)
        same = sorted(((n, codes[i], codes[i + 1 + k]) for i, row in enumerate(at_once) for k, n in enumerate(row)),
                      reverse=True) == pairs
        counts = np.array([p[0] for p in pairs])
        print(f"{folder.name:<34} {len(codes):5d} {np.mean([len(k[0]) for k in kept]):9.0f} {counts.max():5d} "
              f"{int((counts >= 10).sum()):6d} {int((counts >= VERIFIED).sum()):6d}   {ms:.3f} / {ms_at_once:.3f}"
              f"{'' if same else '   the counts differ'}")
        differ += not same
        print(f"{'':<34} most alike: " + ", ".join(f"{x}/{y} {n}" for n, x, y in pairs[: a.top]))
    return 2 if missing else 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

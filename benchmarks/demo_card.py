"""One card of one French tarot demo scene, named by the card model alone and with the table's memory.

A wrong card of a learning evening (``tarotmate demo --conditions hard --deals N
--out DIR``) is the model's or the memory's. This draws the trick again as the
demo drew it (the same seed, table, deal and dealer), cuts the card at its true
corners on the frames asked for, and prints the card model's own best cards and
the same crop named with the evening's deck memory (``DIR/deck-memory.db``) as it
stood when that deal began (the views the deal and the later ones taught left
out, in a copy: the evening's file is only read)::

    .venv/bin/python benchmarks/demo_card.py --memory DIR/deck-memory.db --deal 5 --trick 5 \\
        --card SN --frames 26,29,30

(The deal is the demo's own: its seed's deal first, then the next seed's, each
dealt by the next player, as ``tarotmate demo --deals N`` plays them.)
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def deal_of(ref: str) -> int | None:
    """The deal a view's ``ref`` (``game/deal/operation``) was learned in; None for another ref."""
    parts = ref.split("/")
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None


def memory_before(source: Path, deal: int, into: Path) -> int:
    """A copy of the memory ``source`` at ``into`` with only the views learned before ``deal``; how many."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(str(into))
    try:
        src.backup(dst)
        later = [(i,) for i, ref in dst.execute("SELECT id, ref FROM views") if (deal_of(ref) or 0) >= deal]
        with dst:
            dst.executemany("DELETE FROM views WHERE id = ?", later)
        return int(dst.execute("SELECT COUNT(*) FROM views").fetchone()[0])
    finally:
        src.close()
        dst.close()


def best(labels, row, k: int = 4) -> str:
    order = np.argsort(row)[::-1][:k]
    return " ".join(f"{labels[j]} {row[j]:.3f}" for j in order)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memory", required=True, help="the evening's deck-memory.db")
    parser.add_argument("--deal", type=int, required=True, help="the deal (1 = the demo's first)")
    parser.add_argument("--trick", type=int, required=True)
    parser.add_argument("--card", required=True, help="the card truly played (e.g. SN)")
    parser.add_argument("--frames", default="", help="frames of the scene to cut it on (default: every 5th while it lies)")
    parser.add_argument("--seed", type=int, default=1, help="the demo's --seed")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--conditions", choices=("easy", "hard"), default="hard")
    parser.add_argument("--deck", help="the demo's --deck")
    parser.add_argument("--fast", action="store_true", help="the demo was played with --fast (960x540)")
    args = parser.parse_args(argv)
    if not Path(args.memory).is_file():
        parser.error(f"{args.memory}: no such file (the evening's --out holds deck-memory.db)")

    from device.demo.player import scene_simulator
    from device.demo.table import DemoSettings
    from device.games.french_tarot.demo import demo_deal, trick_script
    from engine.tarot import next_dealer
    from vision.deck_memory import DeckMemory, DeckMemoryError, MemoryNamer
    from vision.namer import Namer
    from vision.simulator import draw_sim_conditions
    from vision.warp import warp_card

    settings = DemoSettings(players=args.players, seed=args.seed, fast=args.fast, deck=args.deck,
                            conditions=args.conditions)
    dealer = demo_deal(args.players, args.seed, 1, None).dealer
    for _ in range(args.deal - 1):
        dealer = next_dealer(dealer, args.players)  # each deal dealt by the next player
    deal = demo_deal(args.players, args.seed, args.deal, dealer)
    ops = [op.to_dict() for op in deal.operations]
    plays = [i for i, op in enumerate(ops) if op["op"] == "play"]
    if not 1 <= args.trick <= len(deal.tricks):
        parser.error(f"the deal has {len(deal.tricks)} tricks")
    trick = deal.tricks[args.trick - 1]
    if args.card not in trick.cards:
        parser.error(f"trick {args.trick} is {' '.join(trick.cards)}: no {args.card}")
    before = plays[(args.trick - 1) * args.players]  # the deal's operations before the trick's first card
    sim = scene_simulator(settings, draw_sim_conditions(args.conditions, args.seed),
                          trick_script(trick, args.players, args.fast), before)
    base = Namer.load(None)
    w, h = base.input_size
    dimension = int(base.embed([np.zeros((h, w, 3), np.uint8)]).shape[1])
    wanted = {int(f) for f in args.frames.split(",") if f.strip()}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            kept = memory_before(Path(args.memory), args.deal, Path(tmp) / "memory.db")
            memory = DeckMemory(Path(tmp) / "memory.db", str(base.model_id), dimension)
        except (sqlite3.Error, DeckMemoryError) as exc:
            parser.error(f"{args.memory}: not a deck memory this card model can read ({exc})")
        weighed = MemoryNamer(base, memory)
        print(f"deal {args.deal}, trick {args.trick}: {' '.join(trick.cards)}; the memory before it: {kept} views")
        last = max(wanted) if wanted else None
        for frame in sim.frames():
            if last is not None and frame.index > last:
                break
            truth = next((t for t in frame.cards if t.code == args.card), None)
            if truth is None or (wanted and frame.index not in wanted) or (not wanted and (truth.moving or frame.index % 5)):
                continue
            crop = warp_card(frame.image, np.asarray(truth.corners, np.float32), base.input_size)
            fused, _, own = weighed.run_with_model([crop])
            print(f"frame {frame.index:4d} ({truth.visible:.0%} in view{', moving' if truth.moving else ''}): "
                  f"model {best(base.labels, own[0])} | with the memory {best(base.labels, fused[0])}")
        memory.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

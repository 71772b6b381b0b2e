"""What a commit bar would cost and buy at the table, replayed from the table benchmark's traces.

``bench_table.py --trace DIR`` records every view the tracker named, with the
card truly under it, and every verdict. For each card the tracker committed
without a question (verdict ``card``), this takes the views it was named from
and asks: with ``commit_bar`` at B (``vision.tracker_settings``: the card's mean
score over all its views), would it still have been committed, or asked? It
prints, per table and bar, per deal: the cards committed right and wrong, and
the questions the bar adds (with how many of those the question's best
candidate would have got right: one press to confirm).

A replay, not a new run: it assumes the tracker's other decisions are
unchanged (in the tracker a card under the bar first waits for all its views,
so a real run can only do as well or better). Check the bar chosen with
``bench_table.py --set commit_bar=B``.

    .venv/bin/python benchmarks/bench_table.py --deals 6 --only help --trace DIR
    .venv/bin/python benchmarks/table_bars.py DIR [--none] [--bars 0 0.9 0.97 0.99 0.999]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.votes import Vote, scores  # noqa: E402

BARS = (0.0, 0.8, 0.9, 0.95, 0.97, 0.99, 0.999)


def committed_cards(scene: dict) -> list[tuple[str, str | None, float]]:
    """(card named, card truly there, its mean score over the views) of each card the scene's
    tracker committed without a question (a card seen again after a move is left out)."""
    views: dict[int, list[dict]] = defaultdict(list)
    out = []
    for row in scene["votes"]:
        if row["what"] == "vote":
            views[row["track"]].append(row)
            continue
        seen = views.pop(row["track"], [])
        if row.get("reverify") or row.get("verdict") != "card" or not seen:
            continue
        votes = [Vote(v.get("card"), float(v["top"][0][1]) if v["top"] else 0.0,
                      [(c, float(p)) for c, p in v["top"]], bool(v.get("conflict"))) for v in seen]
        truth = seen[-1].get("truth")
        out.append((row["card"], truth, scores(votes).get(row["card"], 0.0)))
    return out


def replay(scenes: list[dict], bars=BARS) -> dict[float, dict[str, int]]:
    """Per bar: committed right / wrong, and the questions it adds (asked) of which right / wrong."""
    result = {b: {"right": 0, "wrong": 0, "asked": 0, "asked_wrong_card": 0} for b in bars}
    for scene in scenes:
        for card, truth, score in committed_cards(scene):
            for b in bars:
                if score >= b:
                    result[b]["right" if card == truth else "wrong"] += 1
                else:
                    result[b]["asked"] += 1
                    result[b]["asked_wrong_card"] += card != truth
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", type=Path, help="the folder bench_table.py --trace wrote")
    parser.add_argument("--none", action="store_true", help="the deals played without the rules' help")
    parser.add_argument("--bars", type=float, nargs="+", default=list(BARS))
    args = parser.parse_args(argv)
    which = "none" if args.none else "help"
    files = sorted(args.trace.glob(f"*-{which}.jsonl"))
    if not files:
        print(f"table_bars: no *-{which}.jsonl in {args.trace} (run bench_table.py --trace {args.trace})", file=sys.stderr)
        return 1
    for table in ("easy", "hard"):
        mine = [f for f in files if f"-{table}-" in f.name]
        if not mine:
            continue
        scenes = [json.loads(line) for f in mine for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
        n = len(mine)
        prompts = sum(s["prompts"] for s in scenes) / n
        print(f"{table} table, {n} deals, {'with' if which == 'help' else 'without'} the rules' help "
              f"({prompts:.1f} questions per deal as played); per deal:")
        print(f"  {'bar':>6} {'committed right':>16} {'wrong':>6} {'questions added':>16} {'(misread)':>10}")
        for b, r in replay(scenes, args.bars).items():
            print(f"  {b:>6g} {r['right'] / n:>16.1f} {r['wrong'] / n:>6.2f} {r['asked'] / n:>16.1f} "
                  f"{r['asked_wrong_card'] / n:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

``--set NAME=VALUE`` (any number, ``vision/tracker_settings.py``'s fields)
replays instead the tracker's whole verdict (:func:`vision.votes.verdict`) on
each traced card's views with those settings, view after view as the tracker
took them, and prints, per deal, the cards committed right and wrong and the
questions, against the trace as played. The views the tracker dropped are
dropped again (all of them when the card's quad moved; the earliest, when a
later view no longer looked like them: ``look_change``). The same limits: no
view the tracker did not take (a verdict that would wait for more views is
taken on the views there were), and the tracker's rules after the verdict (a
landing's twin, a quad across the pile) are not replayed: a card whose verdict
as played the settings it was played with (the trace's own, or
``--played NAME=VALUE`` over the defaults) do not give keeps it as played::

    .venv/bin/python benchmarks/table_bars.py DIR --played pip_above_margin=60 --set pip_above_margin=60 --set min_margin=5
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # bench_table's reading of --set

from table_causes import verdict_views  # noqa: E402
from vision.tracker_settings import TrackerSettings, with_bars  # noqa: E402
from vision.votes import CARD, NONE, UNCERTAIN_VERDICT, WAIT, Vote, scores, verdict  # noqa: E402

BARS = (0.0, 0.8, 0.9, 0.95, 0.97, 0.99, 0.999)


def traced_tracks(scene: dict):
    """(verdict row, the views before it) of each card the scene's tracker decided, a card seen
    again after a move left out."""
    for row, seen in verdict_views(scene):
        if not row.get("reverify") and seen:
            yield row, seen


def trace_vote(row: dict) -> Vote:
    """A traced view as the vote the tracker read (its rescored top cards; the "not a card"
    weight from them when it is among them)."""
    top = [(c, float(p)) for c, p in row["top"]]
    vote = Vote(row.get("card"), top[0][1] if top else 0.0, top, bool(row.get("conflict")),
                next((p for c, p in top if c is None), 0.0))
    if row.get("model"):  # the card model's own best cards, before the deck memory weighed them
        vote.model_top = [(c, float(p)) for c, p in row["model"]]
    return vote


def decided_cards(scene: dict) -> list[tuple[str, str | None, str | None, list[Vote], list[int]]]:
    """(verdict as played, card named, card truly there, the views, how many earlier views each
    view made the tracker drop) of each card the scene's tracker decided (a card seen again after
    a move left out, and a quad whose card truly under it the rules no longer allowed: a card of
    the pile already played)."""
    out = []
    for row, seen in traced_tracks(scene):
        if seen[-1].get("weight") == 0:
            continue  # the card truly under it was already played: a view of the pile, not a card to name
        out.append((row.get("verdict"), row.get("card"), seen[-1].get("truth"), [trace_vote(v) for v in seen],
                    [int(v.get("dropped") or 0) for v in seen]))
    return out


def replayed_verdict(votes: list[Vote], settings: TrackerSettings,
                     drops: list[int] | None = None) -> tuple[str, str | None]:
    """What :func:`vision.votes.verdict` decides with ``settings``, given the views one by one.
    ``drops``: how many earlier views the tracker dropped as each view came (``look_change``:
    views that no longer look like the card left alone); the trace does not say which, so the
    earliest are dropped, the views taken while a hand or a card still lay over it."""
    kept: list[Vote] = []
    for k, vote in enumerate(votes):
        drop = drops[k] if drops else 0
        kept = kept[min(drop, len(kept)):] + [vote]
        what, card, _ = verdict(kept, settings, final=k == len(votes) - 1)
        if what != WAIT:
            return what, card
    return NONE, None


def played_settings(scenes: list[dict]) -> TrackerSettings:
    """The settings the traced scenes were played with (the trace's ``tracker``: those not the
    defaults); the defaults for a trace that does not say, or whose scenes say different things."""
    told = [s.get("tracker") for s in scenes]
    if not told or any(t is None or t != told[0] for t in told):
        return TrackerSettings()
    return with_bars(TrackerSettings(), told[0])


def replay_settings(scenes: list[dict], settings: TrackerSettings,
                    played_with: TrackerSettings = TrackerSettings()) -> dict[str, dict[str, int]]:
    """Committed right / wrong, questions and cards left unnamed, as played and as replayed. A card
    whose verdict as played is not what the verdict replayed with ``played_with`` (the settings the
    trace was played with) gives it: the rules after the verdict changed it, and are assumed to
    change it again."""
    out = {which: {"right": 0, "wrong": 0, "asked": 0, "unnamed": 0} for which in ("played", "replayed")}
    for scene in scenes:
        for played, card, truth, votes, drops in decided_cards(scene):
            again = replayed_verdict(votes, settings, drops)
            if replayed_verdict(votes, played_with, drops) != (played, card if played == CARD else None):
                again = (played, card)
            for which, (what, named) in (("played", (played, card)), ("replayed", again)):
                r = out[which]
                if what == CARD:
                    r["right" if named == truth else "wrong"] += 1
                elif what == UNCERTAIN_VERDICT:
                    r["asked"] += 1
                elif truth is not None:
                    r["unnamed"] += 1
    return out


def committed_cards(scene: dict) -> list[tuple[str, str | None, float]]:
    """(card named, card truly there, its mean score over the views) of each card the scene's
    tracker committed without a question (a card seen again after a move is left out)."""
    out = []
    for row, seen in traced_tracks(scene):
        if row.get("verdict") != "card":
            continue
        votes = [trace_vote(v) for v in seen]
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
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="replay the tracker's verdict with this setting instead (vision/tracker_settings.py; "
                             "over the defaults: name the played model's own bars too)")
    parser.add_argument("--played", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting the trace was played with, over the defaults (default: those the "
                             "trace says, the played model's own bars): a card whose verdict they give as played "
                             "is replayed, not kept as played")
    args = parser.parse_args(argv)
    settings = None
    played = None
    if args.set or args.played:
        from dataclasses import replace

        from bench_table import tracker_overrides

        played = replace(TrackerSettings(), **tracker_overrides(args.played)) if args.played else None
        settings = replace(TrackerSettings(), **tracker_overrides(args.set)) if args.set else None
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
        if settings is not None:
            print(f"  {'verdicts':>10} {'committed right':>16} {'wrong':>6} {'questions':>10} {'no event':>8}")
            played_with = played or played_settings(scenes)
            if played is None and played_with != TrackerSettings():
                print(f"  (played with {', '.join(f'{k}={v}' for k, v in scenes[0]['tracker'].items())}, as the trace says)")
            for label, r in replay_settings(scenes, settings, played_with).items():
                print(f"  {label:>10} {r['right'] / n:>16.1f} {r['wrong'] / n:>6.2f} {r['asked'] / n:>10.1f} "
                      f"{r['unnamed'] / n:>8.1f}")
            continue
        print(f"  {'bar':>6} {'committed right':>16} {'wrong':>6} {'questions added':>16} {'(misread)':>10}")
        for b, r in replay(scenes, args.bars).items():
            print(f"  {b:>6g} {r['right'] / n:>16.1f} {r['wrong'] / n:>6.2f} {r['asked'] / n:>16.1f} "
                  f"{r['asked_wrong_card'] / n:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

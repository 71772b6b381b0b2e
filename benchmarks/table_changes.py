"""How much of a new quad changed, for the cards just laid and for quads found across cards already
there, from the table benchmark's traces (the tracker's ``new_change``, docs/tracking.md "A quad
where nothing changed").

``bench_table.py --trace DIR --set new_change=B`` records, with every verdict on a new quad, the
share of it that changed since the latest reported card under it was first named at rest
(``changed``) and since the table lay still before the motion it was found in
(``changed_still``). The tracker drops the quad when both are under the bar. This sorts the
verdicts, named (a card not already named in that scene) or unclear, by the card truly under
the quad: one not yet reported in the scene (a card just laid) or one already reported (the
quad lies across cards already there), and prints, for each, the quantiles of the larger of the
two shares and how many fall under each bar::

    .venv/bin/python benchmarks/bench_table.py --sequence 10 --table hard --jobs 1 --set new_change=0.000001 --trace DIR
    .venv/bin/python benchmarks/table_changes.py DIR [DIR ...] [--bars 0.1 0.2 0.25 0.3 0.4] [--list 0.6]

With ``--patchy B`` it also sorts, the same way, the namings under ``PATCHY_CONFIDENCE`` of new
quads the card finder found only now and then (``patchy`` in the trace): what the tracker's
``patchy_laid`` judges (docs/tracking.md "A card found now and then, laid beside the pile"), with
how many lie under ``NEW_CHANGE_PILE`` on the cards reported where ``B`` or more of them changed
since the table lay still (a card laid all the same); ``--list`` lists them too.

With ``--followed B`` it sorts the namings, as another card under ``LAID_OVER_CONFIDENCE``, of
reported cards followed to a new place (``on_rest`` in the trace: the share of the quad still on
the place where the card was reported): the card truly under the quad just laid, the reported
card itself (misread), or another card already there; with how many lie under ``B`` on the
card's place (what the tracker's ``laid_off`` takes for a card laid; docs/tracking.md "A card
followed off its place").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np


def scene_verdicts(lines):
    """(scene, verdict, already) per verdict of each scene (one JSON line each): ``already`` whether
    the card truly under its quad was reported (named or asked) earlier in that scene."""
    for line in lines:
        scene = json.loads(line)
        reported = set()
        for v in scene.get("votes", []):
            if v.get("what") != "verdict":
                continue
            yield scene, v, v.get("truth") in reported
            if v.get("verdict") in ("card", "uncertain"):
                reported.add(v.get("truth"))


def verdicts(lines):
    """(kind, share, row) per verdict on a new quad with its changes traced: kind ``laid`` (the
    card under it not reported yet in its scene) or ``there`` (reported already)."""
    current, named = None, set()  # the cards named so far in the scene
    for scene, v, already in scene_verdicts(lines):
        if scene is not current:
            current, named = scene, set()
        fresh = not v.get("reverify") and "changed" in v and v.get("verdict") in ("card", "uncertain", "none")
        second = v.get("card") is not None and v.get("verdict") == "card" and v["card"] in named
        if fresh and not second and (v.get("verdict") != "none" or v.get("card") is not None):
            share = max(v["changed"], v.get("changed_still", 1.0))
            yield "there" if already else "laid", share, (scene.get("scene"), v["frame"], v["verdict"], v.get("card"),
                                                          v.get("truth"), v["changed"], v.get("changed_still"), v.get("pile"))
        if v.get("verdict") == "card":
            named.add(v.get("card"))


def patchy_namings(lines, below: float):
    """(kind, pile, changed_still, row) per naming under ``below`` of a new quad found only now and
    then (``patchy``), kind as in :func:`verdicts`."""
    for scene, v, already in scene_verdicts(lines):
        if (v.get("patchy") and not v.get("reverify") and v.get("card") is not None
                and v.get("verdict") in ("card", "none") and v["confidence"] < below):
            yield "there" if already else "laid", v["pile"], v.get("changed_still"), (
                scene.get("scene"), v["frame"], v["verdict"], v["card"], v.get("truth"), round(v["confidence"], 3))


def followed_namings(lines, below: float):
    """(kind, on_rest, row) per naming under ``below``, as another card, of a reported card followed
    to a new place and named again: kind ``laid`` (the card under the quad not yet reported),
    ``itself`` (the card it was reported as, misread) or ``there`` (another card already reported)."""
    current, named = None, {}  # the card each track of the scene was named
    for scene, v, already in scene_verdicts(lines):
        if scene is not current:
            current, named = scene, {}
        track = v.get("track")
        if not v.get("reverify"):
            if v.get("verdict") == "card":
                named[track] = v.get("card")
        elif (v.get("verdict") == "card" and track in named and v.get("card") != named[track]
              and v["confidence"] < below and "on_rest" in v):
            truth = v.get("truth")
            kind = "laid" if not already else "itself" if truth == named[track] else "there"
            yield kind, v["on_rest"], (scene.get("scene"), v["frame"], named[track], v["card"], truth,
                                       round(v["confidence"], 3), v.get("changed_now"))


def add_rows(rows: dict, name: str, namings) -> None:
    """``namings``' rows (kind, first value, rest) into ``rows`` by kind, each with the trace's
    ``name`` after its first value."""
    for kind, first, *rest in namings:
        rows[kind].append((first, name, *rest))


def print_patchy(rows: dict, bar: float, listed: bool) -> None:
    from vision.tracker_settings import NEW_CHANGE_PILE, PATCHY_CONFIDENCE

    print(f"quads found now and then, named under {PATCHY_CONFIDENCE:g}: beside the pile (under {NEW_CHANGE_PILE:g} on it) "
          f"and changed {bar:g} or more since the table lay still")
    labels = {"laid": "card just laid", "there": "across cards there"}
    for kind in ("laid", "there"):
        taken = [r for r in rows[kind] if r[0] < NEW_CHANGE_PILE and r[2] is not None and r[2] >= bar]
        print(f"{labels[kind]:20} {len(rows[kind]):>8} namings, {len(taken)} so")
        if listed:
            for pile, name, still, row in sorted(rows[kind], key=lambda r: r[0]):
                print(" ", labels[kind], name, f"pile {pile:.3f}", f"changed {still}", *row)


def print_followed(rows: dict, bar: float, listed: bool) -> None:
    from vision.tracker_settings import LAID_OVER_CONFIDENCE

    print(f"reported cards followed and named another card under {LAID_OVER_CONFIDENCE:g}: "
          f"lying under {bar:g} on the card's place")
    labels = {"laid": "card just laid", "itself": "the card, misread", "there": "another card there"}
    for kind in ("laid", "itself", "there"):
        shares = sorted(r[0] for r in rows[kind])
        span = f"{shares[0]:.3f}-{shares[-1]:.3f}" if shares else "-"
        print(f"{labels[kind]:20} {len(shares):>8} namings, on its place {span}, {sum(x < bar for x in shares)} under")
        if listed:
            for on_rest, name, row in sorted(rows[kind], key=lambda r: r[0]):
                print(" ", labels[kind], name, f"on its place {on_rest:.3f}", *row)


def main(argv=None) -> int:
    from vision.tracker_settings import LAID_OVER_CONFIDENCE, PATCHY_CONFIDENCE

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dirs", nargs="+", type=Path, help="folders of bench_table.py --trace")
    p.add_argument("--bars", nargs="+", type=float, default=[0.1, 0.2, 0.25, 0.3, 0.4])
    p.add_argument("--list", type=float, default=None, help="also list the verdicts under this share")
    p.add_argument("--patchy", type=float, default=None, metavar="B",
                   help="also the namings of quads found now and then, against patchy_laid at B")
    p.add_argument("--followed", type=float, default=None, metavar="B",
                   help="also the namings of reported cards followed to a new place, against laid_off at B")
    args = p.parse_args(argv)
    missing = [d for d in args.dirs if not d.exists()]
    if missing:
        print(f"no such trace: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    files = [f for d in args.dirs for f in (sorted(d.glob("*.jsonl")) if d.is_dir() else [d])]
    if not files:
        print(f"no traces in {', '.join(map(str, args.dirs))}", file=sys.stderr)
        return 2
    rows = {"laid": [], "there": []}
    patchy = {"laid": [], "there": []}
    followed = {"laid": [], "itself": [], "there": []}
    for f in files:  # each trace read once, every pass over it made here
        name = f"{f.parent.name}/{f.name}"
        try:
            lines = f.read_text(encoding="utf-8").splitlines()
            add_rows(rows, name, verdicts(lines))
            if args.patchy is not None:
                add_rows(patchy, name, patchy_namings(lines, PATCHY_CONFIDENCE))
            if args.followed is not None:
                add_rows(followed, name, followed_namings(lines, LAID_OVER_CONFIDENCE))
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as exc:
            print(f"{f}: not a trace of bench_table.py ({type(exc).__name__}: {exc})", file=sys.stderr)
            return 2
    if not rows["laid"] and not rows["there"]:
        print("no verdict carries its changes: trace with --set new_change=B", file=sys.stderr)
        return 2
    labels = {"laid": "card just laid", "there": "across cards there"}
    print("the larger share of a new quad changed (since the card under it was named, since the table lay still)")
    print(f"{'':20} {'verdicts':>8}  quantiles 0 / 0.02 / 0.05 / 0.5    " + "  ".join(f"<{b:g}" for b in args.bars))
    for kind in ("laid", "there"):
        shares = np.array([r[0] for r in rows[kind]])
        q = " / ".join(f"{x:.3f}" for x in np.quantile(shares, [0, 0.02, 0.05, 0.5])) if len(shares) else "-"
        under = "  ".join(f"{int((shares < b).sum()):>{len(f'<{b:g}')}}" for b in args.bars)
        print(f"{labels[kind]:20} {len(shares):>8}  {q:34} {under}")
    if args.patchy is not None:
        print_patchy(patchy, args.patchy, args.list is not None)
    if args.followed is not None:
        print_followed(followed, args.followed, args.list is not None)
    if args.list is not None:
        for kind in ("laid", "there"):
            for share, name, row in sorted(rows[kind]):
                if share < args.list:
                    print(labels[kind], name, f"{share:.3f}", *row)
    return 0


if __name__ == "__main__":
    sys.exit(main())

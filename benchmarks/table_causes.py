"""Why the camera asked, or got a card wrong, in the table benchmark's traced deals.

``bench_table.py --trace DIR`` writes one JSON line per scene: the cards the
simulator laid (and when they came to rest), the tracker's every view with the
card truly under the quad viewed (how much of it was visible, how far the quad
lay from it), its verdicts, its events, and what the scripted player had to do
(questions, wrong cards undone, cards entered by hand). This reads DIR and
gives each question and each wrong card one cause:

* ``false quad across cards already reported``: the card finder found a quad
  lying across cards of the pile (or on a card already named), and the
  tracker asked about it;
* ``chien row found as one wide quad``: the same, in a row of chien cards;
* ``real card, unclear (...)``: a question about a card really laid, its best
  candidate right or wrong; ``partly covered`` when a card or a hand covered
  part of it while it was viewed;
* ``card never named, asked when ...``: no event for a card laid; the
  controller asked for it when the trick was swept (or the chien taken), or
  the player answered a question with a card still to come;
* ``card laid unseen, asked once the table settled (audit)``: with
  ``--set audit=true``, a card-shaped change no event explained, asked before
  the next card (``a change of the table asked, no new card there``: the same
  for a change that was no card laid);
* ``a card on a later player's side``: a question for the card of the
  player to play, asked because the next card lay on a later player's side
  (``game.played_in_front``);
* ``a card missed before it``: a wrong card that is another card of the same
  trick (the card before it was missed, so it was taken for the missed card's
  seat's);
* ``confident misread of a card the rules still allow``: named without a
  question, wrong, and possible for that seat.

Under the causes, for each table size: how many of the tricks' card events
lay on nobody's side of the middle (no check that the card is the player to
play's, so a card missed before it goes unasked): by the zones' directions
(``toward`` none), and by the spots where each seat laid its trick cards
earlier in the deal (``vision.seat_spots``, what the game judges by once
every seat has laid a card).
And how much of each card reported in a trick lay on the trick's cards
reported before it, and on the one of them it lay on most (the largest
shares, and the shares 99 in 100 stay under): the tracker's ``across_cards``
bar drops a quad named as a card lying more than that on the pile, and its
``from_under`` bar takes a quad lying more than that on one card reported,
named as another card, for that card showing from under the new one (the
namings so taken are counted, with whether each was the card under the quad).

    .venv/bin/python benchmarks/bench_table.py --deals 6 --jobs 1 --trace /tmp/trace
    .venv/bin/python benchmarks/table_causes.py /tmp/trace          # with the rules' help
    .venv/bin/python benchmarks/table_causes.py /tmp/trace --none   # without
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from vision.seat_spots import UNKNOWN, SeatSpots

NOBODY = "on nobody's side"
SPOTS_NOBODY = "on nobody's side by the seats' spots"
ASTRAY = "on another seat's side"
SPOTS_ASTRAY = "on another seat's side by the seats' spots"
FALSE_QUAD = 25.0  # pixels: a quad this far (mean corner distance) from every card is not one card's


def verdict_views(scene: dict):
    """(verdict row, the views of its track since its last verdict) for every verdict of a
    traced scene, in order; rows of a naming put off (``around``) carry neither."""
    views: dict[int, list[dict]] = defaultdict(list)
    for row in scene["votes"]:
        if row["what"] == "vote":
            views[row["track"]].append(row)
        elif row["what"] == "verdict":
            yield row, views.pop(row["track"], [])


def scene_causes(scene: dict) -> Counter:
    """(kind, cause) -> count for one traced scene."""
    causes: Counter = Counter()
    chien = scene["scene"].startswith("the chien")
    laid = [e[3] for e in scene["expected"] if e[0] == "appeared"]
    named: set[str] = set()
    # the unclear quads asked about (not those set aside and shown by the next card to be none)
    none = list(scene.get("no_card", []))
    asked = []
    for e in scene["events"]:
        if e["type"] == "uncertain":
            if e["frame"] in none:
                none.remove(e["frame"])
            else:
                asked.append(e)
    matched: set[int] = set()
    for row, seen in verdict_views(scene):
        if row.get("reverify") or row["verdict"] not in ("card", "uncertain"):
            continue
        truth = seen[-1].get("truth") if seen else row.get("truth")
        if row["verdict"] == "card":
            named.add(row["card"])
            continue
        k = next((i for i, e in enumerate(asked) if e["frame"] == row["frame"] and i not in matched), None)
        if k is None:
            continue
        matched.add(k)
        off = max((v.get("off", 0.0) for v in seen), default=0.0)
        visible = min((v.get("visible", 1.0) for v in seen), default=1.0)
        best = next((c for c, _ in asked[k]["candidates"] if c), None)
        if off > FALSE_QUAD or truth in named:
            cause = "chien row found as one wide quad" if chien and off > 60 else "false quad across cards already reported"
        else:
            how = "partly covered" if visible < 0.95 else "clear"
            cause = f"real card, unclear ({how}), best candidate {'right' if best == truth else 'wrong'}"
        causes["prompt", cause] += 1
        named.add(truth)
    for row in scene["votes"]:
        # a card-shaped change no event explained, asked once the table settled (``audit``)
        if row["what"] != "audit" or not row.get("asked"):
            continue
        k = next((i for i, e in enumerate(asked) if e["frame"] == row["frame"] and i not in matched), None)
        if k is None:
            continue
        matched.add(k)
        if row.get("off", 0.0) > FALSE_QUAD or row.get("truth") in named:
            cause = "a change of the table asked, no new card there (audit)"
        else:
            cause = "card laid unseen, asked once the table settled (audit)"
        causes["prompt", cause] += 1
        named.add(row.get("truth"))
    skipped = scene.get("asked", []).count("skipped")
    if skipped:
        causes["prompt", "a card on a later player's side: the card of the player to play asked first"] += skipped
    others = scene["prompts"] - len(matched) - skipped
    if others > 0:
        causes["prompt", f"card never named, asked when {'the chien was taken' if chien else 'the trick was swept'}"] += others
    for line in scene["details"]:
        # "camera: {got} for {wanted}[, how it was mended]"
        got, want = (ast.literal_eval(part) for part in re.findall(r"\{[^{}]*\}", line)[:2])
        if got.get("card") in laid and got.get("card") != want.get("card"):
            causes["wrong", "a card missed before it: the next card taken for the missed card's seat's"] += 1
        else:
            causes["wrong", "confident misread of a card the rules still allow"] += 1
    return causes


def trick_sides(scene: dict, spots=None) -> Counter:
    """(players, "cards"), (players, NOBODY | ASTRAY | SPOTS_NOBODY | SPOTS_ASTRAY) for one
    traced scene: the trick's card events (appeared or asked, in the middle), those on no
    player's side or on another seat's than the seat that laid it by the zones' directions
    (``toward``), and the same as the game judges them: by the spots where each seat laid its
    trick cards so far in the deal, the zones' until every seat laid one (``spots``, a
    :class:`vision.seat_spots.SeatSpots` the scenes of one deal share: it learns each card at
    its true seat, as the order of play proves it; traces that do not say who laid a card
    leave it empty)."""
    found: Counter = Counter()
    if not scene["scene"].startswith("trick"):
        return found
    players = scene.get("players")
    seat_of = {e[3]: e[4] for e in scene.get("expected", []) if e[0] == "appeared" and len(e) > 4}
    for e in scene["events"]:
        if e.get("zone") == "middle" and e["type"] in ("appeared", "uncertain") and e.get("corners"):
            found[players, "cards"] += 1
            found[players, NOBODY] += e.get("toward") is None
            seat = seat_of.get(e.get("card"))
            found[players, ASTRAY] += seat is not None and e.get("toward") not in (None, seat)
            if spots is not None:
                side = spots.side(e["corners"])
                judged = e.get("toward") if side == UNKNOWN else side
                found[players, SPOTS_NOBODY] += judged is None
                found[players, SPOTS_ASTRAY] += seat is not None and judged not in (None, seat)
                if seat is not None:
                    spots.learn(seat, e["corners"])
    return found


def on_pile(scene: dict) -> list[tuple[float, float]]:
    """For each card reported in the middle of a traced trick (appeared, with corners): the
    shares of its quad lying on the union of the trick's cards reported before it, and on the
    one of them it lies on most."""
    from vision.track_geometry import pile_shares

    if not scene["scene"].startswith("trick"):
        return []
    quads = [e["corners"] for e in scene["events"]
             if e.get("zone") == "middle" and e["type"] == "appeared" and e.get("corners")]
    return [pile_shares(q, quads[:i]) for i, q in enumerate(quads) if i > 0]


def below_showing(scene: dict) -> list[tuple[str, bool]]:
    """(what the tracker did, whether the naming was the card truly under the quad) for each
    naming taken for the card below showing from under the new one (``from_under``): ``asked``
    (no quad found with it) or ``gave way`` (to the new card found with it). A naming that was
    the card under the quad was a card laid: a question more; any other was a wrong card spared."""
    return [(v["from_under"], v["card"] == v.get("truth")) for v in scene["votes"]
            if v.get("what") == "verdict" and v.get("from_under")]


DEEP_PILE = 0.9  # a quad lying this much on the cards reported, for the line on cards reported from such quads


def deep_reports(scene: dict, deep: float = DEEP_PILE) -> list[tuple[float, bool, float]]:
    """(mean confidence, right, share on the pile) of each card the tracker reported (an
    ``appeared`` or ``moved`` event at its verdict's frame) from a naming on a quad lying ``deep``
    or more on the cards reported before it: where a quad across the pile, named as a card, hides."""
    reported = {(e["frame"], e["card"]) for e in scene["events"] if e["type"] in ("appeared", "moved")}
    return [(float(v["confidence"]), v["card"] == v.get("truth"), float(v["pile"])) for v in scene["votes"]
            if v.get("what") == "verdict" and v.get("verdict") == "card" and not v.get("reverify")
            and v.get("pile", 0.0) >= deep and (v["frame"], v["card"]) in reported]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", type=Path, help="the folder bench_table.py --trace wrote")
    parser.add_argument("--none", action="store_true", help="the deals played without the rules' help")
    args = parser.parse_args()
    which = "none" if args.none else "help"
    files = sorted(args.trace.glob(f"*-{which}.jsonl"))
    if not files:
        print(f"table_causes: no *-{which}.jsonl in {args.trace} (run bench_table.py --trace {args.trace})",
              file=sys.stderr)
        return 1
    for table in ("easy", "hard"):
        mine = [f for f in files if f"-{table}-" in f.name]
        if not mine:
            continue
        causes: Counter = Counter()
        totals: Counter = Counter()
        sides: Counter = Counter()
        piled: list[tuple[float, float]] = []
        below: list[tuple[str, bool]] = []
        deep: list[tuple[float, bool, float]] = []
        for path in mine:
            spots = None
            for line in path.read_text(encoding="utf-8").splitlines():
                scene = json.loads(line)
                if spots is None:
                    spots = SeatSpots(scene.get("players") or 4)
                causes += scene_causes(scene)
                sides += trick_sides(scene, spots)
                piled += on_pile(scene)
                deep += deep_reports(scene)
                below += below_showing(scene)
                for key in ("prompts", "wrong", "by_hand"):
                    totals[key] += scene[key]
        n = len(mine)
        print(f"{table} table, {n} deals, {'with' if which == 'help' else 'without'} the rules' help: "
              f"{totals['prompts'] / n:.1f} prompts, {totals['wrong'] / n:.1f} wrong, {totals['by_hand'] / n:.1f} by hand per deal")
        for (kind, cause), count in sorted(causes.items(), key=lambda kv: (kv[0][0], -kv[1])):
            print(f"  {kind:<6} {count / n:5.2f} per deal ({count:>3})  {cause}")
        sizes = [p for p in sorted({p for p, _ in sides}, key=str) if sides[p, "cards"]]
        for label, nobody, astray in (("by the zones' directions", NOBODY, ASTRAY),
                                      ("as the game judges them, by the spots where each seat laid its cards "
                                       "(the zones' until each seat laid one)", SPOTS_NOBODY, SPOTS_ASTRAY)):
            if sizes:
                print(f"  trick cards on nobody's side / on another seat's, {label}: " + ", ".join(
                    f"{p} players {sides[p, nobody]}/{sides[p, 'cards']} ({sides[p, nobody] / sides[p, 'cards']:.0%})"
                    f" / {sides[p, astray]}" for p in sizes))
        if piled:
            union, one = sorted(u for u, _ in piled), sorted(o for _, o in piled)
            k = min(len(piled) - 1, int(0.99 * len(piled)))
            print(f"  trick cards on the cards before them: {len(piled)} cards, at most {union[-1]:.2f}, "
                  f"99 in 100 under {union[k]:.2f}; on any one of them at most {one[-1]:.2f}, 99 in 100 under {one[k]:.2f}")
        print(f"  namings taken for the card below showing (from_under): {len(below)}, "
              f"{sum(a == 'asked' for a, _ in below)} asked, {sum(a == 'gave way' for a, _ in below)} gave way to the card "
              f"found with them; {sum(not right for _, right in below)} were not the card under the quad (wrong cards spared), "
              f"{sum(right for _, right in below)} were (a card laid: a question more, or a card dropped)")
        print(f"  cards reported from a quad lying {DEEP_PILE:g} or more on the pile: {len(deep)}, "
              f"{sum(not right for _, right, _ in deep)} wrong" + "".join(
                  f"{';' if k else ':'} {conf:.2f} {'right' if right else 'WRONG'} ({pile:.2f} on it)"
                  for k, (conf, right, pile) in enumerate(sorted(deep))))
    return 0


if __name__ == "__main__":
    sys.exit(main())

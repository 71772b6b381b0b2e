"""``tarotmate trivium check CARD...``: name the Trivium combination some cards form."""

from __future__ import annotations

import argparse
import json

HELP = "Trivium tools: 'check CARD...' names the combination the cards form"


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="trivium_command", metavar="ACTION", required=True)
    check = sub.add_parser(
        "check",
        help="name the combination formed by all the given cards",
        description=(
            "Name the Trivium combination formed by all the given cards (codes T01..T21, "
            "EX for El Loco, S/H/D/C + 01..10, J, N, Q, K): tercia, trivium, cuadrivium, "
            "gran_cuadrivium or gran_maestre, or say why they form none."
        ),
    )
    check.add_argument("cards", nargs="+", metavar="CARD", help="card codes, e.g. C10 H10 S01")
    check.add_argument("--json", action="store_true", help="print one JSON object and nothing else")
    check.add_argument(
        "--loco-in-gran-cuadrivium",
        action="store_true",
        help="El Loco may complete a Gran Cuadrivium (variant; off by default)",
    )


def run(args: argparse.Namespace) -> int:
    from engine.cards import parse_distinct
    from engine.trivium.combinations import DISPLAY, classify
    from engine.trivium.options import TriviumOptions

    cards = parse_distinct(args.cards)
    options = TriviumOptions(loco_in_gran_cuadrivium=args.loco_in_gran_cuadrivium)
    verdict = classify(cards, options)
    if args.json:
        print(json.dumps(verdict.to_dict(), ensure_ascii=False))
    elif verdict.is_combination:
        print(f"{DISPLAY[verdict.combination]}, {verdict.points} points: {verdict.reason}")
    else:
        print(f"not a combination: {verdict.reason}")
    return 0

"""``tarotmate trivium``: Trivium tools.

* ``check CARD...``: name the combination the cards form (``--json``: one object);
* ``simulate``: play games between the built-in bots and print what happened.
"""

from __future__ import annotations

import argparse
import json
import sys

HELP = "Trivium tools: 'check CARD...' names a combination, 'simulate' plays bot games"


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--loco-in-gran-cuadrivium",
        action="store_true",
        help="El Loco may complete a Gran Cuadrivium (variant; off by default)",
    )


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
    _add_options(check)
    check.set_defaults(_trivium=_check)

    simulate = sub.add_parser(
        "simulate",
        help="play games between the built-in bots and print the outcome",
        description="Play random games between the built-in bots (known deals) and print what happened.",
    )
    simulate.add_argument("--games", type=int, default=1, help="how many games (default 1)")
    simulate.add_argument("--players", type=int, default=3, choices=(2, 3, 4), help="players per game (default 3)")
    simulate.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    simulate.add_argument(
        "--pozo-exhausted", choices=("reshuffle", "draw"), default="reshuffle",
        help="what an empty pozo does (default reshuffle)",
    )
    simulate.add_argument(
        "--loco-starts", action="store_true",
        help="El Loco counts as the lowest major to choose who starts (variant)",
    )
    simulate.add_argument("--record", metavar="FILE", help="save the last game as a trivium-game/1 record")
    simulate.add_argument("--json", action="store_true", help="print one JSON object of statistics")
    _add_options(simulate)
    simulate.set_defaults(_trivium=_simulate)


def run(args: argparse.Namespace) -> int:
    return args._trivium(args)


def _check(args: argparse.Namespace) -> int:
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


def _simulate(args: argparse.Namespace) -> int:
    import time
    from collections import Counter

    from engine.errors import TarotmateError
    from engine.trivium.bot import describe, random_game
    from engine.trivium.operations import Steal
    from engine.trivium.options import TriviumOptions
    from engine.trivium.record import save

    if args.games < 1:
        raise TarotmateError("--games must be at least 1")
    if args.record:
        from device.paths import ensure_file_folder

        ensure_file_folder(args.record, "--record")  # before the games, not after
    options = TriviumOptions(
        loco_in_gran_cuadrivium=args.loco_in_gran_cuadrivium,
        pozo_exhausted=args.pozo_exhausted,
        loco_starts=args.loco_starts,
    )
    outcomes: Counter = Counter()
    steals = pair_trivia = reshuffles = 0
    exchanges: list[int] = []
    started = time.perf_counter()
    game = None
    for i in range(args.games):
        game = random_game(args.players, args.seed + i, options)
        outcomes[game.result.combination if game.result else "no_winner"] += 1
        steals += any(isinstance(op, Steal) for op in game.operations)
        pair_trivia += bool(game.result and any(len(g) == 2 for g in game.result.groups)
                            and game.result.combination == "trivium")
        reshuffles += sum(1 for a in game.announcements if a.kind == "reshuffle")
        exchanges.append(game.state.exchanges)
    elapsed = time.perf_counter() - started
    if args.record:
        save(game, args.record)
        print(f"saved the last game to {args.record}", file=sys.stderr)
    stats = {
        "games": args.games,
        "players": args.players,
        "outcomes": dict(sorted(outcomes.items())),
        "games_with_a_steal": steals,
        "trivia_with_the_pair": pair_trivia,
        "reshuffles": reshuffles,
        "mean_exchanges": round(sum(exchanges) / len(exchanges), 2),
        "max_exchanges": max(exchanges),
        "ms_per_game": round(1000 * elapsed / args.games, 3),
    }
    if args.json:
        print(json.dumps(stats))
        return 0
    if args.games == 1:
        for event in game.announcements:
            print(event.text)
        print(f"result: {describe(game)}")
        return 0
    for key, value in stats.items():
        print(f"{key}: {value}")
    return 0

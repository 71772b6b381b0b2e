"""``tarotmate demo``: a whole game on the simulated table, through the real pipeline."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HELP = "play French tarot deals (or a Trivium match) on the simulated table, camera to OLED"


def configure(parser: argparse.ArgumentParser) -> None:
    from device.app.registry import games

    names = [name for g in games() for name in (g.kind, *g.aliases)]
    ranges = ", ".join(f"{g.kind} {g.players[0]}-{g.players[1]}" for g in games())
    parser.add_argument("--game", choices=names, default=games()[0].kind,
                        help=f"the game to play (default: {games()[0].kind})")
    parser.add_argument("--players", type=int, default=None,
                        help=f"number of players ({ranges}; default {games()[0].default_players})")
    parser.add_argument("--seed", type=int, default=1, help="which random deal or game to play (default 1)")
    parser.add_argument("--deals", type=int, default=1, metavar="N",
                        help="deals to play (Trivium: games of the match), the next seed for each; "
                             "fewer when --target is reached first (default 1)")
    parser.add_argument("--target", type=int, default=None, metavar="POINTS",
                        help="the total that ends the game early (French tarot: game_target, e.g. 1000; "
                             "Trivium: the match target)")
    parser.add_argument("--out", metavar="DIR",
                        help="where to write demo.gif, the record, scores.txt/csv and the demo's deal log "
                             "(default: a new temporary folder). Run the same command again to resume.")
    parser.add_argument("--fast", action="store_true", help="smaller frames and quicker hands (about twice as fast)")
    parser.add_argument("--display", choices=("auto", "pygame", "none"), default="auto",
                        help="show the OLED in a window (auto: when a desktop display is available)")
    parser.add_argument("--recogniser", choices=("auto", "model", "truth"), default="auto",
                        help="card recognition: the shipped ONNX model (auto: the model when it is installed, "
                             "else the simulator's ground truth with a warning)")
    parser.add_argument("--deck", metavar="DIR", help="draw the cards from a folder of scans (CODE.jpg/png) "
                                                      "instead of the built-in deck")
    parser.add_argument("--profile", metavar="NAME", help="name the cards with this enrolled deck's profile "
                                                         "(`tarotmate decks`; as `tarotmate run --deck NAME`) "
                                                         "instead of the card model's own classes")
    parser.add_argument("--lang", choices=("en", "fr", "es"), default="en", help="language of the screens")
    parser.add_argument("--conditions", choices=("easy", "hard"), default="easy",
                        help="the simulated table: easy (default: even light, a sharp top-down camera) or hard "
                             "(dim light and noise, a lamp's glare, lingering hands, trick piles, small cards, "
                             "a tilted camera, blur; drawn from --seed)")
    parser.add_argument("--no-rules-help", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--fresh", action="store_true", help="forget the demo's log in --out and start over")
    parser.add_argument("--learn-deck", action=argparse.BooleanOptionalAction, default=True,
                        help="the table learns its deck as it plays: the views of cards whose name is proven "
                             "(answered, or undisputed until the deal is scored) weigh the naming of the next ones "
                             "(default: on; --no-learn-deck plays each deal with the card model alone)")
    parser.add_argument("--max-seconds", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--frame-width", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--speed", type=float, default=None, help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    from device.demo.table import DemoSettings, check_recognition, run_demo
    from device.app.registry import game_for
    from engine.errors import TarotmateError

    kind = game_for(args.game)
    game = kind.kind
    players = args.players if args.players is not None else kind.default_players
    allowed = kind.players
    if not kind.allows(players):
        raise TarotmateError(f"--players: {game} is played by {allowed[0]} to {allowed[1]} players, not {players}")
    if args.deals < 1:
        raise TarotmateError(f"--deals: at least 1 deal is played, not {args.deals}")
    if args.target is not None and args.target < 1:
        raise TarotmateError(f"--target: expected a positive total, not {args.target}")
    if args.profile is not None:  # before anything is dealt or written
        from vision.decks import check_deck

        check_recognition(args.recogniser, args.profile)
        check_deck(args.profile)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="tarotmate-demo-"))
    settings = DemoSettings(
        game=game, players=players, seed=args.seed, out=out, fast=args.fast, display=args.display,
        recogniser=args.recogniser, deck=args.deck, profile=args.profile, lang=args.lang, fresh=args.fresh,
        max_seconds=args.max_seconds, frame_width=args.frame_width, speed=args.speed,
        deals=args.deals, target=args.target,
        conditions=args.conditions, rules_help=not args.no_rules_help, learn_deck=args.learn_deck,
    )
    result = run_demo(settings)
    sys.stdout.write(result["text"])
    print(f"done in {result['seconds']:.0f} s; outputs in {out}", file=sys.stderr)
    return 0

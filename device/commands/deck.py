"""``tarotmate deck memory``: what the table has learned of its deck by sight, and forgetting it."""

from __future__ import annotations

import argparse
import json
import sys
import time

HELP = "the table's deck memory: 'deck memory' lists the cards it knows by sight, '--reset' forgets them"


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
    mem = sub.add_parser("memory", help="the cards the table has learned by sight (views per card, when, from what)",
                         description="The cards the table has learned by sight from cards whose name was proven "
                                     "(an answer, a card entered by hand, a card confirmed by the deal's end). "
                                     "Nothing leaves the device.")
    mem.add_argument("--config", help="configuration file (the memory lies beside its store.path, the deal log)")
    mem.add_argument("--db", help="the deal log whose deck memory to show, instead of the configured one")
    mem.add_argument("--json", action="store_true", help="print it as JSON")
    mem.add_argument("--reset", action="store_true", help="forget every card learned")


def memory_file(args: argparse.Namespace):
    from device.config import default_config_path, load_config
    from vision.deck_memory import memory_path_beside

    log = args.db or load_config(args.config or default_config_path()).store.resolved()
    return memory_path_beside(log)


def deck_reading(readings: list[float]) -> dict:
    """The table's gauge of how surely the card model reads its deck (vision.deck_reading), as
    ``{"cards", "read_surely", "deck_read"}``: the latest cards decided, the share of them read
    surely and whether that is the deck read at the tracker's default bar (both None before the
    deck is judged)."""
    from vision.deck_reading import DeckReading
    from vision.tracker_settings import TrackerSettings

    gauge = DeckReading()
    for r in readings:
        gauge.decided(r)
    share = gauge.sure_share()
    return {"cards": len(gauge.readings), "read_surely": None if share is None else round(share, 3),
            "deck_read": None if share is None else not gauge.unread(TrackerSettings().unread_deck)}


def run(args: argparse.Namespace) -> int:
    from vision.deck_memory import read_summary, reset_file

    path = memory_file(args)
    if args.reset:
        n = reset_file(path)
        if args.json:
            print(json.dumps({"path": str(path), "forgotten": n}))
        else:
            print(f"the deck memory {path} forgot {n} views", file=sys.stderr)
        return 0
    summary = read_summary(path)
    cards = summary["cards"] if summary else []
    reading = deck_reading(summary["readings"] if summary else [])
    if args.json:
        print(json.dumps({"path": str(path), "model": summary["model"] if summary else None,
                          "cards_known": len(cards), "views": summary["views"] if summary else 0,
                          "cards": [c.to_json() for c in cards], "reading": reading}))
        return 0
    if reading["read_surely"] is not None:
        verdict = ("it reads this deck" if reading["deck_read"] else
                   "it cannot read this deck: its cards are asked, but those the table knows by sight "
                   "(enrol it: tarotmate enroll)")
        print(f"the card model read {reading['read_surely']:.0%} of the latest {reading['cards']} cards surely: "
              f"{verdict}")
    if not cards:
        print(f"the table knows no card by sight yet ({path})")
        return 0
    print(f"the table knows {len(cards)} of 78 cards by sight, {summary['views']} views ({path})")
    for c in cards:
        sources = ", ".join(f"{k} {v}" for k, v in sorted(c.sources.items()))
        print(f"  {c.card:4s} {c.views} view{'s' if c.views != 1 else ' '}  "
              f"last {time.strftime('%Y-%m-%d %H:%M', time.localtime(c.last))}  ({sources})")
    return 0

"""``tarotmate history [--csv FILE]``: the games of the deal log and their scores."""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import sys

HELP = "list the games of the deal log with their scores (and export them as CSV)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="configuration file (its store.path is the deal log)")
    parser.add_argument("--db", help="the deal log (SQLite) to read, instead of the configured one")
    parser.add_argument("--csv", metavar="FILE", help="also write one row per deal to FILE ('-' = stdout)")


def _when(timestamp: float | None) -> str:
    if timestamp is None:
        return "in progress"
    return dt.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")


def _score(value: float) -> str:
    return f"{value:g}"


def deal_rows(log) -> list[dict]:
    """One row per deal of every game: game, deal number, kind, names, scores."""
    rows = []
    for game in log.games():
        totals = [0.0] * game.players
        for deal in log.deals(game.id):
            scores = deal.scores or [0.0] * game.players
            totals = [t + s for t, s in zip(totals, scores)]
            row = {
                "game": game.id,
                "kind": game.kind,
                "deal": deal.number,
                "finished": _when(deal.finished),
                "status": "done" if deal.scores is not None else ("in progress" if deal.finished is None else "no score"),
            }
            for seat, name in enumerate(game.names):
                row[f"score_{seat}"] = scores[seat]
                row[f"total_{seat}"] = totals[seat]
                row[f"name_{seat}"] = name
            rows.append(row)
    return rows


def _words(kind: str) -> tuple[str, str]:
    """What the whole and one unit of play are called (a Trivium match is made of games)."""
    from device.games.registry import game_for
    from engine.errors import TarotmateError

    try:
        game = game_for(kind)
    except TarotmateError:  # a game this version does not know: plain words
        return "game", "deal"
    return game.match_word, game.deal_word


def print_table(log, out=sys.stdout) -> None:
    games = log.games()
    if not games:
        print("no games in the deal log", file=out)
        return
    for game in games:
        deals = log.deals(game.id)
        what, unit = _words(game.kind)
        title = f"{what} {game.id} · {game.kind} · {game.players} players · {_when(game.started)}"
        if game.finished is None:
            title += " · in progress"
        print(title, file=out)
        width = max(6, *(len(n) for n in game.names))
        print(f"  {unit} " + " ".join(f"{n:>{width}}" for n in game.names), file=out)
        totals = [0.0] * game.players
        for deal in deals:
            if deal.scores is None:
                state = "(in progress)" if deal.finished is None else "(no score)"
                print(f"  {deal.number:>4} {state}", file=out)
                continue
            totals = [t + s for t, s in zip(totals, deal.scores)]
            print(f"  {deal.number:>4} " + " ".join(f"{_score(s):>{width}}" for s in deal.scores), file=out)
        print("  total " + " ".join(f"{_score(t):>{width}}" for t in totals), file=out)
        print(file=out)


def write_csv(rows: list[dict], handle) -> None:
    if not rows:
        handle.write("game,kind,deal,finished,status\n")
        return
    players = max(int(k.split("_")[1]) for r in rows for k in r if k.startswith("score_")) + 1
    header = ["game", "kind", "deal", "finished", "status"]
    for seat in range(players):
        header += [f"name_{seat}", f"score_{seat}", f"total_{seat}"]
    writer = csv.DictWriter(handle, fieldnames=header, restval="", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (_score(v) if isinstance(v, float) else v) for k, v in row.items()})


def run(args: argparse.Namespace) -> int:
    from device.config import default_config_path, load_config
    from device.storage.deal_log import DealLog, StoreError

    if args.db:
        path = args.db
    else:
        config = load_config(args.config or default_config_path())
        path = config.store.resolved()
    from pathlib import Path

    if not Path(path).exists():
        raise StoreError(f"{path}: no deal log there yet (nothing has been played)")
    with DealLog.open(path) as log:
        print_table(log, out=sys.stderr if args.csv == "-" else sys.stdout)
        if args.csv:
            rows = deal_rows(log)
            if args.csv == "-":
                write_csv(rows, sys.stdout)
            else:
                with open(args.csv, "w", encoding="utf-8", newline="") as handle:
                    write_csv(rows, handle)
                print(f"wrote {len(rows)} deals to {args.csv}", file=sys.stderr)
    return 0

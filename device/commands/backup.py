"""``tarotmate backup FILE``: a consistent copy of the deal log, even while it is in use."""

from __future__ import annotations

import argparse
import sys

HELP = "copy the deal log to FILE consistently (SQLite's online backup, WAL included), even during a game"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="where to write the copy (a new SQLite file)")
    parser.add_argument("--config", help="configuration file (its store.path is the deal log)")
    parser.add_argument("--db", help="the deal log to copy, instead of the configured one")
    parser.add_argument("--force", action="store_true", help="replace FILE when it exists")


def run(args: argparse.Namespace) -> int:
    from device.config import default_config_path, load_config
    from device.storage.deal_log import backup

    if args.db:
        source = args.db
    else:
        source = load_config(args.config or default_config_path()).store.resolved()
    result = backup(source, args.file, overwrite=args.force)
    print(f"backed up {source} to {result.path}: {result.games} games, {result.deals} deals, "
          f"{result.operations} operations ({result.size} bytes)", file=sys.stderr)
    if result.problem is not None:
        print(f"tarotmate backup: warning: the copy is kept, but it is damaged as the log is: {result.problem}",
              file=sys.stderr)
        return 1
    return 0

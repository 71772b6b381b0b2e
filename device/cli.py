"""The ``tarotmate`` command: one sub-command per module of ``device.commands``.

Each command module defines ``HELP`` (one line), ``configure(parser)`` and
``run(args) -> int``, and imports heavy libraries (OpenCV, onnxruntime, luma)
inside ``run`` so that ``tarotmate --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from engine.errors import TarotmateError

# name -> module under device.commands; the order is the order of --help.
COMMANDS = {
    "demo": "demo",
    "run": "run",
    "replay": "replay",
    "trivium": "trivium",
    "classify": "classify",
    "watch": "watch",
    "screens": "screens",
    "history": "history",
    "config": "config",
    "enroll": "enroll",
    "decks": "decks",
    "club": "club",
}


def _load(name: str):
    return importlib.import_module(f"device.commands.{COMMANDS[name]}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tarotmate",
        description="Tarotmate: a table companion for French tarot and Trivium.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = _load(name)
        except ModuleNotFoundError as exc:
            if not exc.name or not exc.name.startswith("device.commands"):
                raise
            continue  # a command this installation does not have
        if only is not None and name != only:
            sub.add_parser(name, help=module.HELP, add_help=False)
            continue
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.configure(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    wanted = argv[0] if argv and argv[0] in COMMANDS else None
    parser = build_parser(only=wanted)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except TarotmateError as exc:
        print(f"tarotmate {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tarotmate {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

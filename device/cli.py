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
from engine.text import printable

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
    "backup": "backup",
    "config": "config",
    "enroll": "enroll",
    "decks": "decks",
    "deck": "deck",
    "club": "club",
    "camera": "camera",
}


EXIT_STATUS = """exit status (every command):
  0    done
  1    done in part: some of the input failed (each failure named on stderr
       as "tarotmate COMMAND: error: ..."), or the work stopped and can go on
  2    nothing done: a usage error, or an input, file, folder or device that
       cannot be used ("tarotmate COMMAND: error: ..." names it and why)
  3    run only: the camera was lost for camera.give_up_after_s and run gave
       it up (systemd's Restart=on-failure starts the service again)
  130  interrupted (Ctrl-C)"""

EXIT_DONE, EXIT_PARTIAL, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130


def error_line(command: str, message: str) -> str:
    """The one form of every error message: ``tarotmate COMMAND: error: MESSAGE``."""
    return f"tarotmate {command}: error: {printable(message)}"  # control characters shown escaped


def _load(name: str):
    return importlib.import_module(f"device.commands.{COMMANDS[name]}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tarotmate",
        description="Tarotmate: a table companion for French tarot and Trivium.",
        epilog=EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also show the log on stderr (e.g. OpenCV's and libjpeg's warnings)")
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
    wanted = next((a for a in argv if not a.startswith("-")), None)
    wanted = wanted if wanted in COMMANDS else None
    parser = build_parser(only=wanted)
    args = parser.parse_args(argv)
    _configure_logging(args.verbose)
    if not getattr(args, "_run", None):
        parser.print_help()
        return EXIT_ERROR
    try:
        return int(args._run(args) or 0)
    except TarotmateError as exc:
        print(error_line(args.command, str(exc)), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"tarotmate {args.command}: interrupted", file=sys.stderr)
        _interrupt_handled()
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_DONE


def _interrupt_handled() -> None:
    """Let the interpreter exit with the status :func:`main` returns after Ctrl-C.

    CPython 3.11 marks a Ctrl-C as never handled when it lands inside code run
    from a string (``eval``: ``collections.namedtuple`` does so, and Pillow
    builds one the first time it saves a PNG), and then ends ``python -m
    device.cli`` by SIGINT rather than with status 130. Each such run starts
    by clearing that mark, so one more, harmless, clears it."""
    eval("None")  # noqa: S307 - a constant, to clear the mark (see above)


def _configure_logging(verbose: bool) -> None:
    import logging

    root = logging.getLogger()
    if not root.handlers:  # a host program (or a test) may have set its own
        logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(message)s")
    elif verbose:
        root.setLevel(logging.INFO)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

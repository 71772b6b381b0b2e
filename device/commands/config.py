"""``tarotmate config check [FILE]``: validate a configuration file."""

from __future__ import annotations

import argparse
import sys

HELP = "check a configuration file (TOML) or print the documented example"


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="validate FILE and print the effective configuration")
    check.add_argument(
        "file", nargs="?", help="the TOML file (default: $TAROTMATE_CONFIG, /etc/tarotmate/tarotmate.toml, "
        "~/.config/tarotmate/tarotmate.toml)"
    )
    check.add_argument("-q", "--quiet", action="store_true", help="print nothing when the file is valid")
    sub.add_parser("example", help="print the documented example configuration")


def run(args: argparse.Namespace) -> int:
    from device.config import ConfigError, default_config_path, describe, example_toml, load_config

    if args.action == "example":
        sys.stdout.write(example_toml())  # device/tarotmate.example.toml is this text (a test keeps them equal)
        return 0
    path = args.file or default_config_path()
    if path is None:
        raise ConfigError(
            "no configuration file given and none found at the default places "
            "(/etc/tarotmate/tarotmate.toml, ~/.config/tarotmate/tarotmate.toml)"
        )
    config = load_config(path)
    if not args.quiet:
        sys.stdout.write(describe(config))
        print(f"{path}: OK", file=sys.stderr)
    return 0

"""``tarotmate run``: the table companion (camera, OLED, buttons) as configured."""

from __future__ import annotations

import argparse

HELP = "run the table companion: camera, rules engine, OLED and buttons, as the configuration says"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE",
                        help="configuration file (default: $TAROTMATE_CONFIG, /etc/tarotmate/tarotmate.toml, "
                             "~/.config/tarotmate/tarotmate.toml, else the defaults)")
    parser.add_argument("--deck", metavar="NAME", help="deck profile to recognise (overrides camera.deck; "
                                                       "see tarotmate decks)")
    parser.add_argument("--max-frames", type=int, default=None, help="stop after this many frames (for tests)")


def run(args: argparse.Namespace) -> int:
    from device.app.loop import StopFlag, run_device
    from device.config import default_config_path, load_config

    config = load_config(args.config or default_config_path())
    if args.deck:
        from dataclasses import replace

        config = replace(config, camera=replace(config.camera, deck=args.deck))
    stop = StopFlag()
    stop.install()
    return run_device(config, stop=stop, max_frames=args.max_frames)

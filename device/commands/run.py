"""``tarotmate run``: the table companion (camera, OLED, buttons) as configured."""

from __future__ import annotations

import argparse

HELP = "run the table companion: camera, rules engine, OLED and buttons, as the configuration says"


EPILOG = """exit status:
  0    stopped: SIGTERM (systemctl stop), Ctrl-C, or --max-frames reached
  2    nothing done: the configuration, the camera or the display cannot be
       used at start ("tarotmate run: error: ..." names it and why)
  3    the camera was lost for camera.give_up_after_s: run gives it up, so
       that systemd's Restart=on-failure starts the service again"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
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

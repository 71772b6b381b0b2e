"""``tarotmate camera check [SOURCE | IMAGE...] [--json]``: is the picture good enough, and what to change.

With no argument it checks the configured camera (``[camera]``); with one
SOURCE (``picamera2``, a camera number, a video file or an image folder) it
samples ``--frames`` frames from it; with image files it checks each. With
``--json`` it prints one JSON list, one object per image or sampled frame::

    [{"image": "table.jpg", "light": {"level": 0.82, "noise": 1.9}, "sharpness": 0.27,
      "glare": [[x, y, w, h]], "card_height_px": 151.0,
      "advice": [{"code": "glare", "text": "Glare on the cards: ..."}]}]

(with ``"controls"``, the controls set, on a Pi camera). Advice codes, worst
first: ``dim``, ``blur``, ``glare``, ``small_cards``, ``tilted``, ``noisy``,
``no_card`` (and ``cut`` after ``glare`` with ``--edges``, which also adds
``"cut": [sides]``, the picture's edges that cut a card found); ``ok`` alone when nothing is wrong. The words are in the screen's
language (``ui.language``, or ``--lang``). Exit status 0 when every picture is
good enough, 1 when there is advice (or an image could not be read: it is named
on stderr), 2 when nothing could be checked. Thresholds: ``docs/camera.md``.
"""

from __future__ import annotations

import argparse
import json
import sys

HELP = "check the camera's picture (light, focus, glare, card size, tilt) and say what to change"

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="measure the picture and advise (exit 0: good enough, 1: advice)")
    check.add_argument("inputs", nargs="*", metavar="SOURCE | IMAGE",
                       help="a camera (picamera2, 0), a video file or an image folder, or image files "
                            "(default: the configured camera)")
    check.add_argument("--json", action="store_true", help="print one JSON list, one object per image or frame")
    check.add_argument("--frames", type=int, default=3, metavar="N",
                       help="frames to sample from a camera, a video or a folder (default 3)")
    check.add_argument("--edges", action="store_true",
                       help="also say when a card found is cut by the picture's edge (advice 'cut'): lay a card at "
                            "each seat's edge of the table first")
    check.add_argument("--lang", choices=("en", "fr", "es"), help="language of the advice (default: ui.language)")
    check.add_argument("--config", metavar="FILE", help="configuration file (default: the usual places, else defaults)")


def _config(path):
    from device.config import Config, default_config_path, load_config

    path = path or default_config_path()
    return load_config(path) if path else Config()


def _is_image(path: str) -> bool:
    from pathlib import Path

    p = Path(path)
    return p.suffix.lower() in IMAGE_SUFFIXES and not p.is_dir()


def sampled(source, count: int, live: bool):
    """``count`` frames of ``source``: one a second from a camera, spread over a video
    or a folder (every k-th frame when its length is known)."""
    import time

    total = len(source) if hasattr(source, "__len__") else getattr(source, "frame_count", 0)
    step = max(1, total // count) if total else 1
    taken, last = 0, None
    for frame in source:
        if live:
            now = time.monotonic()
            if last is not None and now - last < 1.0:
                continue
            last = now
        elif frame.index % step:
            continue
        yield frame
        taken += 1
        if taken >= count:
            return


def _open_source(spec: str | None, config, report):
    from device.hardware.from_config import open_frame_source
    from vision.sources import is_live, open_source

    if spec is None:
        game = None
        if config.camera.source == "simulator":
            from device.app.registry import game_for

            game = game_for(config.game.kind)
        source = open_frame_source(config, game, report=report)
        live = config.camera.source == "picamera2" or (config.camera.source == "opencv" and not config.camera.path)
        return source, live, config.camera.source
    if spec == "picamera2":
        from dataclasses import replace

        return open_frame_source(replace(config, camera=replace(config.camera, source="picamera2")), report=report), \
            True, spec
    return open_source(spec, fps=None, size=(config.camera.width, config.camera.height)), is_live(spec), spec


def check_images(inputs: list[str], config, frames: int, report):
    """(name, BGR image or None, error or None, controls or None) for each picture to check."""
    from device.commands.classify import read_image
    from vision.native_log import NativeStderr

    if inputs and (len(inputs) > 1 or _is_image(inputs[0])):
        for path in inputs:
            with NativeStderr(prefix=f"camera check: {path}: ") as quiet:
                image, error = quiet.call(read_image, path)
            yield path, image, error, None
        return
    source, live, name = _open_source(inputs[0] if inputs else None, config, report)
    with source:
        controls = getattr(source, "controls", None) or None
        for frame in sampled(source, max(1, frames), live):
            yield f"{name}#{frame.index}", frame.image, None, controls


def run(args: argparse.Namespace) -> int:
    from device.cli import EXIT_ERROR, EXIT_PARTIAL, error_line
    from device.screens.camera_check import advice_texts
    from vision.camera_check import Thresholds, check_frame
    from vision.localise import find_cards

    config = _config(args.config)
    texts = advice_texts(args.lang or config.ui.language)
    thresholds = Thresholds(hfov_deg=config.camera.hfov_deg)
    results, failed, advised = [], 0, 0

    def report(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    for name, image, error, controls in check_images(args.inputs, config, args.frames, report):
        if error:
            failed += 1
            print(error_line("camera check", f"{name}: {error}"), file=sys.stderr)
            results.append({"image": name, "error": error})
            continue
        result = check_frame(image, find_cards(image), thresholds, edges=args.edges)
        advised += not result.good
        item = result.to_json(name, texts)
        if controls:
            item["controls"] = controls
        results.append(item)
        if not args.json:
            print(f"{name}: " + " ".join(a["text"] for a in item["advice"]))
            height = "—" if item["card_height_px"] is None else f"{item['card_height_px']:.0f} px"
            print(f"  light {item['light']['level']:.2f} (noise {item['light']['noise']:.1f}), sharpness "
                  f"{item['sharpness']:.3f}, glare spots {len(item['glare'])}, cards {height}")
    if args.json:
        print(json.dumps(results, ensure_ascii=False))
    if not results:
        raise_nothing()
    if failed == len(results):
        return EXIT_ERROR
    return EXIT_PARTIAL if failed or advised else 0


def raise_nothing():
    from engine.errors import TarotmateError

    raise TarotmateError("no picture came from the source")

"""``tarotmate classify IMAGE...``: the cards found in still images.

With ``--json`` it prints one list, one object per image, in the order given::

    [{"image": "a.jpg", "cards": [{"card": "H07", "confidence": 0.99,
      "corners": [[x, y], [x, y], [x, y], [x, y]]}], "ms": 12.5}]

``ms`` is the time spent localising and naming (not reading the file). An
image that cannot be read is reported on stderr and, with ``--json``, appears
as ``{"image": path, "error": "...", "cards": []}``; the other images still run
and the exit status is 1 (the command line's convention: done, part of the
input failed; each failure on stderr as ``tarotmate classify: error: ...``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

HELP = "name the cards in still images (a table photo, or one card close-up with --whole)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (JPEG, PNG, ...)")
    parser.add_argument("--whole", action="store_true", help="each image is one card close-up: name it without localising")
    parser.add_argument("--deck", metavar="NAME", default=None, help="deck profile to name the cards with (default: the built-in model)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    parser.add_argument("--threshold", type=float, default=None, help="minimum confidence to accept a card (default: the model's bar for still images)")


def _card_json(card: str, confidence: float, corners) -> dict:
    return {
        "card": card,
        "confidence": round(float(confidence), 4),
        "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in corners],
    }


def classify_image(image, namer, whole: bool) -> list[dict]:
    """The named cards of one BGR image, as JSON-ready dicts."""
    import numpy as np

    from vision.localise import order_quad
    from vision.recognise import recognise
    from vision.still_views import name_still

    if whole:
        h, w = image.shape[:2]
        quad = order_quad(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32))
        naming = name_still(image, [quad], namer)[0]
        return [_card_json(naming.card, naming.confidence, quad)] if naming.card else []
    return [_card_json(d.card, d.confidence, d.corners) for d in recognise(image, namer, nudged=True)]


def read_image(path: str):
    """The BGR image at ``path``, or an error message."""
    import os

    import cv2

    if not os.path.exists(path):
        return None, "no such file"
    if os.path.isdir(path):
        return None, "is a directory"
    try:
        image = cv2.imread(path, cv2.IMREAD_COLOR)
    except cv2.error as exc:  # pragma: no cover - depends on the codec
        return None, f"cannot decode: {exc}"
    if image is None:
        return None, "not a readable image (unknown format or corrupt file)"
    return image, None


def run(args: argparse.Namespace) -> int:
    from device.cli import EXIT_PARTIAL, error_line
    from vision.decks import load_namer
    from vision.native_log import NativeStderr

    namer = load_namer(deck=args.deck, threshold=args.threshold)
    if args.threshold is None and hasattr(namer, "still_threshold"):
        # one still image, no second look: the model's bar for still images (chosen from bench_unknown.py's curve);
        # a deck profile keeps its own rejection threshold
        namer.threshold = float(namer.still_threshold)
    results, failed = [], 0
    for path in args.images:
        with NativeStderr(prefix=f"classify: {path}: ") as quiet:  # libjpeg's warnings go to the log
            image, error = quiet.call(read_image, path)
        if error:
            failed += 1
            print(error_line("classify", f"{path}: {error}"), file=sys.stderr)
            results.append({"image": path, "error": error, "cards": []})
            continue
        t0 = time.perf_counter()
        cards = classify_image(image, namer, args.whole)
        ms = (time.perf_counter() - t0) * 1000
        results.append({"image": path, "cards": cards, "ms": round(ms, 1)})
        if not args.json:
            found = ", ".join(f"{c['card']} ({c['confidence']:.2f})" for c in cards) or "no card"
            print(f"{path}: {found}  [{ms:.1f} ms]")
    if args.json:
        print(json.dumps(results))
    return EXIT_PARTIAL if failed else 0

"""Golden images of every example screen, in the three languages.

Check them (exit 1 on any difference)::

    .venv/bin/python -m device.screens.golden

Regenerate them after an intended change of a screen (then look at them)::

    .venv/bin/python -m device.screens.golden --update
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PIL import Image, ImageChops

from device.i18n import LANGUAGES
from device.screens import render
from device.screens.examples import DEFAULT_STYLE, examples

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "tests" / "screens" / "golden"


def golden_path(lang: str, name: str) -> Path:
    return GOLDEN_DIR / lang / f"{name}.png"


def rendered(lang: str) -> dict[str, Image.Image]:
    """Every example screen of ``lang`` in its default card style."""
    return {name: render(view, lang, DEFAULT_STYLE[lang]) for name, view in examples(lang).items()}


def differing_pixels(a: Image.Image, b: Image.Image) -> int:
    """How many pixels differ (all of them if the sizes or modes differ)."""
    if a.size != b.size or a.mode != b.mode:
        return max(a.width * a.height, b.width * b.height)
    diff = ImageChops.difference(a.convert("L"), b.convert("L"))
    return sum(diff.histogram()[1:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check or regenerate the golden screen images.")
    parser.add_argument("--update", action="store_true", help="write the golden images from the current code")
    args = parser.parse_args(argv)
    bad = 0
    for lang in LANGUAGES:
        for name, image in rendered(lang).items():
            path = golden_path(lang, name)
            if args.update:
                path.parent.mkdir(parents=True, exist_ok=True)
                image.save(path)
                continue
            if not path.exists():
                print(f"missing: {path}")
                bad += 1
                continue
            n = differing_pixels(image, Image.open(path))
            if n:
                print(f"{lang}/{name}: {n} pixels differ")
                bad += 1
    if args.update:
        print(f"wrote the golden images under {GOLDEN_DIR}")
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""``tarotmate screens``: every screen with example states, as PNG files."""

from __future__ import annotations

import argparse

HELP = "render every OLED screen with example states to PNG files (real size and x4)"
LANGS = ("en", "fr", "es")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for the PNG files")
    parser.add_argument("--lang", choices=LANGS,
                        help="one language (default: all three, in subfolders en/ fr/ es/)")
    parser.add_argument("--style", choices=("french", "tarot"),
                        help="card names with French or Spanish/tarot suits (default: tarot for es, else french)")
    parser.add_argument("--scale", type=int, default=4, help="factor of the enlarged copies (default 4)")


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from device.paths import ensure_folder
    from device.screens import render
    from device.screens.draw import scaled
    from device.screens.examples import DEFAULT_STYLE, examples
    from engine.errors import TarotmateError

    if args.scale < 1 or args.scale > 16:
        raise TarotmateError(f"--scale must be between 1 and 16, not {args.scale}")
    root = Path(args.out)
    langs = [args.lang] if args.lang else list(LANGS)
    count = 0
    for lang in langs:
        folder = ensure_folder(root if args.lang else root / lang, "--out")
        style = args.style or DEFAULT_STYLE[lang]
        for name, view in examples(lang).items():
            image = render(view, lang, style)
            image.save(folder / f"{name}.png")
            if args.scale > 1:
                scaled(image, args.scale).save(folder / f"{name}@{args.scale}x.png")
            count += 1
    print(f"wrote {count} screens under {root}", file=sys.stderr)
    return 0

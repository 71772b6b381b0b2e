"""What the benchmarks' charts share: a white canvas and the face they write with."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FONT = ROOT / "device" / "fonts" / "DejaVuSansCondensed-Bold.ttf"


def canvas(width: int, height: int, size: int = 13):
    """(image, drawing, font): a white ``width`` x ``height`` RGB image to draw a chart on."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (width, height), "white")
    try:
        font = ImageFont.truetype(str(FONT), size)
    except OSError:
        font = ImageFont.load_default()
    return img, ImageDraw.Draw(img), font

"""Build the screens' face from DejaVu Sans Condensed Bold (a maintainer's tool).

The 128x64 OLED draws text at 9 to 24 pixels without grey levels. DejaVu's own
hinting merges shapes there: "8" loses its waist and reads "B", the dot of "?"
touches its stem ("7"), the dot of "i" sits one pixel row above the stem
("Cavaller"), and "-" and "·" are two pixels. This script writes
``TarotmateSansCondensed-Bold.ttf``, which differs from DejaVu only in:

* the dot of ``i`` and ``j`` raised and their stems a little lower, so that a gap
  of at least one clear row shows at every size;
* a capital ``I`` with serifs and a small foot on ``l``, so that ``I``, ``l``
  and ``i`` differ (DejaVu draws ``I`` and ``l`` as the same bar at most sizes);
* a deeper waist on "8", so that its sides do not run straight down like a "B";
* a larger middle dot, a longer and thicker hyphen and a thicker minus sign;
* new hinting by ttfautohint (strong stems for one-bit rendering), which keeps
  the gap of "?";
* its names (the Bitstream Vera licence asks a modified face to be renamed).

Run it after changing it (it needs fontTools and Debian's ttfautohint, neither
is a dependency of Tarotmate)::

    apt-get install ttfautohint && python3 -m venv /tmp/ft && /tmp/ft/bin/pip install fonttools
    /tmp/ft/bin/python device/fonts/build_font.py

then regenerate the golden screens (``python -m device.screens.golden --update``).
"""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "DejaVuSansCondensed-Bold.ttf"
TARGET = HERE / "TarotmateSansCondensed-Bold.ttf"
FAMILY = "Tarotmate Sans Condensed"

STEM_TOP = 1010  # i/j stems end here (DejaVu: 1120, the x-height)
DOT = (1420, 1700)  # i/j dots span these heights (DejaVu: 1264..1556)
EIGHT_WAIST = (795, 0.32, 230)  # height of the waist of "8", how much narrower it gets, over what height
MIDDLE_DOT_SCALE = 1.55
HYPHEN = ((60, 420), (830, 770))  # box of the hyphen (DejaVu: 100,444 .. 665,735)
HYPHEN_ADVANCE = 890
MINUS_Y = (470, 820)  # the minus sign's bar (DejaVu: 524..760)
SERIF_I = [(20, 1493), (665, 1493), (665, 1223), (516, 1223), (516, 270), (665, 270), (665, 0),
           (20, 0), (20, 270), (169, 270), (169, 1223), (20, 1223)]  # clockwise, as DejaVu's bar
FOOT_L = [(155, 1556), (477, 1556), (477, 250), (680, 250), (680, 0), (155, 0)]
FOOT_L_ADVANCE = 760


def _contours(glyph, glyf):
    coords = glyph.getCoordinates(glyf)[0]
    start = 0
    for end in glyph.endPtsOfContours:
        yield range(start, end + 1), coords
        start = end + 1


def _remap(value: float, old: tuple[float, float], new: tuple[float, float]) -> int:
    return round(new[0] + (value - old[0]) * (new[1] - new[0]) / (old[1] - old[0]))


def patch(font) -> None:
    from fontTools.ttLib.tables import ttProgram
    from fontTools.ttLib.tables._g_l_y_f import GlyphCoordinates

    glyf = font["glyf"]
    cmap = font.getBestCmap()
    for ch in "ij":
        g = glyf[cmap[ord(ch)]]
        coords = g.coordinates
        for idx, _ in _contours(g, glyf):
            ys = [coords[i][1] for i in idx]
            if min(ys) >= 1200:  # the dot
                for i in idx:
                    coords[i] = (coords[i][0], _remap(coords[i][1], (min(ys), max(ys)), DOT))
            else:  # the stem: its top moves down
                top = max(ys)
                for i in idx:
                    if coords[i][1] == top:
                        coords[i] = (coords[i][0], STEM_TOP)
        g.recalcBounds(glyf)
    for ch, outline in (("I", SERIF_I), ("l", FOOT_L)):
        g = glyf[cmap[ord(ch)]]
        g.coordinates = GlyphCoordinates(outline)
        g.flags = bytearray([1] * len(outline))
        g.endPtsOfContours = [len(outline) - 1]
        g.program = ttProgram.Program()
        g.program.fromBytecode(b"")
        g.recalcBounds(glyf)
    font["hmtx"][cmap[ord("l")]] = (FOOT_L_ADVANCE, FOOT_L[0][0])
    eight = glyf[cmap[ord("8")]]
    waist_y, squeeze, spread = EIGHT_WAIST
    xs = [p[0] for p in eight.coordinates]
    cx = (min(xs) + max(xs)) / 2
    for i, (x, y) in enumerate(eight.coordinates):
        k = 1 - squeeze * math.exp(-((y - waist_y) / spread) ** 2)
        eight.coordinates[i] = (round(cx + (x - cx) * k), y)
    eight.recalcBounds(glyf)
    dot = glyf[cmap[ord("·")]]
    xs = [p[0] for p in dot.coordinates]
    ys = [p[1] for p in dot.coordinates]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    for i, (x, y) in enumerate(dot.coordinates):
        dot.coordinates[i] = (round(cx + (x - cx) * MIDDLE_DOT_SCALE), round(cy + (y - cy) * MIDDLE_DOT_SCALE))
    dot.recalcBounds(glyf)
    hyphen_name = cmap[ord("-")]
    hy = glyf[hyphen_name]
    xs = [p[0] for p in hy.coordinates]
    ys = [p[1] for p in hy.coordinates]
    (x0, y0), (x1, y1) = HYPHEN
    for i, (x, y) in enumerate(hy.coordinates):
        hy.coordinates[i] = (_remap(x, (min(xs), max(xs)), (x0, x1)), _remap(y, (min(ys), max(ys)), (y0, y1)))
    hy.recalcBounds(glyf)
    font["hmtx"][hyphen_name] = (HYPHEN_ADVANCE, x0)
    minus = glyf[cmap[ord("−")]]
    ys = [p[1] for p in minus.coordinates]
    for i, (x, y) in enumerate(minus.coordinates):
        minus.coordinates[i] = (x, _remap(y, (min(ys), max(ys)), MINUS_Y))
    minus.recalcBounds(glyf)
    for table in ("hdmx", "LTSH", "VDMX"):  # device metrics of the old outlines
        if table in font:
            del font[table]


def rename(font) -> None:
    names = font["name"]
    for record in names.names:
        text = record.toUnicode()
        if record.nameID in (1, 16):
            record.string = FAMILY
        elif record.nameID in (3, 4, 6):
            record.string = (FAMILY + " Bold").replace(" ", "" if record.nameID == 6 else " ")
        elif record.nameID == 5:
            record.string = text + "; Tarotmate screens"


def main() -> int:
    from fontTools.ttLib import TTFont

    ttfautohint = shutil.which("ttfautohint")
    if ttfautohint is None:
        print("error: ttfautohint is not installed (apt-get install ttfautohint)", file=sys.stderr)
        return 2
    font = TTFont(str(SOURCE))
    patch(font)
    rename(font)
    with tempfile.TemporaryDirectory() as tmp:
        unhinted = Path(tmp) / "unhinted.ttf"
        font.save(str(unhinted))
        subprocess.run([ttfautohint, "--stem-width-mode=sss", "--no-info", 
                        str(unhinted), str(TARGET)], check=True)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

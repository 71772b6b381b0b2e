"""Render time of every screen (goal: at most 5 ms each on the target machine).

    .venv/bin/python benchmarks/bench_screens.py [--repeat N]

Prints, per screen and language, the median and the 95th percentile of N
renders (after a warm-up render that loads the font and fills the caches),
and the median of "cold" renders, with the text-width cache emptied first
(new names or scores on every frame), then the slowest medians. Also times one ``show`` on the real ssd1306 driver
code (luma's page conversion, on a no-op interface: no I2C transfer).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device.hardware.display import open_display  # noqa: E402
from device.i18n import LANGUAGES  # noqa: E402
from device.screens import render  # noqa: E402
from device.screens.draw import text_width  # noqa: E402
from device.screens.examples import DEFAULT_STYLE, examples  # noqa: E402

GOAL_MS = 5.0


def timings(fn, repeat: int) -> list[float]:
    fn()  # warm-up
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    worst = (0.0, "")
    worst_cold = (0.0, "")
    print(f"{'screen':<14}{'lang':<6}{'median ms':>10}{'p95 ms':>9}{'cold ms':>9}")
    for lang in LANGUAGES:
        for name, view in examples(lang).items():
            def draw():
                return render(view, lang, DEFAULT_STYLE[lang], 3)

            def draw_cold():
                text_width.cache_clear()
                return draw()

            t = sorted(timings(draw, args.repeat))
            cold = statistics.median(timings(draw_cold, max(10, args.repeat // 4)))
            median, p95 = statistics.median(t), t[int(len(t) * 0.95) - 1]
            worst = max(worst, (median, f"{lang}/{name}"))
            worst_cold = max(worst_cold, (cold, f"{lang}/{name}"))
            print(f"{name:<14}{lang:<6}{median:>10.2f}{p95:>9.2f}{cold:>9.2f}")
    from luma.core.interface.serial import noop

    display = open_display("ssd1306", serial=noop())
    image = render(examples("en")["target"])
    t = sorted(timings(lambda: display.show(image), args.repeat))
    print(f"ssd1306(noop) show: median {statistics.median(t):.2f} ms")
    for label, (ms, where) in (("slowest screen", worst), ("slowest cold screen", worst_cold)):
        verdict = "meets" if ms <= GOAL_MS else "MISSES"
        print(f"{label}: {where} {ms:.2f} ms median: {verdict} the {GOAL_MS:g} ms goal")
    return 0


if __name__ == "__main__":
    sys.exit(main())

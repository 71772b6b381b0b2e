"""Render time of every screen (goal: at most 5 ms each on the target machine).

    .venv/bin/python benchmarks/bench_screens.py [--repeat N]

Prints, per screen and language, the median and the 95th percentile of N
renders (after a warm-up render that loads the font and fills the caches),
then the slowest median. Also times one ``show`` on the real ssd1306 driver
code (luma's page conversion, on a no-op interface: no I2C transfer).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device.display import open_display  # noqa: E402
from device.i18n import LANGUAGES  # noqa: E402
from device.screens import render  # noqa: E402
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
    print(f"{'screen':<14}{'lang':<6}{'median ms':>10}{'p95 ms':>9}")
    for lang in LANGUAGES:
        for name, view in examples(lang).items():
            t = sorted(timings(lambda: render(view, lang, DEFAULT_STYLE[lang], 3), args.repeat))
            median, p95 = statistics.median(t), t[int(len(t) * 0.95) - 1]
            worst = max(worst, (median, f"{lang}/{name}"))
            print(f"{name:<14}{lang:<6}{median:>10.2f}{p95:>9.2f}")
    from luma.core.interface.serial import noop

    display = open_display("ssd1306", serial=noop())
    image = render(examples("en")["target"])
    t = sorted(timings(lambda: display.show(image), args.repeat))
    print(f"ssd1306(noop) show: median {statistics.median(t):.2f} ms")
    verdict = "meets" if worst[0] <= GOAL_MS else "MISSES"
    print(f"slowest screen: {worst[1]} {worst[0]:.2f} ms median: {verdict} the {GOAL_MS:g} ms goal")
    return 0


if __name__ == "__main__":
    sys.exit(main())

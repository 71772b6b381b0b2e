"""Localisation time of card locators on the same real-table frames, one thread, interleaved.

    .venv/bin/python benchmarks/time_locators.py models/locator.onnx DIR/locator.onnx [...]

40 real-table frames (1280x720, ``synth.make_table_scene``, seed 11, the built-in
deck) are localised by each locator in turn, frame by frame, so that a machine
busy with other work slows them alike; the figure is the CPU time of the thread
(``CardLocator`` on one onnxruntime and OpenCV thread), median, mean and p90. A
``locator_looks.onnx`` beside a locator's file takes its further looks, as in the app.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision import synth  # noqa: E402
from vision.locator import CardLocator  # noqa: E402


def main(argv=None) -> int:
    paths = list(sys.argv[1:] if argv is None else argv)
    if not paths:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    rng = np.random.default_rng(11)
    faces = synth.builtin_faces()
    frames = [synth.make_table_scene(rng, faces).image for _ in range(40)]
    locators = {p: CardLocator.load(p) for p in paths}
    for loc in locators.values():  # warm up
        for f in frames[:3]:
            loc(f)
    times: dict[str, list[float]] = {p: [] for p in paths}
    for f in frames:
        for p, loc in locators.items():
            t0 = time.thread_time()
            loc(f)
            times[p].append(time.thread_time() - t0)
    for p, t in times.items():
        ms = 1000 * np.array(t)
        print(f"{p}: CPU ms per 1280x720 frame median {np.median(ms):.1f}, mean {ms.mean():.1f}, p90 {np.percentile(ms, 90):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

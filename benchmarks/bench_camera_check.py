"""The camera check on table scenes with known troubles, and what the live view costs.

    .venv/bin/python benchmarks/bench_camera_check.py --scenes 64      # ≈ 1 s a scene here
    .venv/bin/python benchmarks/bench_camera_check.py --live-only --seconds 10

Scenes (:mod:`vision.camera_scenes`): every combination of dim light, glare on
a card, defocus sigma 2-3 px and cards under 110 px, in turn, from ``--seed``
on (the tests use 9000-9031; the thresholds were chosen on 5000-5047). For each
trouble it prints the share of the scenes with it that get its advice and of
the scenes without it that get it anyway, and the check's time per 1280×720
frame (the card finder apart). Then cards cut by the frame's edge: the same
seeds drawn as :func:`vision.camera_scenes.cut_scene` (a card 20-80 % out of
the frame) against the trouble scenes whose cards all lie in the frame. ``--live`` then feeds the live view 10 frames a
second for ``--seconds`` while it is watched, and prints the CPU time it took
as a share of one core.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CODES = {"dim": "dim", "glare": "glare", "blur": "blur", "small": "small_cards"}


def scenes(args) -> None:
    from vision import camera_check as cc
    from vision import camera_scenes as cs
    from vision.localise import find_cards

    counts = {t: [0, 0, 0, 0] for t in CODES}
    cut = [0, 0, 0, 0]  # cut scenes, advised; scenes with every card in the frame, advised anyway
    times = []
    for i in range(args.scenes):
        on = cs.factorial(i)
        scene = cs.trouble_scene(args.seed + i, on)
        quads = find_cards(scene.image)
        t0 = time.process_time()
        advice = cc.check_frame(scene.image, quads, edges=True).advice
        times.append(time.process_time() - t0)
        if all(c.inside >= 0.99 for c in scene.cards):  # every card in the frame: no card is cut
            cut[2] += 1
            cut[3] += "cut" in advice
        for trouble, code in CODES.items():
            k = 0 if on[trouble] else 2
            counts[trouble][k] += 1
            counts[trouble][k + 1] += code in advice
    print(f"{args.scenes} scenes from seed {args.seed}")
    for trouble, (n1, hit, n0, false) in counts.items():
        print(f"  {CODES[trouble]:12s} with it: {hit}/{n1} = {hit / max(1, n1):.0%}   "
              f"without it: {false}/{n0} = {false / max(1, n0):.0%}")
    for i in range(args.scenes):
        scene = cs.cut_scene(args.seed + i)
        if scene is not None:
            cut[0] += 1
            cut[1] += "cut" in cc.check_frame(scene.image, find_cards(scene.image), edges=True).advice
    n1, hit, n0, false = cut
    print(f"  {'cut':12s} with it: {hit}/{n1} = {hit / max(1, n1):.0%}   without it: {false}/{n0} = {false / max(1, n0):.0%}"
          "   (without: the scenes with every card in the frame)")
    times.sort()
    print(f"  check time (CPU, card finder apart): median {1000 * times[len(times) // 2]:.0f} ms")


def live(args) -> None:
    from device.app.camera_check import DeviceCameraCheck
    from vision import camera_scenes as cs
    from vision.zones import default_zones

    frame = cs.trouble_scene(args.seed, {}).image
    check = DeviceCameraCheck(zones=default_zones())
    cards = [{"card": "H07", "zone": "middle", "corners": [[300, 200], [380, 200], [380, 340], [300, 340]]}]
    t_end = time.monotonic() + args.seconds
    cpu0, wall0 = time.process_time(), time.monotonic()
    while time.monotonic() < t_end:
        check.live_state()  # a phone polling
        check.jpeg()
        check.on_frame(frame, cards)
        time.sleep(0.1)
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    print(f"live view watched for {wall:.1f} s at 10 frames/s: {cpu:.2f} s CPU = {100 * cpu / wall:.1f} % of one core "
          f"(a check every 10 s, a snapshot a second)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=64)
    parser.add_argument("--seed", type=int, default=20000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--live-only", action="store_true")
    args = parser.parse_args()
    if not args.live_only:
        scenes(args)
    live(args)


if __name__ == "__main__":
    main()

"""``tarotmate watch SOURCE [--zones FILE] [--json]``: table events from a camera, a video or images.

SOURCE is a video file, a folder of images (name order), a camera
(``picamera2`` on a Pi, or an OpenCV device number such as ``0``), or ``sim``
for a trick played on the simulated table. Events are printed as they happen,
one line each; with ``--json`` they are printed at the end as one JSON list
(nothing else goes to stdout) and the lines go to stderr with the progress.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

HELP = "track the cards on the table from a camera, a video, an image folder or the simulator, and print the events"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="SOURCE", help="video file, image folder, picamera2, a camera number (0), or sim")
    parser.add_argument("--zones", metavar="FILE", help="zone file (TOML); default: the whole frame is the middle (sim: its own zones)")
    parser.add_argument("--json", action="store_true", help="print one JSON list of events at the end, nothing else on stdout")
    parser.add_argument("--fps", type=float, help="frame rate of an image folder (default 30) or to override a video's")
    parser.add_argument("--deck", help="recognition deck profile (default: the shipped model)")
    parser.add_argument("--max-frames", type=int, metavar="N", help="stop after N frames")
    sim = parser.add_argument_group("simulated table (SOURCE = sim)")
    sim.add_argument("--players", type=int, default=4, help="players around the simulated table (2-5, default 4)")
    sim.add_argument("--tricks", type=int, default=1, help="tricks to play (default 1)")
    sim.add_argument("--seed", type=int, default=0, help="random seed of the simulated scene")
    sim.add_argument("--sim-deck", metavar="FOLDER", help="deck scans to draw (CODE.jpg/png); default: the built-in deck")
    sim.add_argument("--conditions", choices=("easy", "hard"), default="easy",
                     help="the simulated table: easy (default) or hard (dim, glare, lingering hands, piles, small "
                          "cards, a tilted camera, blur; drawn from --seed)")
    sim.add_argument(
        "--truth", action="store_true",
        help="name the simulated cards from the simulator's ground truth instead of the card model (tracker check)",
    )


def _open(args):
    from engine.errors import TarotmateError
    from vision.sources import SimulatorSource, open_source

    if args.source != "sim":
        if args.truth:
            raise TarotmateError("--truth works only with the simulated table (SOURCE = sim)")
        return _supervised(args), None
    from vision.simulator import TableSimulator, trick_script

    if args.tricks < 1:
        raise TarotmateError("--tricks must be at least 1")
    script = trick_script(players=args.players, seed=args.seed, tricks=args.tricks)
    sim = TableSimulator(script, players=args.players, seed=args.seed, deck=args.sim_deck, fps=args.fps or 30.0,
                         conditions=args.conditions)
    return SimulatorSource(sim), sim


def _supervised(args):
    """The source, opened now (a bad SOURCE is reported at once), then
    supervised: a camera that fails, stalls or ends is opened again; a video
    or a folder ends at its end, and a failure or a stall there is an error."""
    import sys

    from vision.sources import is_live, open_source
    from vision.supervised_source import SupervisedSource

    first = [open_source(args.source, fps=args.fps)]

    def opener():
        return first.pop() if first else open_source(args.source, fps=args.fps)

    return SupervisedSource(opener, live=is_live(args.source), fps=first[0].fps,
                            report=lambda text: print(f"watch: {text}", file=sys.stderr, flush=True))


def _is_file_source(spec: str) -> bool:
    from pathlib import Path

    return spec not in ("sim", "picamera2") and not spec.strip().isdigit() and Path(spec).is_file()


def run(args) -> int:
    import cv2

    from engine.errors import TarotmateError
    from vision.native_log import NativeStderr
    from vision.tracker import Tracker
    from vision.zones import load_zones

    cv2.setNumThreads(1)
    zones = load_zones(args.zones) if args.zones else None
    # OpenCV's FFmpeg and libjpeg warnings go to the log (tarotmate -v), not the terminal.
    with NativeStderr(prefix="watch: OpenCV: ") as quiet:
        source, sim = quiet.call(_open, args)
        events, count = _watch(args, source, sim, zones, quiet, Tracker)
    if count == 0 and _is_file_source(args.source):
        why = f" ({quiet.lines[-1].strip()})" if quiet.lines else ""
        raise TarotmateError(f"{args.source}: not a video or an image OpenCV can read{why}")
    if args.json:
        json.dump([e.to_dict() for e in events], sys.stdout)
        sys.stdout.write("\n")
    return 0


def _watch(args, source, sim, zones, quiet, Tracker) -> tuple[list, int]:
    with source:
        if sim is not None and zones is None:
            zones = sim.zones
        if sim is not None and args.truth:
            from vision.simulator import GroundTruthRecogniser

            oracle = GroundTruthRecogniser(sim)
            tracker = Tracker(zones, localiser=oracle.localise, namer=oracle, cropper=oracle.crop)
            frames = _sim_frames(oracle)
        else:
            from vision.decks import load_namer

            tracker = Tracker(zones, namer=load_namer(deck=args.deck))
            frames = quiet.iterate(source)
        return _track(tracker, frames, args)


def _sim_frames(oracle):
    from vision.sources import Frame

    for f in oracle.frames():
        yield Frame(f.image, f.timestamp, f.index)


def _track(tracker, frames, args) -> tuple[list, int]:
    lines = sys.stderr if args.json else sys.stdout
    events = []
    started = time.perf_counter()
    last_report = started
    count = 0
    for frame in frames:
        if args.max_frames is not None and count >= args.max_frames:
            break
        for event in tracker.process(frame):
            events.append(event)
            print(event.describe(), file=lines, flush=True)
        count += 1
        now = time.perf_counter()
        if now - last_report >= 2.0:
            last_report = now
            print(f"watch: frame {frame.index} ({frame.timestamp:.1f} s), {count / (now - started):.1f} frames/s",
                  file=sys.stderr, flush=True)
    for event in tracker.flush():
        events.append(event)
        print(event.describe(), file=lines, flush=True)
    elapsed = time.perf_counter() - started
    rate = count / elapsed if elapsed > 0 else 0.0
    print(f"watch: {count} frames in {elapsed:.1f} s ({rate:.1f} frames/s), {len(events)} events", file=sys.stderr)
    return events, count

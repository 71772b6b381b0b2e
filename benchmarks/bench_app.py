"""Benchmark of the table app (``tarotmate run``'s main loop).

The frames of a deal's play are rendered once by the table simulator into a
folder of JPEG files; then a child process runs the device loop
(``run_device``) with that folder as its camera, exactly as ``tarotmate run``
with ``camera.source = "folder"``: localisation and the shipped ONNX model in
the tracker, the controller, the deal log, the screens and the real ssd1306
driver on a no-op bus. The simulator is not in the measured process. Prints:

* the time from process start to sd_notify ``READY=1``, read on a real
  notification socket as systemd would;
* the steady-state CPU time per frame of the app itself (the JPEG decoding of
  the folder source, which a camera does not cost, is measured apart), and
  the CPU load that means at the default ``camera.fps = 10``;
* the peak resident memory of the process (goal: under 300 MB).

    .venv/bin/python benchmarks/bench_app.py [--frames 900] [--width 1280] [--memory DECK-MEMORY.db]

``--memory``: the table starts with a copy of that deck memory beside its deal
log (a table that has learned its deck, e.g. the ``deck-memory.db`` a
``tarotmate demo --deals 10`` left in its ``--out`` folder), instead of an
empty one.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SEED = 1


def truth_deal():
    from engine.tarot import random_deal

    return random_deal(4, SEED, poignee_rate=0.0)


def render_frames(folder: Path, frames: int, width: int) -> int:
    """The play of the deal as the camera would see it, as JPEG files."""
    import cv2
    from vision.simulator import TableSimulator, Trick, french_deal_script

    truth = truth_deal()
    tricks = [Trick(t.leader + 1, tuple(t.cards), t.winner + 1) for t in truth.tricks]
    simulator = TableSimulator(french_deal_script(tricks, players=4), players=4, seed=SEED,
                               size=(width, width * 9 // 16))
    count = 0
    for frame in simulator.frames():
        if count >= frames:
            break
        cv2.imwrite(str(folder / f"{count:06d}.jpg"), frame.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        count += 1
    return count


def child(args: argparse.Namespace) -> None:
    """The measured process: the device loop with a folder of frames as its camera."""
    t_start = time.monotonic()
    os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
    from luma.core.interface.serial import noop

    from device.app.loop import run_device
    from device.hardware.outputs import Outputs
    from device.config import config_from_dict
    from device.hardware.display import open_display
    from device.hardware.from_config import NoButtons, open_frame_source, open_tracker
    from device.app.registry import game_for
    from device.app.session import GameSession
    from device.storage.deal_log import DealLog

    truth = truth_deal()
    config = config_from_dict({
        "game": {"dealer": truth.dealer, "names": ["Ana", "Luis", "Marta", "Pau"]},
        "camera": {"source": "folder", "path": args.frames_dir, "fps": 30.0},
        "display": {"kind": "dummy"}, "ui": {"buzzer": False},
        "store": {"path": str(Path(args.state) / "bench.db")},
    })
    # the bidding, chien and écart are already in the log: the loop resumes into the play
    with DealLog.open(config.store.resolved()) as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), config.game.seat_names(), label="device",
                                              first_setup={"dealer": truth.dealer})
        for op in truth.operations:
            if op.to_dict()["op"] == "play":
                break
            session.apply(op)

    tracker = open_tracker(config)  # loads the card model, before READY
    source = iter(open_frame_source(config, game_for(config.game.kind)))
    read_cpu = [0.0]
    frame_cpu: list[float] = []

    def frames():
        while True:
            c0 = time.process_time()
            try:
                frame = next(source)
            except StopIteration:
                return
            c1 = time.process_time()
            read_cpu[0] += c1 - c0
            yield frame  # the app works on it until it asks for the next one
            frame_cpu.append(time.process_time() - c1)

    display = open_display("ssd1306", serial=noop())
    run_device(config, source=frames(), tracker=tracker, buttons=NoButtons(), outputs=Outputs([display]),
               report=lambda t: None)
    steady = frame_cpu[args.warmup:]
    with DealLog.open(config.store.resolved()) as log:
        plays = sum(1 for op in log.operations(log.open_deal(log.open_game("device").id).id) if op["op"] == "play")
    print(json.dumps({
        "recognition": f"ONNX model {tracker.namer.model_id}",
        "frames": len(frame_cpu),
        "steady_frames": len(steady),
        "cpu_ms_per_frame": 1000 * sum(steady) / max(1, len(steady)),
        "cpu_ms_p95": 1000 * sorted(steady)[int(0.95 * (len(steady) - 1))] if steady else 0.0,
        "read_ms_per_frame": 1000 * read_cpu[0] / max(1, len(frame_cpu)),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "cards_played": plays,
        "display_frames": display.shown,
        "wall_s": time.monotonic() - t_start,
    }))


def parent(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="tarotmate-bench-") as tmp:
        views = None
        if args.memory:  # the table has learned its deck: a copy of that memory beside the deal log
            import shutil
            import sqlite3

            for suffix in ("", "-wal"):
                if Path(args.memory + suffix).is_file():
                    shutil.copy(args.memory + suffix, Path(tmp) / f"deck-memory.db{suffix}")
            views = sqlite3.connect(Path(tmp) / "deck-memory.db").execute("SELECT COUNT(*) FROM views").fetchone()[0]
        frames_dir = Path(tmp) / "frames"
        frames_dir.mkdir()
        print(f"rendering {args.frames} frames of the simulated table...", file=sys.stderr)
        rendered = render_frames(frames_dir, args.frames, args.width)
        sock_path = os.path.join(tmp, "notify.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        server.bind(sock_path)
        env = dict(os.environ, NOTIFY_SOCKET=sock_path, WATCHDOG_USEC="30000000",
                   GPIOZERO_PIN_FACTORY="mock", PYTHONUNBUFFERED="1")
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, __file__, "--child", "--state", tmp, "--frames-dir", str(frames_dir),
             "--warmup", str(args.warmup)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        ready_s = None
        watchdogs = 0
        server.settimeout(0.5)
        while True:
            try:
                message = server.recv(4096).decode()
            except socket.timeout:
                if proc.poll() is not None:
                    break
                continue
            if message.startswith("READY=1") and ready_s is None:
                ready_s = time.monotonic() - started
            watchdogs += message.count("WATCHDOG=1")
        out, err = proc.communicate()
        server.close()
        if proc.returncode != 0:
            sys.exit(f"the measured process failed:\n{err}")
        result = json.loads(out.strip().splitlines()[-1])
    fps = 10.0
    height = args.width * 9 // 16
    peak = result["peak_rss_mb"]
    print("Tarotmate table app benchmark (device loop, a folder of simulated frames as the camera)")
    print(f"  frames:                 {args.width}x{height}, {result['frames']} of {rendered} processed, "
          f"{result['steady_frames']} after {args.warmup} warm-up")
    print(f"  cards recorded:         {result['cards_played']} (uncertain cards wait for a player's OK; "
          f"nobody presses here)")
    print(f"  card recognition:       {result['recognition']}")
    print(f"  deck memory:            " + ("empty (a table that has learned nothing yet)" if views is None
                                          else f"{views} views learned ({args.memory})"))
    print(f"  start to READY=1:       {ready_s:.2f} s" if ready_s is not None else "  start to READY=1:       never")
    print(f"  CPU per frame (app):    {result['cpu_ms_per_frame']:.2f} ms mean, {result['cpu_ms_p95']:.2f} ms p95 "
          f"(tracker + controller + log + screens + ssd1306 driver)")
    print(f"  CPU load at {fps:g} fps:      {result['cpu_ms_per_frame'] * fps / 10:.1f} % of one core (this machine)")
    print(f"  JPEG decoding:          {result['read_ms_per_frame']:.2f} ms per frame (the folder camera; "
          f"not counted above)")
    print(f"  peak resident memory:   {peak:.0f} MB ({'OK' if peak < 300 else 'OVER the 300 MB goal'})")
    print(f"  watchdog pings:         {watchdogs} in {result['wall_s']:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=900, help="frames to process (default 900, ~5 tricks)")
    parser.add_argument("--width", type=int, default=1280, help="frame width (16:9; default 1280)")
    parser.add_argument("--warmup", type=int, default=60, help="frames left out of the steady state")
    parser.add_argument("--memory", metavar="DB", help="start with a copy of this deck memory (default: an empty one)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--state", help=argparse.SUPPRESS)
    parser.add_argument("--frames-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory and not Path(args.memory).is_file():
        parser.error(f"--memory {args.memory}: no such file")
    if args.memory:
        import sqlite3

        try:
            sqlite3.connect(f"file:{args.memory}?mode=ro", uri=True).execute("SELECT COUNT(*) FROM views").fetchone()
        except sqlite3.Error as exc:
            parser.error(f"--memory {args.memory}: not a deck memory ({exc})")
    if args.child:
        child(args)
    else:
        parent(args)


if __name__ == "__main__":
    main()

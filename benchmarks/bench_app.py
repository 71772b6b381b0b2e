"""Benchmark of the table app (``tarotmate run``'s main loop).

Prints, for the device loop fed by the simulated table (1280x720 by default):

* the time from process start to sd_notify ``READY=1`` (measured from
  outside, on a real notification socket, as systemd would see it);
* the steady-state CPU time per frame of the app itself (tracker with
  localisation and the ONNX card model, controller, deal log, screens and
  the real ssd1306 driver on a no-op bus), without the simulator's own
  rendering, which a camera does not cost; and the CPU load that means at
  the configured camera rate;
* the peak resident memory of the process (goal: under 300 MB).

    .venv/bin/python benchmarks/bench_app.py [--frames 600] [--width 1280]

Without a card model in ``models/`` the cards are named from the
simulator's ground truth, and the output says so.
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


def child(args: argparse.Namespace) -> None:
    """The measured process: the device loop on the simulated table."""
    t_start = time.monotonic()
    os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
    from luma.core.interface.serial import noop

    from device.app import Outputs, run_device
    from device.config import config_from_dict
    from device.display import open_display
    from device.hardware import NoButtons, simulated_table
    from device.rules import TarotRules
    from device.session import GameSession
    from device.store import DealLog
    from engine.errors import TarotmateError
    from engine.tarot import random_deal

    width = args.width
    truth = random_deal(4, 1, poignee_rate=0.0)
    config = config_from_dict({
        "game": {"dealer": truth.dealer, "names": ["Ana", "Luis", "Marta", "Pau"]},
        "camera": {"source": "simulator", "width": width, "height": width * 9 // 16, "fps": 30.0},
        "display": {"kind": "dummy"}, "ui": {"buzzer": False},
        "store": {"path": str(Path(args.state) / "bench.db")},
    })
    # the bidding, chien and écart are already in the log: the loop resumes into the play
    with DealLog.open(config.store.resolved()) as log:
        session = GameSession.resume_or_start(log, TarotRules(), config.game.seat_names(), label="device",
                                              first_setup={"dealer": truth.dealer})
        for op in truth.operations:
            if op.to_dict()["op"] == "play":
                break
            session.apply(op)

    source = simulated_table(config, seed=1)
    recognition = "ONNX model"
    tracker = None
    try:
        from device.hardware import open_tracker

        tracker = open_tracker(config)
        tracker.namer  # load the model now, before READY
    except TarotmateError as exc:
        from vision.simulator import GroundTruthRecogniser
        from vision.tracker import Tracker

        truth_namer = GroundTruthRecogniser(source.simulator)
        tracker = Tracker(source.simulator.zones, localiser=truth_namer.localise, namer=truth_namer,
                          cropper=truth_namer.crop)
        recognition = f"simulator ground truth ({exc})"
        frames_iter = truth_namer.frames()
    else:
        frames_iter = source.simulator.frames()

    from vision.sources import Frame

    render_cpu = [0.0]
    frame_cpu: list[float] = []
    warmup = args.warmup

    def frames():
        while True:
            c0 = time.process_time()
            try:
                f = next(frames_iter)
            except StopIteration:
                return
            c1 = time.process_time()
            render_cpu[0] += c1 - c0
            yield Frame(f.image, f.timestamp, f.index)  # the app works on it until the next request
            frame_cpu.append(time.process_time() - c1)

    display = open_display("ssd1306", serial=noop())
    run_device(config, source=frames(), tracker=tracker, buttons=NoButtons(), outputs=Outputs([display]),
               max_frames=args.frames, report=lambda t: None)
    steady = frame_cpu[warmup:]
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with DealLog.open(config.store.resolved()) as log:
        plays = sum(1 for op in log.operations(log.open_deal(log.open_game("device").id).id) if op["op"] == "play")
    print(json.dumps({
        "recognition": recognition,
        "frames": len(frame_cpu) + 1,
        "steady_frames": len(steady),
        "cpu_ms_per_frame": 1000 * sum(steady) / max(1, len(steady)),
        "cpu_ms_p95": 1000 * sorted(steady)[int(0.95 * (len(steady) - 1))] if steady else 0.0,
        "render_ms_per_frame": 1000 * render_cpu[0] / max(1, len(frame_cpu) + 1),
        "peak_rss_mb": peak_kb / 1024,
        "cards_played": plays,
        "display_frames": display.shown,
        "wall_s": time.monotonic() - t_start,
    }))


def parent(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="tarotmate-bench-") as tmp:
        sock_path = os.path.join(tmp, "notify.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        server.bind(sock_path)
        env = dict(os.environ, NOTIFY_SOCKET=sock_path, WATCHDOG_USEC="30000000",
                   GPIOZERO_PIN_FACTORY="mock", PYTHONUNBUFFERED="1")
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, __file__, "--child", "--state", tmp, "--frames", str(args.frames),
             "--width", str(args.width), "--warmup", str(args.warmup)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        ready_s = None
        watchdogs = 0
        server.settimeout(0.5)
        while proc.poll() is None or ready_s is None:
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
    print("Tarotmate table app benchmark (device loop on the simulated table)")
    print(f"  frames:                 {args.width}x{args.width * 9 // 16}, {result['frames']} processed, "
          f"{result['steady_frames']} after {args.warmup} warm-up")
    print(f"  cards recorded:         {result['cards_played']} (uncertain cards wait for a player's OK; "
          f"nobody presses here)")
    print(f"  card recognition:       {result['recognition']}")
    print(f"  start to READY=1:       {ready_s:.2f} s" if ready_s is not None else "  start to READY=1:       never")
    print(f"  CPU per frame (app):    {result['cpu_ms_per_frame']:.2f} ms mean, {result['cpu_ms_p95']:.2f} ms p95 "
          f"(tracker + controller + log + screens + ssd1306 driver)")
    print(f"  CPU load at {fps:g} fps:      {result['cpu_ms_per_frame'] * fps / 10:.1f} % of one core (this machine)")
    print(f"  simulator rendering:    {result['render_ms_per_frame']:.2f} ms per frame (not counted above)")
    peak = result["peak_rss_mb"]
    verdict = "OK" if peak < 300 else "OVER the 300 MB goal"
    print(f"  peak resident memory:   {peak:.0f} MB ({verdict})")
    print(f"  watchdog pings:         {watchdogs} in {result['wall_s']:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=600, help="frames to process (default 600, ~3 tricks)")
    parser.add_argument("--width", type=int, default=1280, help="frame width (16:9; default 1280)")
    parser.add_argument("--warmup", type=int, default=60, help="frames left out of the steady state")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--state", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
    else:
        parent(args)


if __name__ == "__main__":
    main()

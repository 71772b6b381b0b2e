"""``kill -9`` at random moments of a demo, then resume: every result identical.

One uninterrupted demo (``tarotmate demo`` on the simulated table, the
simulator's ground truth naming the cards, small fast scenes) gives the
reference record and scores. Then each trial starts the same demo in a fresh
folder, kills it with SIGKILL at a random moment of its run (every third
trial kills the resumed process a second time: two kills in a row), and runs
the command again until it completes. A trial passes when its ``record.json``
equals the reference record and its scores equal the reference scores.

    .venv/bin/python benchmarks/bench_kill9.py [--trials 50] [--seed 4] [--json]

A demo that finished before its kill moment (the machine got faster than
during the reference run) is started again in a clean folder with a moment
drawn from the shorter run. Prints one line per trial and the count of
identical results; exits 1 when any trial differs or fails. (tests/app/test_demo.py runs it with 3 trials.)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "SDL_VIDEODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}


def demo_command(out: Path, seed: int) -> list[str]:
    return [sys.executable, "-m", "device.cli", "demo", "--out", str(out), "--seed", str(seed), "--fast",
            "--display", "none", "--recogniser", "truth", "--frame-width", "640", "--speed", "3"]


def run_to_end(out: Path, seed: int) -> tuple[float, subprocess.CompletedProcess]:
    started = time.monotonic()
    done = subprocess.run(demo_command(out, seed), capture_output=True, text=True, timeout=600, cwd=ROOT, env=ENV)
    return time.monotonic() - started, done


def killed_after(out: Path, seed: int, seconds: float) -> float | None:
    """Start the demo and SIGKILL it after ``seconds``; ``None`` when it had
    already finished, else how long it had run."""
    started = time.monotonic()
    proc = subprocess.Popen(demo_command(out, seed), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=ROOT, env=ENV)
    try:
        proc.wait(timeout=seconds)
        return None
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return time.monotonic() - started


def kill_at_random(out: Path, seed: int, rng: random.Random, longest: float) -> float | None:
    """One kill at a random moment of a run; when the demo finished first (the
    machine got faster), the folder is cleared and a moment drawn again from
    the shorter run (three tries)."""
    for _ in range(3):
        moment = rng.uniform(0.3, longest)
        started = time.monotonic()
        if killed_after(out, seed, moment) is not None:
            return moment
        longest = max(0.5, 0.9 * (time.monotonic() - started))
        shutil.rmtree(out, ignore_errors=True)
    return None


def result_of(out: Path, done: subprocess.CompletedProcess) -> dict:
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]}
    record = json.loads((out / "record.json").read_text(encoding="utf-8"))
    scores = [line.split(",")[2] for line in (out / "scores.csv").read_text().splitlines()[1:]]
    return {"record": record, "scores": scores}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--seed", type=int, default=4, help="the demo's deal (default 4)")
    parser.add_argument("--rng", type=int, default=2026, help="seed of the kill moments")
    parser.add_argument("--json", action="store_true", help="print one JSON summary at the end, on stdout")
    args = parser.parse_args()
    lines = sys.stderr if args.json else sys.stdout
    rng = random.Random(args.rng)
    work = Path(tempfile.mkdtemp(prefix="tarotmate-kill9-"))
    try:
        seconds, done = run_to_end(work / "reference", args.seed)
        reference = result_of(work / "reference", done)
        if "error" in reference:
            print(f"the uninterrupted demo failed: {reference['error']}", file=sys.stderr)
            return 1
        print(f"reference: demo seed {args.seed} in {seconds:.1f} s, scores {reference['scores']}", file=lines,
              flush=True)
        identical, kills, trials = 0, 0, []
        for trial in range(1, args.trials + 1):
            out = work / f"trial{trial}"
            landed = [kill_at_random(out, args.seed, rng, 0.95 * seconds)]
            if trial % 3 == 0 and landed[0] is not None:  # kill the resumed process too
                again = rng.uniform(0.3, 0.6 * seconds)
                landed.append(again if killed_after(out, args.seed, again) is not None else None)
            landed = [round(m, 2) for m in landed if m is not None]
            kills += len(landed)
            _, done = run_to_end(out, args.seed)
            result = result_of(out, done)
            same = result == reference
            identical += same
            trials.append({"trial": trial, "killed_at_s": landed, "identical": same})
            verdict = "identical" if same else f"DIFFERENT: {result.get('error', result.get('scores'))}"
            print(f"trial {trial:>2}: kill -9 at {', '.join(f'{m:.2f} s' for m in landed) or '(finished first)'}"
                  f" -> {verdict}", file=lines, flush=True)
            shutil.rmtree(out, ignore_errors=True)
        print(f"{identical}/{args.trials} identical results after {kills} kill -9", file=lines)
        if args.json:
            print(json.dumps({"trials": args.trials, "identical": identical, "kills": kills,
                              "reference_scores": reference["scores"], "runs": trials}))
        return 0 if identical == args.trials else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

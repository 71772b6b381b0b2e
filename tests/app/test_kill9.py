"""``kill -9`` at random moments of a demo (two in a row too), then resume:
each result identical to the uninterrupted demo's (record and scores).
The test runs benchmarks/bench_kill9.py with 3 trials; the benchmark's
default is 50."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_three_random_kills_give_three_identical_results():
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_kill9.py"), "--trials", "3", "--json",
                           "--rng", "7"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["identical"] == 3
    assert summary["kills"] >= 4  # the third trial kills the resumed demo as well
    assert all(run["killed_at_s"] for run in summary["runs"])

"""What the deal log's safety costs on a large log: the writer's check of
every row at open, a reader's open, and ``tarotmate backup``.

Builds a log of ``--deals`` finished deals of ``--ops`` operations each (one
game, tarot-shaped rows), then times (median of 3):

* opening it for writing (the lock, SQLite's ``quick_check``, every row
  decoded and checked: what ``run`` and ``demo`` do at start);
* opening it read-only (what ``history`` does before reading);
* ``backup()`` (SQLite's online backup into a new file, checked).

    .venv/bin/python benchmarks/bench_deal_log.py [--deals 500] [--ops 80]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def build(path: Path, deals: int, ops: int) -> None:
    from device.storage.deal_log import DealLog

    record = json.dumps({"format": "tarot-deal/1", "tricks": [{"leader": 0, "cards": ["S01", "S02", "S03", "S04"]}] * 18})
    with DealLog.open(path) as log:
        game = log.start_game("french-tarot", ["Ana", "Luis", "Marta", "Pau"], {})
        conn = log._conn  # bulk rows in one transaction; the app writes one operation per transaction
        conn.execute("BEGIN")
        for number in range(1, deals + 1):
            cur = conn.execute(
                "INSERT INTO deals (game_id, number, setup, started, finished, record, scores) VALUES (?,?,?,?,?,?,?)",
                (game.id, number, '{"dealer":0}', 1.0, 2.0, record, "[52,52,-156,52]"))
            conn.executemany("INSERT INTO operations (deal_id, seq, op, at) VALUES (?,?,?,?)",
                             [(cur.lastrowid, i, json.dumps({"op": "play", "seat": i % 4, "card": "S01"}), 1.0)
                              for i in range(1, ops + 1)])
        conn.execute("COMMIT")


def timed(action, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    from device.storage.deal_log import DealLog, backup

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--ops", type=int, default=80)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tarotmate-log-") as folder:
        path = Path(folder) / "big.db"
        build(path, args.deals, args.ops)
        size = path.stat().st_size + (Path(f"{path}-wal").stat().st_size if Path(f"{path}-wal").exists() else 0)
        writer = timed(lambda: DealLog.open(path).close())
        reader = timed(lambda: DealLog.open(path, writer=False).close())
        copies = iter(range(100))
        copy_s = timed(lambda: backup(path, Path(folder) / f"copy{next(copies)}.db"))
    rows = args.deals * (args.ops + 1) + 1
    print(f"deal log of {args.deals} deals x {args.ops} operations ({rows} rows, {size / 1e6:.1f} MB)")
    print(f"  open for writing (lock, quick_check, every row checked): {writer:.2f} s")
    print(f"  open read-only:                                         {reader:.2f} s")
    print(f"  backup (online copy, then the copy checked):            {copy_s:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""French tarot engine speed: random complete deals per second, and audit time.

    .venv/bin/python benchmarks/bench_tarot.py [--seconds 3]

A "deal" is shuffled, dealt, bid, called (5 players), chien and écart, poignées
shown, played to the end with legal-move generation at every card, then
scored. The audit is the end-of-deal replay of a record with the hands
hidden (the device's case): the evidence check at every card, the exact
audit of the tricks with the hands rebuilt, and the score.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

from engine.tarot import deal_from_record, random_deal, random_deal_with_revoke, replay_record


def deals_per_second(players: int, seconds: float) -> tuple[float, int]:
    start = time.perf_counter()
    n = 0
    while time.perf_counter() - start < seconds:
        deal = random_deal(players, n)
        deal.result()
        n += 1
    return n / (time.perf_counter() - start), n


def audit_times(players: int, count: int) -> tuple[list[float], list[float], list[float]]:
    records = [random_deal(players, 10_000 + i).to_record() for i in range(count)]
    replay_ms, audit_ms, undo_ms = [], [], []
    for rec in records:
        t0 = time.perf_counter()
        deal = deal_from_record(rec)
        replay_record(rec)
        t1 = time.perf_counter()
        deal.audit()
        t2 = time.perf_counter()
        deal.undo()
        t3 = time.perf_counter()
        replay_ms.append((t1 - t0) * 1000 / 2)
        audit_ms.append((t2 - t1) * 1000)
        undo_ms.append((t3 - t2) * 1000)
    return replay_ms, audit_ms, undo_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per player count")
    parser.add_argument("--audits", type=int, default=200, help="records replayed per player count")
    args = parser.parse_args()
    print(f"Tarotmate French tarot engine, Python {platform.python_version()} "
          f"on {platform.machine()}")
    for players in (3, 4, 5):
        rate, n = deals_per_second(players, args.seconds)
        replay, audit, undo = audit_times(players, args.audits)
        print(f"{players} players: {rate:7.0f} random complete deals/s ({n} deals); "
              f"replay of a record with hidden hands {statistics.mean(replay):.2f} ms "
              f"(max {max(replay):.2f}); exact end-of-deal audit {statistics.mean(audit):.2f} ms "
              f"(max {max(audit):.2f}); undo of the last card {statistics.mean(undo):.2f} ms")
    t0 = time.perf_counter()
    caught = 0
    for i in range(200):
        deal, fault = random_deal_with_revoke(4, i)
        caught += [(v.trick, v.seat) for v in deal.violations] == [(fault.trick, fault.seat)]
    print(f"injected revokes caught at the right trick and seat: {caught}/200 "
          f"({(time.perf_counter() - t0) * 5:.2f} ms per deal)")


if __name__ == "__main__":
    main()

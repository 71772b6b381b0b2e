"""The table's live page: start-up time, idle CPU and memory, push delay.

    .venv/bin/python benchmarks/bench_table_page.py [--idle 20] [--phones 3]

Starts a process that serves only the table's page (device.web.server.TablePage)
with a game of 12 deals on its score sheet, connects ``--phones`` event streams
(as phones would), then measures over ``--idle`` seconds with nothing changing:
the process's CPU (percent of one core) and its RSS. Then 50 updates, one a
0.2 s, and the delay until each reaches a stream. The process is an upper bound
of what the page adds to ``tarotmate run`` (which shares the interpreter).
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import sys, time, json
from device.web.server import TablePage
from device.games.french_tarot.page import deal_view, sheet_row
from device.web.views import page_state, sheet_view
from engine.tarot.simulate import random_deal
names = ["Ana", "Luis", "Marta", "Pau"]
deals = [random_deal(4, s) for s in range(12)]
sheet = sheet_view(names, [{"scores": list(d.result().scores), **sheet_row(d.to_record(), names)} for d in deals])
page = TablePage("127.0.0.1", int(sys.argv[1])).start()
page.update(page_state("Bench table", names, deal_view(deals[-1], names), sheet))
print("ready", flush=True)
for line in sys.stdin:
    n = int(line)
    page.update(page_state(f"Bench table {n}", names, deal_view(deals[n % 12], names), sheet))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--idle", type=float, default=20.0)
    ap.add_argument("--phones", type=int, default=3)
    args = ap.parse_args()
    port = free_port()
    t0 = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(port)], cwd=ROOT, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready"
    startup = time.perf_counter() - t0
    streams = []
    arrivals: list[list[float]] = []
    for i in range(args.phones):
        con = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        con.request("GET", "/api/events")
        resp = con.getresponse()
        streams.append((con, resp))
        got: list[float] = []
        arrivals.append(got)

        def read(resp=resp, got=got):
            try:
                while True:
                    line = resp.readline()
                    if not line:
                        return
                    if line.startswith(b"event: state"):
                        got.append(time.perf_counter())
            except OSError:
                return

        threading.Thread(target=read, daemon=True).start()
    time.sleep(1.0)
    hz = os.sysconf("SC_CLK_TCK")
    before = cpu_ticks(child.pid)
    time.sleep(args.idle)
    idle_cpu = (cpu_ticks(child.pid) - before) / hz / args.idle * 100
    rss = rss_mib(child.pid)
    delays = []
    for n in range(50):
        seen = [len(a) for a in arrivals]
        sent = time.perf_counter()
        child.stdin.write(f"{n}\n")
        child.stdin.flush()
        deadline = sent + 2
        while time.perf_counter() < deadline and any(len(a) == s for a, s in zip(arrivals, seen)):
            time.sleep(0.001)
        delays.append(max(a[-1] for a in arrivals) - sent)
        time.sleep(0.2)
    delays.sort()
    print(f"table page: start-up to first answer {startup:.2f} s (python, Starlette, uvicorn, engine imports)")
    print(f"table page: idle with {args.phones} phones connected: {idle_cpu:.2f} % of one core over {args.idle:g} s, "
          f"RSS {rss:.1f} MiB")
    print(f"table page: update to every phone's stream: median {delays[25] * 1000:.1f} ms, "
          f"max {delays[-1] * 1000:.1f} ms (50 updates, {os.getloadavg()[0]:.1f} load average)")
    child.stdin.close()
    child.terminate()
    child.wait(5)
    return 0


if __name__ == "__main__":
    sys.exit(main())

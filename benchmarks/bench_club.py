"""Club server under an evening's load, and under kill -9.

    .venv/bin/python benchmarks/bench_club.py [--tables 60] [--deals 8] [--pace 1.0] [--kills 4]
                                              [--offline 60] [--db postgresql://... | --postgres]
                                              [--runs load,faults,offline]

Three runs against ``tarotmate club serve`` started here as a separate process on 127.0.0.1:

1. load: ``--tables`` simulated tables (each pairs through the director API,
   plays ``--deals`` deals through the engine and publishes them through its
   outbox, a deal every ``--pace`` seconds on average, all tables at once):
   every deal stored once, standings = the sum of the replays of
   ``/api/deals``, the publish latency seen by the tables (p50/p99: from
   the moment a table's publisher sends the request to the moment it has
   read the acknowledgement), the server's own time by stage (its
   ``Server-Timing`` header: replay, commit), its peak RSS and CPU;
2. faults: the same evening again on a fresh database while the server is
   killed with SIGKILL ``--kills`` times at random moments and restarted:
   no deal lost or doubled;
3. offline: the server is down for ``--offline`` seconds while 4 tables play
   on; once it is back, how long until every table has caught up.

The simulated tables run in this process, on the same CPUs as the server
(their engine, HTTP clients and outbox fsyncs are part of the measurement's
environment; on a real evening each table is its own Pi). The load average
is printed before and after every run: read every figure with it.
``--postgres`` starts a throwaway PostgreSQL cluster (Debian's ``initdb``
and ``pg_ctl``, its durable defaults: fsync and synchronous_commit on) and
stores the load and faults runs in it.

Prints one line per figure; exits 1 if a deal was lost or doubled.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import platform
import pwd
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from device.club.simulate import simulate  # noqa: E402
from engine.tarot.record import replay_record  # noqa: E402

PASSWORD = "bench-director-password"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    def __init__(self, db: str, port: int, password_file: Path) -> None:
        self.db, self.port, self.password_file = db, port, password_file
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None
        self.peak_rss_kb = 0
        self._sampler: threading.Thread | None = None
        self._stop = threading.Event()

    def start(self) -> None:
        t0 = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, "-m", "device.cli", "club", "serve", "--db", self.db,
                                      "--port", str(self.port), "--no-advertise",
                                      "--director-password-file", str(self.password_file)],
                                     cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/api/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise SystemExit("the club server did not start")
        self.startup_s = time.perf_counter() - t0
        self.idle_rss_kb = int(next(line.split()[1] for line in Path(f"/proc/{self.proc.pid}/status").read_text()
                                    .splitlines() if line.startswith("VmRSS:")))
        if self._sampler is None:
            self._sampler = threading.Thread(target=self._sample, daemon=True)
            self._sampler.start()

    def _sample(self) -> None:
        while not self._stop.is_set():
            proc = self.proc
            if proc is not None and proc.poll() is None:
                try:
                    for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                        if line.startswith("VmRSS:"):
                            self.peak_rss_kb = max(self.peak_rss_kb, int(line.split()[1]))
                except OSError:
                    pass
            time.sleep(0.1)

    def cpu_s(self) -> float:
        """CPU seconds (user + system) the server process has used so far."""
        assert self.proc is not None
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        self._stop.set()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


class ThrowawayPostgres:
    """A PostgreSQL cluster started here (Debian's postgresql package: initdb, pg_ctl) on 127.0.0.1,
    with its durable defaults (fsync, synchronous_commit on): what a club would run."""

    def __init__(self) -> None:
        def binary(name: str) -> str:
            found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))[-1:]), None)
            if not found:
                raise SystemExit(f"--postgres: {name} not found (apt-get install postgresql)")
            return found

        self.initdb, self.pg_ctl = binary("initdb"), binary("pg_ctl")
        self.dir = Path(tempfile.mkdtemp(prefix="tarotmate-bench-pg-"))
        self.port = free_port()
        self.user = None
        if os.geteuid() == 0:  # initdb refuses root
            self.user = "nobody"
            pw = pwd.getpwnam(self.user)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self._count = 0

    def _run(self, *cmd: str) -> None:
        full = (["runuser", "-u", self.user, "--"] if self.user else []) + list(cmd)
        subprocess.run(full, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=self.dir)

    def start(self) -> "ThrowawayPostgres":
        data = self.dir / "data"
        self._run(self.initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C")
        self._run(self.pg_ctl, "-D", str(data), "-o", f"-h 127.0.0.1 -p {self.port} -k {self.dir}",
                  "-l", str(self.dir / "log"), "-w", "start")
        return self

    def new_database(self) -> str:
        import psycopg

        self._count += 1
        name = f"club_bench_{self._count}"
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as con:
            con.execute(f"CREATE DATABASE {name}")
            settings = {k: con.execute(f"SHOW {k}").fetchone()[0] for k in ("fsync", "synchronous_commit")}
        print(f"postgresql: a fresh database {name} (fsync {settings['fsync']}, "
              f"synchronous_commit {settings['synchronous_commit']})")
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run(self.pg_ctl, "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)


def get_json(url: str):
    return json.loads(urllib.request.urlopen(url, timeout=10).read())


def check_evening(server: ServerProcess, expected_deals: int, totals: dict[str, int]) -> tuple[bool, str]:
    deals = get_json(server.url + "/api/deals")
    keys = [(d["table"], d["id"]) for d in deals]
    replayed: dict[str, int] = {}
    for d in deals:
        for name, score in zip(d["record"]["names"], replay_record(d["record"])["scores"]):
            replayed[name] = replayed.get(name, 0) + score
    standings = {p["name"]: p["score"] for p in get_json(server.url + "/api/standings")["players"]}
    ok = len(deals) == expected_deals and len(set(keys)) == len(keys) and standings == replayed == totals
    return ok, (f"{len(deals)} stored ({len(set(keys))} distinct) of {expected_deals}; standings = sum of replays: "
                f"{standings == replayed}; = the tables' own totals: {replayed == totals}")


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min)"


def percentile(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def database(args, work: Path, run: str) -> str:
    """Where a run stores: --db (the load run only: it must be empty), a fresh database of --postgres, or SQLite."""
    if args.db and run == "load":
        return args.db
    if args.pg is not None:
        return args.pg.new_database()
    return str(work / f"{run}.db")


def run_load(args, work: Path, pw: Path) -> bool:
    total = args.tables * args.deals
    server = ServerProcess(database(args, work, "load"), free_port(), pw)
    server.start()
    print(f"server: start-up to first answer {server.startup_s:.2f} s, RSS then {server.idle_rss_kb / 1024:.1f} MiB")
    try:
        cpu0 = server.cpu_s()
        r = simulate(server.url, args.tables, args.deals, PASSWORD, seed=args.seed, workdir=work / "load",
                     pace_s=args.pace, timeout_s=600)
        ok, text = check_evening(server, total, r.totals)
        print(f"load: {args.tables} tables x {args.deals} deals (a deal every {args.pace:g} s per table): "
              f"{r.acked}/{total} acknowledged in {r.seconds:.1f} s; {text}")
        print(f"load: publish latency p50 {percentile(r.latencies, 0.5) * 1000:.1f} ms, "
              f"p99 {percentile(r.latencies, 0.99) * 1000:.1f} ms, max {max(r.latencies) * 1000:.1f} ms "
              f"({len(r.latencies)} publications); inside the server p50 "
              f"{percentile(r.server_times, 0.5) * 1000:.1f} ms, p99 {percentile(r.server_times, 0.99) * 1000:.1f} ms")
        for stage in ("replay", "commit"):
            v = [st[stage] for st in r.server_stages if stage in st]
            if v:
                print(f"load: inside the server, {stage}: p50 {percentile(v, 0.5) * 1000:.1f} ms, "
                      f"p99 {percentile(v, 0.99) * 1000:.1f} ms")
        cpu = server.cpu_s() - cpu0
        print(f"load: server peak RSS {server.peak_rss_kb / 1024:.1f} MiB; server CPU {cpu:.1f} s during the evening "
              f"({cpu / max(1, len(r.latencies)) * 1000:.1f} ms a publication, pairing included)")
        return ok and r.ok
    finally:
        server.stop()


def run_faults(args, work: Path, pw: Path) -> bool:
    total = args.tables * args.deals
    server = ServerProcess(database(args, work, "faults"), free_port(), pw)
    server.start()
    rng = random.Random(args.seed)
    kills: list[float] = []
    done = threading.Event()

    def killer() -> None:
        t0 = time.monotonic()
        for _ in range(args.kills):
            if done.wait(rng.uniform(1.0, 3.0)):
                return
            server.kill9()
            kills.append(time.monotonic() - t0)
            time.sleep(rng.uniform(0.2, 1.5))
            server.start()

    try:
        k = threading.Thread(target=killer, daemon=True)
        k.start()
        r = simulate(server.url, args.tables, args.deals, PASSWORD, seed=args.seed + 1, workdir=work / "faults",
                     pace_s=args.pace, timeout_s=600)
        done.set()
        k.join()
        ok, text = check_evening(server, total, r.totals)
        print(f"faults: server killed with SIGKILL {len(kills)} times (at {', '.join(f'{t:.1f}' for t in kills)} s) "
              f"and restarted: {r.acked}/{total} acknowledged in {r.seconds:.1f} s; {text}")
        return ok and r.ok
    finally:
        server.stop()


def run_offline(args, work: Path, pw: Path) -> bool:
    server = ServerProcess(str(work / "offline.db"), free_port(), pw)
    server.start()
    try:
        result: dict = {}

        def evening() -> None:
            result["r"] = simulate(server.url, 4, 6, PASSWORD, seed=args.seed + 2, workdir=work / "offline",
                                   pace_s=args.offline / 8, timeout_s=args.offline + 600)

        t = threading.Thread(target=evening)
        t.start()
        time.sleep(2.0)  # paired, first deals sent
        server.kill9()
        down = time.monotonic()
        time.sleep(args.offline)
        server.start()
        back = time.monotonic()
        t.join()
        r = result["r"]
        ok, text = check_evening(server, 24, r.totals)
        print(f"offline: server down {back - down:.0f} s while 4 tables played on; every deal acknowledged "
              f"{time.monotonic() - back:.1f} s after it came back (the outbox backs off to 30 s); {text}")
        return ok and r.ok
    finally:
        server.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=60)
    ap.add_argument("--deals", type=int, default=8)
    ap.add_argument("--pace", type=float, default=1.0, help="mean seconds between a table's deals")
    ap.add_argument("--kills", type=int, default=4)
    ap.add_argument("--offline", type=float, default=60.0, help="seconds the server is down in the offline run")
    ap.add_argument("--db", help="a PostgreSQL URL for the load run (an empty database)")
    ap.add_argument("--postgres", action="store_true",
                    help="start a throwaway PostgreSQL cluster here (initdb, pg_ctl; durable defaults) and store "
                         "the load and faults runs in it")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", default="load,faults,offline", help="which runs, comma-separated")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tarotmate-bench-club-"))
    pw = work / "password"
    pw.write_text(PASSWORD + "\n")
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {load_average()}; "
          f"python {platform.python_version()}")
    runs = {"load": run_load, "faults": run_faults, "offline": run_offline}
    for name in args.runs.split(","):
        if name not in runs:
            raise SystemExit(f"--runs: unknown run {name!r} (load, faults, offline)")
    args.pg = ThrowawayPostgres().start() if args.postgres else None
    ok = True
    try:
        for name in args.runs.split(","):
            ok &= runs[name](args, work, pw)
            print(f"{name}: done; {load_average()}")
    finally:
        if args.pg is not None:
            args.pg.stop()
    if platform.machine() not in ("aarch64", "armv7l"):
        print("not measured on a Raspberry Pi: on the Pi that runs the club server, run "
              "`.venv/bin/python benchmarks/bench_club.py --runs load,faults` (and with --postgres when the club "
              "stores in PostgreSQL); the simulated tables then share the Pi's CPUs with the server")
    print("RESULT: " + ("ok" if ok else "FAIL: a deal was lost, doubled or refused"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

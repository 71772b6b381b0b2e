"""Club test helpers: a throwaway PostgreSQL server, publications, a live uvicorn server in a thread."""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path


from device.club.store import ClubStore
from engine.tarot.record import deal_to_record
from engine.tarot.simulate import random_deal

PASSWORD = "director-secret"
NAMES = ["Ana", "Luis", "Marta", "Pau"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


class PostgresServer:
    """A throwaway PostgreSQL cluster (initdb + pg_ctl) on 127.0.0.1, as a non-root user when run as root."""

    def __init__(self) -> None:
        self.initdb, self.pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
        self.dir = Path(tempfile.mkdtemp(prefix="tarotmate-pg-"))
        self.port = free_port()
        self.user: str | None = None
        if os.geteuid() == 0:
            self.user = "nobody"
            pw = pwd.getpwnam(self.user)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self.data = self.dir / "data"
        self._counter = itertools.count(1)

    def _run(self, *cmd: str) -> None:
        full = list(cmd)
        if self.user:
            full = ["runuser", "-u", self.user, "--"] + full
        subprocess.run(full, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=self.dir)

    def start(self) -> None:
        self._run(self.initdb, "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--no-sync", "--locale=C")
        opts = f"-h 127.0.0.1 -p {self.port} -k {self.dir} -c fsync=off -c max_connections=200"
        self._run(self.pg_ctl, "-D", str(self.data), "-o", opts, "-l", str(self.dir / "log"), "-w", "start")

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run(self.pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def new_database(self) -> str:
        import psycopg

        name = f"club_{os.getpid()}_{next(self._counter)}"
        with psycopg.connect(self.url(), autocommit=True) as con:
            con.execute(f"CREATE DATABASE {name}")
        return self.url(name)


def wait_for(cond, timeout: float = 15.0) -> bool:
    """True once ``cond()`` is, polling every 50 ms; False after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return False


@dataclass(frozen=True)
class PairedTable:
    """A table paired with a live club server: its outbox file holds the server, the token and the number."""

    outbox: Path  # club-outbox.db, where a deal log at tmp_path/*.db looks for it
    url: str
    token: str
    number: int


def pair_outbox(store: ClubStore, url: str, path: Path, name: str = "Window") -> PairedTable:
    from device.club.outbox import Outbox

    number, token = paired_token(store, name)
    box = Outbox(path)
    try:
        box.set_link(url=url, token=token, table=str(number))
    finally:
        box.close()
    return PairedTable(path, url, token, number)


def paired_token(store: ClubStore, name: str = "Table") -> tuple[int, str]:
    code, request = store.start_pairing(name)
    table = store.confirm_pairing(code)
    got = store.collect_pairing(request)
    assert got and got["status"] == "paired"
    return table.number, got["token"]


def publication(seed: int, uid: str | None = None, names=NAMES, players: int = 4) -> dict:
    deal = random_deal(players, seed)
    record = deal_to_record(deal)
    record["names"] = list(names)
    return {"id": uid or f"deal-{seed}", "record": record, "scores": list(deal.result().scores)}


class LiveServer:
    """uvicorn serving an ASGI app in a thread, on 127.0.0.1."""

    def __init__(self, app, port: int | None = None, feed=None) -> None:
        from device.club.server import make_server

        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = make_server(app, "127.0.0.1", self.port, feed)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(5)



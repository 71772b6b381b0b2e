"""The table's outbox: finished deals waiting to reach the club server.

A deal is written to the outbox (SQLite beside the deal log, WAL,
``synchronous=FULL``) in the same moment it is finished, with a unique id;
:class:`Publisher` sends what is pending, oldest first, and keeps retrying
(backing off to 30 s) until the server acknowledges it. The table plays on
while the server is down; a resend after a lost answer is harmless because
the server stores each id once. A deal the server refuses is kept with the
reason, for the table to show, and is not sent again.
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from device.club.client import JsonClient, Unreachable
from engine.errors import TarotmateError

SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    uid        TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL,
    body       TEXT NOT NULL,
    state      TEXT NOT NULL DEFAULT 'pending',
    attempts   INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    answer     TEXT,
    done_at    REAL
);
CREATE TABLE IF NOT EXISTS link (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

PENDING, ACKED, REFUSED = "pending", "acked", "refused"
BACKOFF_FIRST_S = 0.5
BACKOFF_MAX_S = 30.0


class OutboxError(TarotmateError):
    """The outbox file cannot be used."""


@dataclass(frozen=True)
class Item:
    seq: int
    uid: str
    body: dict[str, Any]
    state: str
    attempts: int
    last_error: str | None


class Outbox:
    """The persistent queue of publications, and the table's pairing (``link``)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._con = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
            self._con.execute("PRAGMA journal_mode=WAL")
            self._con.execute("PRAGMA synchronous=FULL")
            self._con.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise OutboxError(f"{self.path}: not a Tarotmate outbox ({exc})") from None
        self._lock = threading.Lock()
        self.changed = threading.Event()

    def close(self) -> None:
        with self._lock:
            self._con.close()

    def _exec(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._con.execute(sql, params).fetchall()

    # ------------------------------------------------------------ deals

    def add(self, record: dict[str, Any], scores: list[int] | None, *, round: int | None = None,
            uid: str | None = None) -> str:
        """Queue a finished deal (durable when this returns); returns its id.
        Adding the same ``uid`` again changes nothing."""
        uid = uid or uuid.uuid4().hex
        body: dict[str, Any] = {"id": uid, "record": record, "scores": scores}
        if round is not None:
            body["round"] = round
        self._exec("INSERT OR IGNORE INTO outbox (uid, created_at, body) VALUES (?, ?, ?)",
                   (uid, time.time(), json.dumps(body, ensure_ascii=False)))
        self.changed.set()
        return uid

    def pending(self, limit: int = 50) -> list[Item]:
        return [self._item(r) for r in self._exec(
            "SELECT seq, uid, body, state, attempts, last_error FROM outbox WHERE state = ? ORDER BY seq LIMIT ?",
            (PENDING, limit))]

    def items(self) -> list[Item]:
        return [self._item(r) for r in self._exec(
            "SELECT seq, uid, body, state, attempts, last_error FROM outbox ORDER BY seq")]

    @staticmethod
    def _item(row: tuple) -> Item:
        seq, uid, body, state, attempts, err = row
        return Item(seq, uid, json.loads(body), state, attempts, err)

    def mark_acked(self, uid: str, answer: Any) -> None:
        self._exec("UPDATE outbox SET state = ?, answer = ?, done_at = ?, last_error = NULL WHERE uid = ?",
                   (ACKED, json.dumps(answer), time.time(), uid))

    def mark_refused(self, uid: str, reason: str) -> None:
        self._exec("UPDATE outbox SET state = ?, last_error = ?, done_at = ? WHERE uid = ?",
                   (REFUSED, reason, time.time(), uid))

    def note_failure(self, uid: str, error: str) -> None:
        self._exec("UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE uid = ?", (error, uid))

    def counts(self) -> dict[str, int]:
        out = {PENDING: 0, ACKED: 0, REFUSED: 0}
        for state, n in self._exec("SELECT state, count(*) FROM outbox GROUP BY state"):
            out[state] = n
        return out

    def refusals(self) -> list[tuple[str, str]]:
        return [(u, e or "") for u, e in self._exec(
            "SELECT uid, last_error FROM outbox WHERE state = ? ORDER BY seq", (REFUSED,))]

    # ------------------------------------------------------------ the pairing with a server

    def get_link(self, key: str) -> str | None:
        rows = self._exec("SELECT value FROM link WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_link(self, **values: str | None) -> None:
        for key, value in values.items():
            if value is None:
                self._exec("DELETE FROM link WHERE key = ?", (key,))
            else:
                self._exec("INSERT INTO link (key, value) VALUES (?, ?) "
                           "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, str(value)))


@dataclass
class PublisherStatus:
    connected: bool = False
    last_error: str | None = None
    unpaired: bool = False
    sent: int = 0
    latencies: list[float] | None = None  # seconds, as the table saw each publication
    server_times: list[float] | None = None  # seconds the server spent (its Server-Timing header)
    server_stages: list[dict[str, float]] = field(default_factory=list)  # each publication's stages, seconds


def server_timing(header: str) -> dict[str, float]:
    """``{"publish": 0.012, "replay": 0.004, ...}`` (seconds) from a Server-Timing header."""
    out: dict[str, float] = {}
    for metric in header.split(","):
        name, _, params = metric.strip().partition(";")
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "dur" and name:
                try:
                    out[name] = float(value) / 1000
                except ValueError:
                    pass
    return out


class Publisher:
    """Sends the outbox's pending deals to the server, in a thread, until acknowledged."""

    def __init__(self, outbox: Outbox, server_url: str, token: str, *,
                 on_refused: Callable[[str, str], None] | None = None,
                 on_acked: Callable[[str, Any], None] | None = None,
                 timeout: float = 10.0, record_latency: bool = False,
                 backoff_max: float = BACKOFF_MAX_S) -> None:
        self.outbox = outbox
        self.client = JsonClient(server_url, timeout=timeout)
        self.token = token
        self.on_refused = on_refused
        self.on_acked = on_acked
        self.backoff_max = backoff_max
        self.status = PublisherStatus(latencies=[] if record_latency else None,
                                      server_times=[] if record_latency else None)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._rng = random.Random()

    def start(self) -> "Publisher":
        self._thread = threading.Thread(target=self._run, name="club-publisher", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self.outbox.changed.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.client.close()

    def _run(self) -> None:
        delay = BACKOFF_FIRST_S
        while not self._stop.is_set():
            self.outbox.changed.clear()
            try:
                sent_all = self.send_pending()
            except Unreachable as exc:
                self.status.connected = False
                self.status.last_error = str(exc)
                # back off, with jitter so that many tables do not return at the same instant
                self._stop.wait(delay * (0.5 + self._rng.random()))
                delay = min(delay * 2, self.backoff_max)
                continue
            delay = BACKOFF_FIRST_S
            if sent_all:
                self.outbox.changed.wait(30.0)
            elif self.status.unpaired:
                self._stop.wait(self.backoff_max)

    def send_pending(self) -> bool:
        """Send what is pending now; True once nothing is left (raises Unreachable)."""
        while not self._stop.is_set():
            items = self.outbox.pending(limit=20)
            if not items:
                return True
            for item in items:
                if self._stop.is_set():
                    return False
                if not self.send(item):
                    return False
        return False

    def send(self, item: Item) -> bool:
        """One publication; False when the table must pair again (the item stays pending)."""
        t0 = time.perf_counter()
        try:
            answer = self.client.post("/api/publish", item.body, headers={"Authorization": f"Bearer {self.token}"})
        except Unreachable as exc:
            self.outbox.note_failure(item.uid, str(exc))
            raise
        if self.status.latencies is not None:
            self.status.latencies.append(time.perf_counter() - t0)
            stages = server_timing(answer.headers.get("server-timing", ""))
            if "publish" in stages:
                self.status.server_times.append(stages["publish"])
                self.status.server_stages.append(stages)
        self.status.connected = True
        if answer.status == 200:
            self.outbox.mark_acked(item.uid, answer.body)
            self.status.sent += 1
            self.status.unpaired = False
            if self.on_acked:
                self.on_acked(item.uid, answer.body)
            return True
        if answer.status == 401:
            self.status.unpaired = True
            self.status.last_error = answer.error
            self.outbox.note_failure(item.uid, answer.error)
            return False
        if answer.status in (400, 409, 413, 422):
            self.outbox.mark_refused(item.uid, answer.error)
            if self.on_refused:
                self.on_refused(item.uid, answer.error)
            return True
        # 5xx, 429 and anything unexpected: the server is not ready; try again later
        self.outbox.note_failure(item.uid, answer.error)
        raise Unreachable(f"{self.client.base_url}: {answer.error}")


def pair_with_server(server_url: str, name: str, show_code: Callable[[str], None], *,
                     wait_s: float = 900.0, poll_s: float = 1.0,
                     stop: threading.Event | None = None) -> dict[str, Any]:
    """Ask the server for a pairing code, show it, and wait for the director to type it.
    Returns ``{"table", "name", "token"}``; raises TarotmateError when it expires."""
    client = JsonClient(server_url)
    try:
        answer = client.post("/api/pair", {"name": name})
        if answer.status != 200:
            raise TarotmateError(f"the club server refused to pair: {answer.error}")
        show_code(answer.body["code"])
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and not (stop and stop.is_set()):
            try:
                got = client.get(answer.body["poll"])
            except Unreachable:
                time.sleep(poll_s)
                continue
            if got.status == 200 and got.body.get("status") == "paired":
                return got.body
            if got.status == 404:
                raise TarotmateError("the pairing code expired; pair again")
            time.sleep(poll_s)
        raise TarotmateError("the pairing code was not typed in time; pair again")
    finally:
        client.close()

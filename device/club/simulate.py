"""A whole club evening without tables: ``tarotmate club simulate``.

Each simulated table pairs through the director API (the director's password),
plays its deals through the real engine (:func:`engine.tarot.simulate.random_deal`)
and publishes every finished deal through the same :class:`~device.club.outbox.Outbox`
and :class:`~device.club.outbox.Publisher` as a real table. The simulation ends
when every deal is acknowledged (or refused, or the time runs out).
"""

from __future__ import annotations

import random
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from device.club.client import JsonClient, Unreachable
from engine.tarot.state import Phase as TarotPhase
from device.club.outbox import Outbox, Publisher
from engine.errors import TarotmateError
from engine.tarot.record import deal_to_record
from engine.tarot.simulate import random_deal

FIRST_NAMES = ["Ana", "Luis", "Marta", "Pau", "Jeanne", "Hugo", "Lina", "Yves", "Chloé", "Omar", "Nina", "Rémi",
               "Sofia", "Théo", "Inès", "Malo", "Léa", "Bruno", "Zoé", "Karim", "Agnès", "Jules", "Maud", "Félix"]


@dataclass
class SimTable:
    index: int
    number: int = 0
    token: str = ""
    outbox: Outbox | None = None
    publisher: Publisher | None = None
    names: list[str] = field(default_factory=list)
    queued: int = 0


@dataclass
class SimulationResult:
    tables: int
    deals: int
    acked: int
    refused: list[tuple[str, str]]
    seconds: float
    latencies: list[float]
    totals: dict[str, int]
    server_times: list[float] = field(default_factory=list)
    server_stages: list[dict[str, float]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.acked == self.deals and not self.refused


def player_names(count: int) -> list[str]:
    """``count`` distinct names: first names, then with a number."""
    out = []
    k = 0
    while len(out) < count:
        base = FIRST_NAMES[k % len(FIRST_NAMES)]
        out.append(base if k < len(FIRST_NAMES) else f"{base} {k // len(FIRST_NAMES) + 1}")
        k += 1
    return out


class Director:
    """The director's side through the JSON API (login cookie + CSRF header), retried while the server is down."""

    def __init__(self, server: str, password: str, retry_s: float) -> None:
        self.client = JsonClient(server)
        self.retry_s = retry_s
        answer = self._call(lambda: self.client.post("/api/director/login", {"password": password}))
        if answer.status != 200:
            raise TarotmateError(f"director login refused: {answer.error}")
        self.csrf = answer.body["csrf"]

    def _call(self, fn: Callable):
        deadline = time.monotonic() + self.retry_s
        while True:
            try:
                return fn()
            except Unreachable:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def post(self, path: str, body: dict):
        return self._call(lambda: self.client.post(path, body, headers={"X-CSRF-Token": self.csrf}))


def pair_table(server: str, director: Director, name: str, retry_s: float) -> tuple[int, str]:
    """Pair one table: ask for a code, have the director type it, collect the token."""
    client = JsonClient(server)
    deadline = time.monotonic() + retry_s
    try:
        while True:
            try:
                start = client.post("/api/pair", {"name": name})
                if start.status != 200:
                    raise TarotmateError(f"pairing refused: {start.error}")
                confirm = director.post("/api/director/pair", {"code": start.body["code"]})
                if confirm.status != 200 and "already used" not in confirm.error:
                    raise TarotmateError(f"pairing {name}: {confirm.error}")
                got = client.get(start.body["poll"])
                if got.status == 200 and got.body.get("status") == "paired":
                    return int(got.body["table"]), got.body["token"]
            except Unreachable:
                pass  # the server is down (restarting): pair again from the start
            if time.monotonic() > deadline:
                raise TarotmateError(f"{name}: could not pair with {server}")
            time.sleep(0.5)
    finally:
        client.close()


def simulate(server: str, tables: int, deals: int, password: str, *, seed: int = 0, players: int = 4,
             workdir: str | Path | None = None, pace_s: float = 0.0, timeout_s: float = 900.0,
             progress: Callable[[str], None] | None = None) -> SimulationResult:
    if tables < 1 or deals < 1:
        raise TarotmateError("--tables and --deals must be at least 1")
    if players not in (3, 4, 5):
        raise TarotmateError("--players is 3, 4 or 5")
    say = progress or (lambda _m: None)
    tmp = None
    if workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="tarotmate-club-sim-")
        workdir = tmp.name
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    names = player_names(tables * players)
    t0 = time.perf_counter()
    director = Director(server, password, timeout_s)
    sims = [SimTable(i, names=names[i * players:(i + 1) * players]) for i in range(tables)]
    answered = threading.Condition()
    answers = [0]  # publications acknowledged or refused, as the publishers report them

    def answer(_uid: str, _what: object) -> None:
        with answered:
            answers[0] += 1
            answered.notify_all()

    for n in names:
        director.post("/api/director/players", {"name": n})
    for sim in sims:
        sim.number, sim.token = pair_table(server, director, f"Simulated table {sim.index + 1}", timeout_s)
        sim.outbox = Outbox(workdir / f"table-{sim.index + 1}-outbox.db")
        sim.outbox.set_link(url=server, table=str(sim.number))
        sim.publisher = Publisher(sim.outbox, server, sim.token, record_latency=True, backoff_max=2.0,
                                  on_acked=answer, on_refused=answer).start()
    say(f"{tables} tables paired")
    seeds = [[rng.randrange(2 ** 32) for _ in range(deals)] for _ in range(tables)]
    expected: dict[str, int] = {}
    lock = threading.Lock()

    def play(sim: SimTable) -> None:
        table_rng = random.Random(seeds[sim.index][0])
        for k in range(deals):
            if pace_s:  # a deal takes its time: the tables do not all finish at the same instant
                time.sleep(pace_s * (0.5 + table_rng.random()))
            deal = random_deal(players, seeds[sim.index][k], dealer=k % players)
            record = deal_to_record(deal)
            record["names"] = list(sim.names)
            scores = list(deal.result().scores) if deal.phase == TarotPhase.DONE else [0] * players
            assert sim.outbox is not None
            sim.outbox.add(record, scores)
            with lock:
                sim.queued += 1
                for name, score in zip(sim.names, scores):
                    expected[name] = expected.get(name, 0) + score

    players_threads = [threading.Thread(target=play, args=(s,), daemon=True) for s in sims]
    for th in players_threads:
        th.start()
    total = tables * deals
    deadline = time.monotonic() + timeout_s
    last = -1
    while True:
        # the publishers' callbacks wake this loop; the outboxes themselves are read once a second
        with answered:
            answered.wait_for(lambda: answers[0] >= total, timeout=1.0)
        counts = [s.outbox.counts() for s in sims if s.outbox]
        acked = sum(c["acked"] for c in counts)
        refused = sum(c["refused"] for c in counts)
        if acked != last:
            say(f"{acked}/{total} deals acknowledged")
            last = acked
        if acked + refused >= total or time.monotonic() > deadline:
            break
    for th in players_threads:
        th.join(1.0)
    latencies: list[float] = []
    server_times: list[float] = []
    server_stages: list[dict[str, float]] = []
    refusals: list[tuple[str, str]] = []
    for s in sims:
        assert s.publisher and s.outbox
        s.publisher.stop()
        latencies += s.publisher.status.latencies or []
        server_times += s.publisher.status.server_times or []
        server_stages += s.publisher.status.server_stages
        refusals += s.outbox.refusals()
        s.outbox.close()
    if tmp is not None:
        tmp.cleanup()
    return SimulationResult(tables, total, acked, refusals, time.perf_counter() - t0, latencies, expected,
                            server_times, server_stages)


def print_progress(message: str) -> None:
    print(f"club simulate: {message}", file=sys.stderr, flush=True)

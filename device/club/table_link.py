"""The table's link to its club: the server found or configured, the pairing, the outbox, the player list.

    link = ClubLink(outbox_path, url=config_url)     # url None: found by DNS-SD
    link.start()                                     # publisher in a thread, if paired
    link.pair(show_code)                             # shows the code; paired in the background
    link.publish(deal_key, record, scores)           # a finished deal: queued durably, sent when possible
    link.status_text()                               # one line for the OLED
    link.players()                                   # the club's player list (names)

Nothing here blocks the table: the server may be absent, down or slow.
"""

from __future__ import annotations

import sqlite3
import threading
import uuid
from pathlib import Path
from typing import Any, Callable

from device.club.client import JsonClient, Unreachable
from device.club.outbox import Outbox, Publisher, pair_with_server
from engine.errors import TarotmateError


def int_scores(scores: list[float] | None) -> list[int] | None:
    """The deal log keeps scores as numbers; a club publication wants integers."""
    if scores is None:
        return None
    return [int(round(s)) for s in scores]


class ClubLink:
    def __init__(self, outbox_path: str | Path, url: str | None = None, *, table_name: str = "Tarotmate table",
                 discover_timeout: float = 3.0, report: Callable[[str], None] | None = None,
                 on_refused: Callable[[str], None] | None = None) -> None:
        self.outbox = Outbox(outbox_path)
        self.configured_url = url.rstrip("/") if url else None
        self.table_name = table_name
        self.discover_timeout = discover_timeout
        self.report = report or (lambda _m: None)
        self.on_refused = on_refused  # the table shows the server's reason
        self.publisher: Publisher | None = None
        self.pairing_code: str | None = None
        self.last_refusal: str | None = None
        self._players: list[str] = []
        self._lock = threading.Lock()
        self._closed = False
        install = self.outbox.get_link("install")
        if install is None:
            install = uuid.uuid4().hex[:12]
            self.outbox.set_link(install=install)
        self.install = install

    # ------------------------------------------------------------ the server

    @property
    def url(self) -> str | None:
        return self.configured_url or self.outbox.get_link("url")

    def find_server(self) -> str | None:
        if self.configured_url:
            return self.configured_url
        from device.club.discovery import discover

        try:
            found = discover(self.discover_timeout)
        except OSError as exc:
            self.report(f"club: no mDNS on this network ({exc})")
            found = []
        if found:
            self.outbox.set_link(url=found[0].url)
            return found[0].url
        return self.outbox.get_link("url")

    def start(self) -> None:
        """Start sending (when paired); finding the server by DNS-SD happens in the background."""
        threading.Thread(target=self._start, name="club-link", daemon=True).start()

    def _start(self) -> None:
        try:
            url = self.find_server()
            token = self.outbox.get_link("token")
        except sqlite3.ProgrammingError:  # closed meanwhile (the table is stopping)
            return
        if url and token:
            self._start_publisher(url, token)

    def _start_publisher(self, url: str, token: str) -> None:
        with self._lock:
            if self._closed:
                return
            if self.publisher is not None:
                self.publisher.stop()
            self.publisher = Publisher(self.outbox, url, token, on_refused=self._refused).start()

    def _refused(self, uid: str, reason: str) -> None:
        self.last_refusal = reason
        self.report(f"club: the server refused deal {uid}: {reason}")
        if self.on_refused is not None:
            self.on_refused(reason)

    def pair(self, show_code: Callable[[str], None], on_done: Callable[[str | None], None] | None = None) -> None:
        """Pair in the background: ``show_code(code)`` when the server gives one,
        ``on_done(None)`` once paired, ``on_done(reason)`` if it failed."""

        def work() -> None:
            try:
                url = self.find_server()
                if not url:
                    raise TarotmateError("no club server found on the network; set [club] url")

                def shown(code: str) -> None:
                    self.pairing_code = code
                    show_code(code)

                got = pair_with_server(url, self.table_name, shown)
                self.outbox.set_link(url=url, token=got["token"], table=str(got["table"]))
                self.pairing_code = None
                self._start_publisher(url, got["token"])
                if on_done:
                    on_done(None)
            except (TarotmateError, Unreachable, OSError) as exc:
                self.pairing_code = None
                if on_done:
                    on_done(str(exc))

        threading.Thread(target=work, name="club-pairing", daemon=True).start()

    # ------------------------------------------------------------ deals

    def publish(self, deal_key: Any, record: dict[str, Any] | None, scores: list[float] | None) -> str | None:
        """Queue a finished deal; the same ``deal_key`` (the deal log's deal id) is one publication."""
        if record is None:
            return None
        return self.outbox.add(record, int_scores(scores), uid=f"{self.install}-{deal_key}")

    # ------------------------------------------------------------ what the table shows

    def status(self) -> dict[str, Any]:
        counts = self.outbox.counts()
        table = self.outbox.get_link("table")
        pub = self.publisher
        return {"url": self.url, "table": int(table) if table else None, "paired": bool(self.outbox.get_link("token")),
                "connected": bool(pub and pub.status.connected), "unpaired": bool(pub and pub.status.unpaired),
                "waiting": counts["pending"], "sent": counts["acked"], "refused": counts["refused"],
                "last_refusal": self.last_refusal, "pairing_code": self.pairing_code}

    def status_text(self) -> str:
        s = self.status()
        if s["pairing_code"]:
            return f"club: type {s['pairing_code']} on the director page"
        if s["last_refusal"]:
            return f"club refused a deal: {s['last_refusal']}"
        if not s["paired"] or s["unpaired"]:
            return "club: not paired"
        where = f"table {s['table']}" if s["table"] else "paired"
        if s["waiting"]:
            return f"club: {where}, {s['waiting']} deal{'s' if s['waiting'] > 1 else ''} waiting"
        return f"club: {where}, all sent"

    def players(self, refresh: bool = True) -> list[str]:
        """The club's player list (the names typed on the director page); the last one known when offline."""
        url = self.url
        if refresh and url:
            client = JsonClient(url, timeout=3)
            try:
                got = client.get("/api/players")
                if got.status == 200 and isinstance(got.body, list):
                    self._players = [p["name"] for p in got.body if isinstance(p, dict) and isinstance(p.get("name"), str)]
            except Unreachable:
                pass
            finally:
                client.close()
        return list(self._players)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self.publisher is not None:
                self.publisher.stop()
                self.publisher = None
        self.outbox.close()

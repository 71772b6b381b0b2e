"""A small JSON-over-HTTP client for tables (standard library only: http.client, keep-alive)."""

from __future__ import annotations

import http.client
import json
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from engine.errors import TarotmateError


class Unreachable(TarotmateError):
    """The server did not answer (down, network lost, timeout)."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    headers: dict[str, str]

    @property
    def error(self) -> str:
        if isinstance(self.body, dict) and "error" in self.body:
            return str(self.body["error"])
        return f"HTTP {self.status}"


class JsonClient:
    """One keep-alive connection to ``base_url``; reconnects after any failure."""

    def __init__(self, base_url: str, timeout: float = 10.0) -> None:
        parts = urlsplit(base_url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise TarotmateError(f"not a server URL: {base_url!r} (expected http://HOST:PORT)")
        self.base_url = base_url.rstrip("/")
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        self._prefix = parts.path
        self.timeout = timeout
        self.cookies: dict[str, str] = {}
        self._con: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._con is None:
            cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            con = cls(self._host, self._port, timeout=self.timeout)
            con.connect()
            # http.client sends the headers and the body in two writes: without
            # TCP_NODELAY the body waits for the server's delayed ACK (~40 ms).
            con.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._con = con
        return self._con

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Answer:
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode()
        h = {"Accept": "application/json"}
        if data is not None:
            h["Content-Type"] = "application/json"
        if self.cookies:
            h["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        h.update(headers or {})
        for attempt in (0, 1):  # a kept-alive connection the server closed: one fresh try
            try:
                con = self._connection()
                con.request(method, self._prefix + path, body=data, headers=h)
                resp = con.getresponse()
                raw = resp.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                self.close()
                if attempt:
                    raise Unreachable(f"{self.base_url}: {exc or type(exc).__name__}") from None
            except (OSError, http.client.HTTPException, socket.timeout) as exc:
                self.close()
                raise Unreachable(f"{self.base_url}: {exc or type(exc).__name__}") from None
        for value in resp.headers.get_all("Set-Cookie") or []:
            name, _, rest = value.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        try:
            parsed = json.loads(raw.decode("utf-8")) if raw else None
        except (UnicodeDecodeError, json.JSONDecodeError):
            parsed = raw.decode("utf-8", "replace")
        if resp.getheader("Connection", "").lower() == "close":
            self.close()
        return Answer(resp.status, parsed, {k.lower(): v for k, v in resp.getheaders()})

    def get(self, path: str, **kw: Any) -> Answer:
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> Answer:
        return self.request("POST", path, body if body is not None else {}, **kw)

"""A change counter that pages follow by Server-Sent Events (the club server's pages and the table's page).

Writers (in any thread) call :meth:`ChangeFeed.bump`; each open event stream
wakes, sends the new version, and the page fetches what it shows again.
"""

from __future__ import annotations

import asyncio
import threading
from typing import AsyncIterator

KEEPALIVE_S = 15.0


class ChangeFeed:
    def __init__(self) -> None:
        self.version = 0
        self.closed = False
        self._lock = threading.Lock()
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()

    def bump(self) -> int:
        with self._lock:
            self.version += 1
            waiters = list(self._waiters)
        for loop, event in waiters:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # that loop has closed
                pass
        return self.version

    def close(self) -> None:
        """End every open stream (the server is shutting down)."""
        self.closed = True
        self.bump()

    async def wait(self, seen: int, timeout: float) -> int:
        """The version once it is past ``seen`` (or after ``timeout``)."""
        if self.version != seen:
            return self.version
        event = asyncio.Event()
        key = (asyncio.get_running_loop(), event)
        with self._lock:
            self._waiters.add(key)
        try:
            if self.version == seen:
                try:
                    await asyncio.wait_for(event.wait(), timeout)
                except asyncio.TimeoutError:
                    pass
        finally:
            with self._lock:
                self._waiters.discard(key)
        return self.version

    async def stream(self, keepalive: float = KEEPALIVE_S) -> AsyncIterator[str]:
        """The text of an SSE stream: ``event: change`` with the version, pings between."""
        seen = self.version
        yield f"retry: 2000\nevent: change\ndata: {seen}\n\n"
        while not self.closed:
            now = await self.wait(seen, keepalive)
            if self.closed:
                return
            if now == seen:
                yield ": ping\n\n"
            else:
                seen = now
                yield f"event: change\ndata: {now}\n\n"

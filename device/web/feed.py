"""A change counter that pages follow by Server-Sent Events (the club server's pages and the table's page).

Writers (in any thread) call :meth:`ChangeFeed.bump`; each open event stream
(:func:`event_stream`, the one writer of the SSE text) wakes and sends its
event: the club's pages get the new version (``change``) and fetch what they
show again, the table's page gets its whole new state (``state``).
"""

from __future__ import annotations

import asyncio
import threading
from typing import AsyncIterator, Callable

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

    def stream(self, keepalive: float = KEEPALIVE_S) -> AsyncIterator[str]:
        """The text of an SSE stream: ``event: change`` with the version, pings between."""
        return event_stream(self, "change", lambda: str(self.version), keepalive)


async def event_stream(feed: ChangeFeed, event: str, data: Callable[[], str],
                       keepalive: float = KEEPALIVE_S) -> AsyncIterator[str]:
    """The text of a Server-Sent Events stream that follows ``feed``: ``event`` with ``data()`` (one line
    of text, read when it is sent) at once and after each change, a ping after ``keepalive`` seconds
    without one; it ends when the feed closes."""
    seen = feed.version
    yield f"retry: 2000\nevent: {event}\ndata: {data()}\n\n"
    while not feed.closed:
        now = await feed.wait(seen, keepalive)
        if feed.closed:
            return
        if now == seen:
            yield ": ping\n\n"
        else:
            seen = now
            yield f"event: {event}\ndata: {data()}\n\n"

"""The table's own live page: read-only, on the LAN, pushed by Server-Sent Events.

    page = TablePage(host="0.0.0.0", port=8080).start()   # uvicorn in a daemon thread
    page.update(state)                                     # the page's JSON (device.web.views.page_state)
    page.stop()

``GET /`` is the page (HTML, JavaScript and uPlot shipped with Tarotmate: no
internet needed), ``GET /api/state`` the current state, ``GET /api/events``
an event stream whose every ``state`` event carries the whole new state (a
few kB), so a phone shows a card within a network round trip of the
controller committing it.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any, AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from device.web.feed import ChangeFeed, event_stream
from device.web.live_view import live_routes
from device.web.serving import listen, make_server
from engine.errors import TarotmateError

HERE = Path(__file__).parent


class LiveState:
    """The latest state (JSON text) and a feed that wakes the open streams."""

    def __init__(self) -> None:
        self.feed = ChangeFeed()
        self._lock = threading.Lock()
        self._json = json.dumps({"title": "Tarotmate", "names": [], "deal": None,
                                 "sheet": {"names": [], "rows": [], "totals": [], "running": []},
                                 "history": [], "club": None})

    def update(self, state: dict[str, Any]) -> None:
        text = json.dumps(state, ensure_ascii=False)
        with self._lock:
            if text == self._json:
                return
            self._json = text
        self.feed.bump()

    @property
    def json(self) -> str:
        with self._lock:
            return self._json

    def stream(self) -> AsyncIterator[str]:
        """``event: state`` with the whole state, at once and after each change."""
        return event_stream(self.feed, "state", lambda: self.json)


def create_table_app(live: LiveState, camera=None) -> Starlette:
    page = (HERE / "templates" / "table.html").read_text(encoding="utf-8")

    async def index(request: Request) -> HTMLResponse:
        return HTMLResponse(page, headers={"Cache-Control": "no-store"})

    async def state(request: Request) -> JSONResponse:
        return JSONResponse(json.loads(live.json))

    async def events(request: Request) -> StreamingResponse:
        return StreamingResponse(live.stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    return Starlette(routes=[
        Route("/", index),
        Route("/api/state", state),
        Route("/api/events", events),
        *live_routes(camera),  # the live view of the camera (device/web/live_view.py)
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ])


class TablePage:
    """The page's server, in a daemon thread beside the table's main loop."""

    def __init__(self, host: str = "127.0.0.1", port: int = 8080, camera=None) -> None:
        self.host, self.port = host, port
        self.camera = camera  # device.app.camera_check.DeviceCameraCheck: the live view
        self.live = LiveState()
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self, timeout: float = 10.0) -> "TablePage":
        sock = listen(self.host, self.port)
        if self.port == 0:
            self.port = sock.getsockname()[1]
        self._server = make_server(create_table_app(self.live, self.camera), self.host, self.port, self.live.feed)
        self._thread = threading.Thread(target=self._run, args=(sock,), name="table-page", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise TarotmateError(f"the table's page did not start on {self.host}:{self.port}")
            time.sleep(0.02)
        return self

    def _run(self, sock: Any) -> None:
        asyncio.run(self._server.serve(sockets=[sock]))

    def update(self, state: dict[str, Any]) -> None:
        self.live.update(state)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(5)

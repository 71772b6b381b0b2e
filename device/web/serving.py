"""Serving a Starlette app with uvicorn: the listening socket and the server, for the table's page and the club.

    sock = listen(host, port)                          # a busy port is a one-line TarotmateError
    server = make_server(app, host, port, feed)        # ends the feed's open event streams when it stops
    asyncio.run(server.serve(sockets=[sock]))
"""

from __future__ import annotations

import socket
from typing import Any, Callable

from device.web.feed import ChangeFeed
from engine.errors import TarotmateError


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so that a busy port is a one-line error."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise TarotmateError(f"--host {host}: {exc.strerror}") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise TarotmateError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def make_server(app: Any, host: str, port: int, feed: ChangeFeed | None = None,
                on_close: Callable[[], None] | None = None) -> Any:
    """A uvicorn server for ``app`` that ends ``feed``'s open event streams first when it stops, then
    calls ``on_close`` once the connections are closed."""
    import uvicorn

    class Server(uvicorn.Server):
        async def shutdown(self, sockets=None):
            if feed is not None:
                feed.close()
            await super().shutdown(sockets)
            if on_close is not None:
                on_close()

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                            timeout_graceful_shutdown=2, lifespan="off")
    return Server(config)

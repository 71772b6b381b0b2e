"""systemd's notification protocol (sd_notify) with the standard library.

Under ``Type=notify`` systemd passes ``$NOTIFY_SOCKET``; the app sends
``READY=1`` once the camera gave a frame and the model is loaded,
``WATCHDOG=1`` from its main loop (at least every ``WatchdogSec/2``), and
``STATUS=...`` lines that ``systemctl status`` shows. Outside systemd (a
desktop, the tests without a socket) every call is a no-op returning
``False``.
"""

from __future__ import annotations

import os
import socket
import time


def notify(message: str, socket_path: str | None = None) -> bool:
    """Send one notification datagram; ``False`` when there is no socket or it fails."""
    address = socket_path if socket_path is not None else os.environ.get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]  # abstract namespace
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(message.encode("utf-8"))
    except OSError:
        return False
    return True


def watchdog_interval() -> float | None:
    """Seconds between watchdog pings (half of ``$WATCHDOG_USEC``), or ``None``
    when systemd runs no watchdog for this process."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec:
        return None
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    return value / 2e6 if value > 0 else None


class Notifier:
    """The app's side of sd_notify: READY once, WATCHDOG at most every
    ``interval`` seconds (half of WatchdogSec), STATUS on change."""

    def __init__(self, socket_path: str | None = None, clock=time.monotonic):
        self._socket = socket_path
        self._clock = clock
        self.interval = watchdog_interval()
        self._last_ping = float("-inf")
        self._last_status = ""
        self.ready_sent = False

    def ready(self, status: str = "") -> bool:
        message = "READY=1" + (f"\nSTATUS={status}" if status else "")
        self.ready_sent = notify(message, self._socket) or self.ready_sent
        self._last_status = status or self._last_status
        return self.ready_sent

    def status(self, text: str) -> bool:
        if text == self._last_status:
            return False
        self._last_status = text
        return notify(f"STATUS={text}", self._socket)

    def ping(self) -> bool:
        """A watchdog ping when due (call it every loop iteration)."""
        now = self._clock()
        interval = self.interval if self.interval is not None else 1.0
        if now - self._last_ping < interval:
            return False
        self._last_ping = now
        return notify("WATCHDOG=1", self._socket)

    def stopping(self) -> bool:
        return notify("STOPPING=1", self._socket)

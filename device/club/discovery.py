"""Finding the club server on the LAN: DNS-SD over mDNS (python-zeroconf; Avahi on the Pi answers the same).

The server announces ``_tarotmate-club._tcp.local.`` with its port and a
``path`` property; a table browses for it when its config has no ``[club] url``.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

SERVICE_TYPE = "_tarotmate-club._tcp.local."


@dataclass(frozen=True)
class FoundServer:
    name: str
    url: str


def service_info(name: str, address: str, port: int) -> Any:
    from zeroconf import ServiceInfo

    label = "".join(c for c in name if c.isalnum() or c in " -_")[:50] or "Tarotmate club"
    return ServiceInfo(
        SERVICE_TYPE,
        f"{label}.{SERVICE_TYPE}",
        addresses=[socket.inet_aton(address)],
        port=port,
        properties={"path": "/", "api": "1"},
        server=f"{socket.gethostname().split('.')[0] or 'tarotmate'}.local.",
    )


class Advertiser:
    """Announces the server while it runs; only on ``address`` (never on all interfaces)."""

    def __init__(self, name: str, address: str, port: int) -> None:
        from zeroconf import IPVersion, Zeroconf

        self.info = service_info(name, address, port)
        self.zc = Zeroconf(interfaces=[address], ip_version=IPVersion.V4Only)
        self.zc.register_service(self.info, allow_name_change=True)

    def close(self) -> None:
        try:
            self.zc.unregister_service(self.info)
        finally:
            self.zc.close()


def advertised_address(host: str) -> str | None:
    """The IPv4 address to announce for ``--host``: None for loopback (nothing to tell the LAN)."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None
    if ip.is_loopback or ip.version != 4:
        return None
    if ip.is_unspecified:
        return _primary_address()
    return host


def _primary_address() -> str | None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # TEST-NET: nothing is sent; picks the LAN interface
        return s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()


def discover(timeout: float = 3.0, interfaces: Any = None) -> list[FoundServer]:
    """The club servers that answer on the LAN within ``timeout`` seconds."""
    from zeroconf import IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf

    found: dict[str, FoundServer] = {}
    lock = threading.Lock()
    kw = {"interfaces": interfaces} if interfaces is not None else {}
    zc = Zeroconf(ip_version=IPVersion.V4Only, **kw)

    def on_change(zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
        if state_change is not ServiceStateChange.Added:
            return
        info = zeroconf.get_service_info(service_type, name, timeout=int(timeout * 1000))
        if info is None or not info.parsed_addresses():
            return
        path = (info.properties or {}).get(b"path", b"/").decode() or "/"
        url = f"http://{info.parsed_addresses()[0]}:{info.port}{path.rstrip('/')}"
        with lock:
            found[name] = FoundServer(name.removesuffix("." + SERVICE_TYPE), url)

    try:
        ServiceBrowser(zc, SERVICE_TYPE, handlers=[on_change])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(0.1)
            with lock:
                if found:
                    time.sleep(0.2)
                    break
    finally:
        zc.close()
    return list(found.values())


def server_url(configured: str | None, timeout: float = 3.0) -> str | None:
    """``[club] url`` when set, else the first server found by DNS-SD, else None."""
    if configured:
        return configured.rstrip("/")
    servers = discover(timeout)
    return servers[0].url if servers else None

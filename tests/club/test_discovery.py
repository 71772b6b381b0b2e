"""DNS-SD: the server announces itself and a table finds it (on the loopback interface only)."""

from __future__ import annotations

import pytest

from device.club.discovery import SERVICE_TYPE, Advertiser, advertised_address, discover, server_url

from .helpers import free_port


def test_a_table_finds_the_announced_server():
    port = free_port()
    try:
        ad = Advertiser("Club du Lion", "127.0.0.1", port)
    except OSError as exc:  # pragma: no cover - a sandbox without multicast on lo
        pytest.skip(f"no multicast on the loopback interface here: {exc}")
    try:
        found = discover(5, interfaces=["127.0.0.1"])
    finally:
        ad.close()
    assert [(f.name, f.url) for f in found] == [("Club du Lion", f"http://127.0.0.1:{port}")]
    assert ad.info.type == SERVICE_TYPE


def test_a_configured_url_wins_and_nothing_is_announced_on_loopback():
    assert server_url("http://10.0.0.5:8377/") == "http://10.0.0.5:8377"
    assert advertised_address("127.0.0.1") is None
    assert advertised_address("::1") is None
    assert advertised_address("192.168.1.20") == "192.168.1.20"
    assert advertised_address("localhost") is None

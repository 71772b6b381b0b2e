"""sd_notify over a real datagram socket, as systemd would receive it."""

import os
import socket

import pytest

from device.app.notify import Notifier, notify, watchdog_interval


@pytest.fixture
def notify_socket(tmp_path, monkeypatch):
    path = str(tmp_path / "notify.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(path)
    server.settimeout(1.0)
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    yield server
    server.close()


def received(server) -> list[str]:
    messages = []
    server.setblocking(False)
    try:
        while True:
            messages.append(server.recv(4096).decode())
    except BlockingIOError:
        pass
    return messages


def test_no_socket_is_a_no_op(monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert notify("READY=1") is False


def test_ready_status_and_watchdog(notify_socket, monkeypatch):
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    now = [100.0]
    notifier = Notifier(clock=lambda: now[0])
    assert notifier.interval == 15.0
    assert notifier.ready("camera ok")
    assert notifier.ping()
    now[0] += 5
    assert not notifier.ping()  # not due yet
    now[0] += 11
    assert notifier.ping()
    assert notifier.status("trick 3")
    assert not notifier.status("trick 3")  # unchanged: not resent
    assert received(notify_socket) == ["READY=1\nSTATUS=camera ok", "WATCHDOG=1", "WATCHDOG=1", "STATUS=trick 3"]


def test_abstract_socket(monkeypatch):
    name = f"tarotmate-test-{os.getpid()}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind("\0" + name)
    try:
        assert notify("WATCHDOG=1", socket_path="@" + name)
        assert server.recv(100) == b"WATCHDOG=1"
    finally:
        server.close()


def test_watchdog_for_another_pid_is_ignored(monkeypatch):
    monkeypatch.setenv("WATCHDOG_USEC", "20000000")
    monkeypatch.setenv("WATCHDOG_PID", "1")
    assert watchdog_interval() is None
    monkeypatch.delenv("WATCHDOG_PID")
    assert watchdog_interval() == 10.0

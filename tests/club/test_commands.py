"""``tarotmate club serve`` and ``tarotmate club simulate`` as processes, on loopback."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request

import pytest

from engine.tarot.record import replay_record

from .helpers import PASSWORD, free_port

CLI = [sys.executable, "-m", "device.cli", "club"]


def start_server(tmp_path, db, port, password_file=None):
    cmd = CLI + ["serve", "--db", db, "--port", str(port), "--no-advertise"]
    if password_file:
        cmd += ["--director-password-file", str(password_file)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1).read()
            return proc
        except OSError:
            if proc.poll() is not None:
                raise AssertionError(f"the server exited: {proc.stderr.read()}")
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("the server did not answer")


def get_json(port, path):
    return json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5).read())


@pytest.fixture
def password_file(tmp_path):
    f = tmp_path / "director-password"
    f.write_text(PASSWORD + "\n")
    return f


@pytest.mark.slow
def test_simulate_publishes_an_evening_and_exits_0(tmp_path, db_target, password_file):
    port = free_port()
    server = start_server(tmp_path, db_target, port, password_file)
    try:
        out = subprocess.run(CLI + ["simulate", "--server", f"http://127.0.0.1:{port}", "--tables", "3",
                                    "--deals", "4", "--seed", "5", "--director-password-file", str(password_file),
                                    "--json"], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        summary = json.loads(out.stdout)
        assert (summary["deals"], summary["acknowledged"], summary["refused"]) == (12, 12, [])
        deals = get_json(port, "/api/deals")
        assert len(deals) == 12 and len({(d["table"], d["id"]) for d in deals}) == 12
        assert {d["table"] for d in deals} == {1, 2, 3}
        totals: dict[str, int] = {}
        for d in deals:
            for name, score in zip(d["record"]["names"], replay_record(d["record"])["scores"]):
                totals[name] = totals.get(name, 0) + score
        standings = get_json(port, "/api/standings")["players"]
        assert {p["name"]: p["score"] for p in standings} == totals == summary["totals"]
        assert {p["name"] for p in get_json(port, "/api/players")} == set(totals)
    finally:
        server.terminate()
        server.wait(10)


def test_simulate_with_the_wrong_password_fails_clearly(tmp_path, password_file):
    port = free_port()
    server = start_server(tmp_path, str(tmp_path / "club.db"), port, password_file)
    try:
        wrong = tmp_path / "wrong"
        wrong.write_text("not-the-password\n")
        out = subprocess.run(CLI + ["simulate", "--server", f"http://127.0.0.1:{port}", "--tables", "1",
                                    "--deals", "1", "--director-password-file", str(wrong)],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2
        assert "director login refused" in out.stderr and "Traceback" not in out.stderr
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.parametrize("args, words", [
    (["serve", "--db", "/no/such/dir/club.db"], "no such directory"),
    (["serve", "--db", "{tmp}", "--port", "0"], "expected 1..65535"),
    (["serve", "--db", "{tmp}/c.db", "--director-password-file", "{tmp}/missing"], "no such file"),
    (["simulate", "--server", "ftp://x", "--tables", "1", "--deals", "1", "--director-password-file", "{pw}"],
     "not a server URL"),
])
def test_command_errors_are_one_line(tmp_path, password_file, args, words):
    args = [a.replace("{tmp}", str(tmp_path)).replace("{pw}", str(password_file)) for a in args]
    out = subprocess.run(CLI + args, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert words in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_short_director_password_is_refused(tmp_path):
    short = tmp_path / "pw"
    short.write_text("abc\n")
    out = subprocess.run(CLI + ["serve", "--db", str(tmp_path / "c.db"), "--director-password-file", str(short)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "at least 8 characters" in out.stderr


def test_the_port_in_use_is_reported(tmp_path, password_file):
    port = free_port()
    server = start_server(tmp_path, str(tmp_path / "a.db"), port, password_file)
    try:
        out = subprocess.run(CLI + ["serve", "--db", str(tmp_path / "b.db"), "--port", str(port), "--no-advertise"],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in out.stderr
    finally:
        server.terminate()
        server.wait(10)

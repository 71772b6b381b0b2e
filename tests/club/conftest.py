"""Club fixtures: a club store on SQLite and on a real PostgreSQL server started here,
and a live club server (uvicorn in a thread) on a loopback port."""

from __future__ import annotations

import subprocess

import pytest

from device.club.db import Database
from device.club.store import ClubStore

from .helpers import PASSWORD, LiveServer, PostgresServer, pair_outbox


@pytest.fixture(scope="session")
def postgres():
    server = PostgresServer()
    if not server.initdb or not server.pg_ctl:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl; Debian package postgresql) are not installed")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed (pip install 'tarotmate[postgres]')")
    try:
        server.start()
    except subprocess.CalledProcessError as exc:
        server.stop()
        pytest.fail(f"PostgreSQL did not start: {exc.stderr.decode(errors='replace')[-500:]}")
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_target(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "club.db")
    return request.getfixturevalue("postgres").new_database()


@pytest.fixture
def store(db_target):
    db = Database(db_target)
    s = ClubStore(db)
    s.set_director_password(PASSWORD)
    yield s
    db.close()


@pytest.fixture
def live_club(store):
    from device.club.server import ClubApp

    club = ClubApp(store)
    server = LiveServer(club.build()).start()
    server.club = club
    yield server
    server.stop()


@pytest.fixture
def paired_table(tmp_path, live_club, store):
    """A table paired with ``live_club``: ``tmp_path/club-outbox.db`` knows the server, the token, table 1."""
    return pair_outbox(store, live_club.url, tmp_path / "club-outbox.db")

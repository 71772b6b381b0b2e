"""One thin connection layer over SQLite (WAL) and PostgreSQL (psycopg 3).

Queries are written once with ``?`` placeholders; :class:`Database` turns
them into ``%s`` for PostgreSQL. :meth:`Database.transaction` yields a
cursor-like object whose statements commit together or not at all.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from pathlib import Path
from typing import Any, Iterator, Sequence

from device.club import schema
from engine.errors import TarotmateError


class DatabaseError(TarotmateError):
    """The club database cannot be opened or used (message names it)."""


class _Tx:
    def __init__(self, cur: Any, dialect: str) -> None:
        self._cur = cur
        self.dialect = dialect
        self.memo: dict[str, Any] = {}  # what the store learns in this transaction, kept once it commits

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.dialect == "postgresql" else sql

    def execute(self, sql: str, params: Sequence[Any] = ()) -> "_Tx":
        self._cur.execute(self._sql(sql), tuple(params))
        return self

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        self._cur.execute(self._sql(sql), tuple(params))
        return [tuple(r) for r in self._cur.fetchall()]

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        self._cur.execute(self._sql(sql), tuple(params))
        row = self._cur.fetchone()
        return None if row is None else tuple(row)

    def value(self, sql: str, params: Sequence[Any] = (), default: Any = None) -> Any:
        row = self.one(sql, params)
        return default if row is None else row[0]


class Database:
    """A club database: ``sqlite`` (a file path) or ``postgresql`` (a URL)."""

    def __init__(self, target: str | Path, *, upto: int | None = None) -> None:
        self.target = str(target)
        self.dialect = "postgresql" if self.target.startswith(("postgresql://", "postgres://")) else "sqlite"
        self._lock = threading.RLock()
        self._local = threading.local()
        self._sqlite: sqlite3.Connection | None = None
        self._pg_connections: list[Any] = []
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()  # not the writer's: a reader never waits for a write
        if self.dialect == "sqlite":
            self._open_sqlite()
        else:
            try:
                import psycopg  # noqa: F401
            except ImportError:
                raise DatabaseError("PostgreSQL needs psycopg: pip install 'tarotmate[postgres]'") from None
            self._pg()  # fail now, with a clear message, if the server cannot be reached
        self.migrate(upto)

    # ------------------------------------------------------------ connections

    def _open_sqlite(self) -> None:
        path = Path(self.target)
        if path.is_dir():
            raise DatabaseError(f"{path}: is a directory, not a club database")
        if path.parent and not path.parent.exists():
            raise DatabaseError(f"{path.parent}: no such directory")
        try:
            con = self._connect_sqlite()
            con.execute("PRAGMA journal_mode=WAL")
        except sqlite3.DatabaseError as exc:
            raise DatabaseError(f"{path}: not a club database ({exc})") from None
        self._sqlite = con

    def _connect_sqlite(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.target, check_same_thread=False, isolation_level=None, timeout=30)
        con.execute("PRAGMA synchronous=FULL")  # a commit is on disk when it returns (WAL: one flush)
        con.execute("PRAGMA foreign_keys=ON")
        con.execute("PRAGMA busy_timeout=30000")
        return con

    def _pg(self) -> Any:
        con = getattr(self._local, "con", None)
        if con is not None and not con.closed:
            return con
        import psycopg

        try:
            con = psycopg.connect(self.target, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise DatabaseError(f"cannot connect to PostgreSQL: {first}") from None
        self._local.con = con
        with self._lock:
            self._pg_connections.append(con)
        return con

    @contextlib.contextmanager
    def transaction(self) -> Iterator[_Tx]:
        if self.dialect == "sqlite":
            assert self._sqlite is not None
            with self._lock:
                cur = self._sqlite.cursor()
                cur.execute("BEGIN IMMEDIATE")  # one connection, one writer: no upgrade deadlocks
                try:
                    yield _Tx(cur, "sqlite")
                except BaseException:
                    cur.execute("ROLLBACK")
                    raise
                else:
                    cur.execute("COMMIT")
        else:
            con = self._pg()
            import psycopg

            try:
                with con.transaction():
                    with con.cursor() as cur:
                        yield _Tx(cur, "postgresql")
            except psycopg.OperationalError as exc:
                self._local.con = None
                raise DatabaseError(f"PostgreSQL: {str(exc).strip().splitlines()[0]}") from None

    @contextlib.contextmanager
    def read(self) -> Iterator[_Tx]:
        """A read-only transaction. On SQLite it has its own connection (one per thread): in WAL
        mode readers see the last commit and never wait for the writer, nor the writer for them."""
        if self.dialect != "sqlite":
            with self.transaction() as tx:
                yield tx
            return
        con = getattr(self._local, "reader", None)
        if con is None or con not in self._readers:  # none yet in this thread, or closed
            con = self._connect_sqlite()
            con.execute("PRAGMA query_only=ON")
            self._local.reader = con
            with self._readers_lock:
                self._readers.append(con)
        cur = con.cursor()
        cur.execute("BEGIN")  # one snapshot for every statement of the read
        try:
            yield _Tx(cur, "sqlite")
        finally:
            cur.execute("COMMIT")

    def is_unique_violation(self, exc: BaseException) -> bool:
        if isinstance(exc, sqlite3.IntegrityError):
            return "UNIQUE" in str(exc)
        return type(exc).__name__ == "UniqueViolation"

    def close(self) -> None:
        if self._sqlite is not None:
            self._sqlite.close()
            self._sqlite = None
        with self._readers_lock:
            for reader in self._readers:
                with contextlib.suppress(Exception):
                    reader.close()
            self._readers.clear()
        with self._lock:
            for con in self._pg_connections:
                with contextlib.suppress(Exception):
                    con.close()
            self._pg_connections.clear()

    # ------------------------------------------------------------ schema

    def version(self) -> int:
        with self.transaction() as tx:
            if self.dialect == "sqlite":
                exists = tx.value("SELECT count(*) FROM sqlite_master WHERE name = 'schema_migrations'")
            else:
                exists = tx.value("SELECT count(*) FROM information_schema.tables "
                                  "WHERE table_name = 'schema_migrations' AND table_schema = current_schema()")
            if not exists:
                return 0
            return int(tx.value("SELECT coalesce(max(version), 0) FROM schema_migrations", default=0))

    def migrate(self, upto: int | None = None) -> list[int]:
        """Apply the migrations this database lacks (each in its own transaction)."""
        applied = []
        try:
            with self.transaction() as tx:
                if self.dialect == "postgresql":
                    tx.execute("SELECT pg_advisory_xact_lock(7361)")
                tx.execute("CREATE TABLE IF NOT EXISTS schema_migrations ("
                           "version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)")
        except sqlite3.DatabaseError as exc:
            raise DatabaseError(f"{self.target}: not a club database ({exc})") from None
        current = self.version()
        if current > schema.LATEST:
            raise DatabaseError(f"{self._label()}: made by a newer Tarotmate (schema {current}, "
                                f"this one knows up to {schema.LATEST})")
        for version, description, migration in schema.pending(current):
            if upto is not None and version > upto:
                break
            with self.transaction() as tx:
                if self.dialect == "postgresql":
                    tx.execute("SELECT pg_advisory_xact_lock(7361)")
                if tx.value("SELECT count(*) FROM schema_migrations WHERE version = ?", (version,)):
                    continue  # another server process applied it meanwhile
                for stmt in schema.statements(migration, self.dialect):
                    tx.execute(stmt)
                tx.execute("INSERT INTO schema_migrations (version, description, applied_at) "
                           "VALUES (?, ?, CURRENT_TIMESTAMP)", (version, description))
            applied.append(version)
        return applied

    def _label(self) -> str:
        if self.dialect == "sqlite":
            return self.target
        return "PostgreSQL database"

"""The deal log: every engine operation, appended to SQLite before it is shown.

A power cut or ``kill -9`` at any moment loses at most the operation being
written: the database runs in WAL mode with ``synchronous=FULL`` and each
operation is its own transaction. On start the app reads the operations of
the open deal back and replays them through the engine; undo deletes the
last operation. Finished deals (and Trivium games) keep their exported record
(``tarot-deal/1`` / ``trivium-game/1``) and the scores by seat.

Vocabulary: a *game* is a sitting of one kind (``french-tarot`` or
``trivium``) with fixed players; it holds *deals* (a French tarot deal, or
one Trivium game of a match); a deal holds *operations* (the engine's
operations as JSON objects, in order).

The file is identified by ``PRAGMA application_id`` (``TRMT``) and its schema
version by ``PRAGMA user_version``. A file that is not SQLite, belongs to
another application, comes from a newer Tarotmate or fails SQLite's
``quick_check`` is refused with :class:`StoreError` and left untouched.

One writer at a time: a writing process holds an exclusive lock (``flock``)
on ``NAME.lock`` beside the database, with its PID written in it; a second
writer is refused with that PID before it writes anything. Readers
(``tarotmate history``, ``tarotmate backup``) open the file read-only and
take no lock. Every row read is checked (UTF-8, JSON within the limits of
:mod:`engine.bounded_json`, the expected shapes); a writer checks them all
when it opens the log, so that it never writes into a damaged one.
"""

from __future__ import annotations

import errno
import fcntl
import json
import math
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from engine import bounded_json
from engine.errors import TarotmateError

APPLICATION_ID = 0x54524D54  # "TRMT"
SCHEMA_VERSION = 1
SQLITE_MAGIC = b"SQLite format 3\x00"

SCHEMA = """
CREATE TABLE games (
    id        INTEGER PRIMARY KEY,
    kind      TEXT NOT NULL,
    players   INTEGER NOT NULL,
    names     TEXT NOT NULL,
    options   TEXT NOT NULL,
    label     TEXT NOT NULL DEFAULT '',
    started   REAL NOT NULL,
    finished  REAL
);
CREATE TABLE deals (
    id        INTEGER PRIMARY KEY,
    game_id   INTEGER NOT NULL REFERENCES games(id),
    number    INTEGER NOT NULL,
    setup     TEXT NOT NULL,
    started   REAL NOT NULL,
    finished  REAL,
    record    TEXT,
    scores    TEXT,
    UNIQUE (game_id, number)
);
CREATE TABLE operations (
    deal_id   INTEGER NOT NULL REFERENCES deals(id),
    seq       INTEGER NOT NULL,
    op        TEXT NOT NULL,
    at        REAL NOT NULL,
    PRIMARY KEY (deal_id, seq)
);
"""


class StoreError(TarotmateError):
    """The deal log cannot be used (corrupt, foreign, newer, or misused)."""


class LogInUse(StoreError):
    """Another process holds the deal log's writer lock; ``pid`` is its PID (``None``: unknown)."""

    def __init__(self, message: str, pid: int | None):
        super().__init__(message)
        self.pid = pid


class DamagedRow(StoreError):
    """A row of the deal log that does not decode (bad UTF-8, bad JSON, wrong shape)."""


@dataclass(frozen=True)
class GameRow:
    id: int
    kind: str
    players: int
    names: list[str]
    options: dict[str, Any]
    label: str
    started: float
    finished: float | None


@dataclass(frozen=True)
class DealRow:
    id: int
    game_id: int
    number: int
    setup: dict[str, Any]
    started: float
    finished: float | None
    record: dict[str, Any] | None
    scores: list[float] | None


def _dumps(value: Any, what: str = "value") -> str:
    """JSON text for a column; a value the log could not read back is refused."""
    try:
        bounded_json.check(value, what)
    except bounded_json.JSONInputError as exc:
        raise StoreError(f"cannot log {exc}") from None
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def lock_path(path: Path) -> Path:
    """The writer lock beside the deal log (``tarotmate.db.lock``)."""
    return path.with_name(path.name + ".lock")


class WriterLock:
    """An exclusive ``flock`` on ``NAME.lock`` beside the deal log, holding the writer's PID.

    The kernel releases it when the process ends, however it ends
    (``kill -9`` included): there is no stale lock to clean up."""

    def __init__(self, path: Path):
        self.path = lock_path(path)
        self._fd: int | None = None

    def acquire(self, log_path: Path) -> "WriterLock":
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise StoreError(_location_problem(log_path, exc)) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                os.close(fd)
                raise StoreError(f"{log_path}: cannot lock the deal log ({exc.strerror})") from None
            pid = _read_pid(fd)
            os.close(fd)
            holder = f"PID {pid}" if pid is not None else "a process whose PID is not known yet"
            raise LogInUse(
                f"{log_path}: the deal log is in use by another Tarotmate process ({holder}); nothing was "
                "written. Stop that one first (sudo systemctl stop tarotmate, for the service) or use "
                "another deal log", pid,
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            try:
                os.ftruncate(self._fd, 0)  # the PID is no longer the holder's
            except OSError:
                pass
            os.close(self._fd)  # closing releases the flock
            self._fd = None


def check_not_in_use(path: str | Path) -> None:
    """Refuse now (:class:`LogInUse`, naming the holder's PID), creating nothing,
    when another process holds the writer lock of the deal log at ``path``."""
    path = Path(path)
    if lock_path(path).exists():
        WriterLock(path).acquire(path).release()


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _location_problem(path: Path, exc: OSError) -> str:
    """A clear message for a deal log that cannot be written where it is."""
    if exc.errno in (errno.EROFS,):
        return f"{path}: the deal log is on a read-only file system ({exc.filename or path.parent}); " \
               "nothing was written: set store.path to a writable place"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"{path}: no permission to write the deal log there ({exc.filename or path.parent} is " \
               "read-only or closed to this user); nothing was written: fix its owner or set store.path elsewhere"
    if exc.errno == errno.ENOENT:
        return f"{path}: the folder {path.parent} does not exist and cannot be created"
    return f"{path}: cannot write the deal log there ({exc.strerror or exc})"


def check_location(path: Path) -> None:
    """Refuse, before anything is written, a deal log whose folder or file is read-only."""
    folder = path.parent
    try:
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        path.exists()
    except OSError as exc:  # a folder on the way that this user cannot enter
        raise StoreError(_location_problem(path, exc)) from None
    if not os.access(folder, os.W_OK):
        error = errno.EROFS if _read_only_fs(folder) else errno.EACCES
        raise StoreError(_location_problem(path, OSError(error, os.strerror(error), str(folder))))
    if path.exists() and not os.access(path, os.W_OK):
        error = errno.EROFS if _read_only_fs(path) else errno.EACCES
        raise StoreError(_location_problem(path, OSError(error, os.strerror(error), str(path))))


def _read_only_fs(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def check_file(path: Path) -> bool:
    """Refuse a file that is not a Tarotmate deal log, without opening it in
    SQLite. Returns ``True`` when the file is new (missing or empty)."""
    if not path.exists():
        return True
    if not path.is_file():
        raise StoreError(f"{path}: not a file; refusing to use it as the deal log")
    try:
        with path.open("rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the deal log ({exc})") from None
    if not header:
        return True
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        raise StoreError(
            f"{path}: not a Tarotmate deal log (not an SQLite database); "
            "it was left untouched: move it away or set store.path to another file"
        )
    app_id = int.from_bytes(header[68:72], "big")
    if app_id != APPLICATION_ID:
        raise StoreError(
            f"{path}: an SQLite database of another application (application_id 0x{app_id:08X}), "
            "not a Tarotmate deal log; it was left untouched: set store.path to another file"
        )
    return False


class DealLog:
    """Append-only log of engine operations per deal, in one SQLite file."""

    def __init__(self, conn: sqlite3.Connection, path: Path, lock: WriterLock | None = None):
        self._conn = conn
        self.path = path
        self._lock = lock

    # ------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | Path, *, writer: bool = True) -> "DealLog":
        """Open (or create) the deal log at ``path``.

        A writer (the default) takes the writer lock, creates the file when it
        is missing and checks every row before returning; a reader
        (``writer=False``) opens an existing log read-only, without the lock."""
        path = Path(path)
        if not writer:
            return cls._open_reader(path)
        check_location(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(_location_problem(path, exc)) from None
        lock = WriterLock(path).acquire(path)
        try:
            if check_file(path):
                cls._create_file(path)
            try:
                conn = sqlite3.connect(str(path), isolation_level=None, timeout=10.0)
            except sqlite3.Error as exc:
                raise StoreError(f"{path}: cannot open the deal log ({exc})") from None
            conn.text_factory = _text_factory
            try:
                cls._verify(conn, path)
                log = cls(conn, path, lock)
                log.check_rows()  # before anything is written
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")
                conn.execute("PRAGMA foreign_keys=ON")
            except sqlite3.DatabaseError as exc:
                conn.close()
                raise StoreError(_database_problem(path, exc)) from None
            except StoreError:
                conn.close()
                raise
        except BaseException:
            lock.release()
            raise
        return log

    @classmethod
    def _open_reader(cls, path: Path) -> "DealLog":
        if not path.exists():
            raise StoreError(f"{path}: no deal log there yet (nothing has been played)")
        if check_file(path):
            raise StoreError(f"{path}: an empty file, not a deal log yet (nothing has been played)")
        try:
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                                   timeout=10.0)
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: cannot open the deal log ({exc})") from None
        conn.text_factory = _text_factory
        try:
            cls._verify(conn, path)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(_database_problem(path, exc)) from None
        except StoreError:
            conn.close()
            raise
        return cls(conn, path)

    @staticmethod
    def _create_file(path: Path) -> None:
        """A new, empty deal log, built beside ``path`` and renamed into place:
        a crash while creating it leaves no file or a complete one, never a
        half-made database that the next start would refuse."""
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.new")
        for leftover in (temporary, Path(f"{temporary}-journal"), Path(f"{temporary}-wal")):
            leftover.unlink(missing_ok=True)
        try:
            conn = sqlite3.connect(str(temporary), isolation_level=None)
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                conn.execute("COMMIT")
                conn.execute("PRAGMA journal_mode=WAL")
            finally:
                conn.close()
            with open(temporary, "rb") as fh:
                os.fsync(fh.fileno())
            if path.exists() and path.stat().st_size > 0:  # another process was quicker
                temporary.unlink()
                return
            os.replace(temporary, path)
            directory = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
        except (OSError, sqlite3.Error) as exc:
            temporary.unlink(missing_ok=True)
            raise StoreError(f"{path}: cannot create the deal log ({exc})") from None

    @staticmethod
    def _verify(conn: sqlite3.Connection, path: Path) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{path}: written by a newer Tarotmate (schema {version}, this one reads "
                f"{SCHEMA_VERSION}); it was left untouched"
            )
        if version < 1:
            raise StoreError(f"{path}: a Tarotmate deal log without a schema; it was left untouched")
        problems = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
        if problems != ["ok"]:
            raise StoreError(
                f"{path}: the deal log is damaged ({'; '.join(problems[:3])}); it was left untouched"
            )
        missing = {"games", "deals", "operations"} - set(_table_names(conn))
        if missing:
            raise StoreError(
                f"{path}: the deal log lacks its tables ({', '.join(sorted(missing))}); it was left untouched"
            )

    def close(self) -> None:
        try:
            self._conn.close()
        finally:
            if self._lock is not None:
                self._lock.release()
                self._lock = None

    @property
    def writable(self) -> bool:
        return self._lock is not None

    @classmethod
    def delete(cls, path: str | Path) -> None:
        """Remove the deal log (and its WAL) under the writer lock: refused
        while another process writes it."""
        path = Path(path)
        if not path.exists():
            return
        lock = WriterLock(path).acquire(path)
        try:
            for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                name.unlink(missing_ok=True)
        finally:
            lock.release()

    # ------------------------------------------------------------ checking

    def check_rows(self) -> int:
        """Decode every row (games, deals, operations); raises :class:`DamagedRow`
        naming the first bad one. Returns the number of rows checked."""
        checked = 0
        games: dict[int, GameRow] = {}
        for row in self._select("SELECT * FROM games ORDER BY id"):
            game = self._game_row(row)
            games[game.id] = game
            checked += 1
        numbers: dict[int, tuple[int, int]] = {}
        for row in self._select("SELECT * FROM deals ORDER BY game_id, number"):
            deal = self._deal_row(row)
            game = games.get(deal.game_id)
            if game is None:
                raise self._damaged(f"deal {deal.number} of game {deal.game_id}", "its game is missing")
            self._check_scores(game, deal)
            numbers[deal.id] = (deal.game_id, deal.number)
            checked += 1
        for deal_id, seq, text, at in self._select("SELECT deal_id, seq, op, at FROM operations ORDER BY deal_id, seq"):
            where = numbers.get(deal_id)
            if where is None:
                raise self._damaged(f"operation {seq} of deal id {deal_id}", "its deal is missing")
            self._decode_op(text, deal_id, seq, where)
            checked += 1
        return checked

    def _select(self, sql: str, params: tuple = ()) -> list[tuple]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreError(_database_problem(self.path, exc)) from None

    def _damaged(self, where: str, problem: str) -> DamagedRow:
        return DamagedRow(
            f"{self.path}: {where} is damaged in the deal log ({problem}); the log was left untouched: "
            "keep a copy (tarotmate backup), then set store.path to a new file to go on playing"
        )

    def _where_deal(self, deal_id: int) -> tuple[int, int] | None:
        row = self._conn.execute("SELECT game_id, number FROM deals WHERE id = ?", (deal_id,)).fetchone()
        if row is None or not _is_int(row[0]) or not _is_int(row[1]):
            return None
        return row[0], row[1]

    def _decode_op(self, text: Any, deal_id: int, seq: Any, where: tuple[int, int] | None = None) -> dict[str, Any]:
        where = where or self._where_deal(deal_id)
        place = (f"game {where[0]}, deal {where[1]}, operation {seq}" if where
                 else f"operation {seq} of deal id {deal_id}")
        try:
            value = _json_column(text, "op")
        except ValueError as exc:
            raise self._damaged(place, str(exc)) from None
        if not isinstance(value, dict) or not isinstance(value.get("op"), str):
            raise self._damaged(place, f"op: expected an operation object, got {_short(value)}")
        return value

    def _game_row(self, row: tuple) -> GameRow:
        try:
            return _game_row(row)
        except ValueError as exc:
            raise self._damaged(f"game {_short(row[0])}", str(exc)) from None

    def _deal_row(self, row: tuple) -> DealRow:
        try:
            return _deal_row(row)
        except ValueError as exc:
            raise self._damaged(f"game {_short(row[1])}, deal {_short(row[2])}", str(exc)) from None

    def __enter__(self) -> "DealLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, sql: str, params: tuple = ()) -> sqlite3.Cursor:
        """One statement in its own durable transaction."""
        try:
            with self._transaction():
                return self._conn.execute(sql, params)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot write the deal log ({exc})") from None

    def _transaction(self):
        conn = self._conn

        class _Tx:
            def __enter__(self_inner):
                conn.execute("BEGIN IMMEDIATE")

            def __exit__(self_inner, kind, value, tb):
                conn.execute("COMMIT" if kind is None else "ROLLBACK")
                return False

        return _Tx()

    # ------------------------------------------------------------ games

    def start_game(
        self,
        kind: str,
        names: list[str],
        options: dict[str, Any] | None = None,
        label: str = "",
    ) -> GameRow:
        cur = self._write(
            "INSERT INTO games (kind, players, names, options, label, started) VALUES (?, ?, ?, ?, ?, ?)",
            (kind, len(names), _dumps(list(names), "names"), _dumps(options or {}, "options"), label, time.time()),
        )
        return self.game(cur.lastrowid)

    def game(self, game_id: int) -> GameRow:
        rows = self._select("SELECT * FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise StoreError(f"no game {game_id} in the deal log")
        return self._game_row(rows[0])

    def games(self) -> list[GameRow]:
        return [self._game_row(r) for r in self._select("SELECT * FROM games ORDER BY id")]

    def open_game(self, label: str | None = None) -> GameRow | None:
        """The latest unfinished game (with that label, when given)."""
        return self._latest_game(label, unfinished=True)

    def latest_game(self, label: str | None = None) -> GameRow | None:
        """The latest game, finished or not (with that label, when given)."""
        return self._latest_game(label, unfinished=False)

    def _latest_game(self, label: str | None, *, unfinished: bool) -> GameRow | None:
        conditions = ["finished IS NULL"] if unfinished else []
        params: tuple = ()
        if label is not None:
            conditions.append("label = ?")
            params = (label,)
        where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
        rows = self._select(f"SELECT * FROM games{where} ORDER BY id DESC LIMIT 1", params)
        return self._game_row(rows[0]) if rows else None

    def finish_game(self, game_id: int) -> None:
        self._write("UPDATE games SET finished = ? WHERE id = ? AND finished IS NULL", (time.time(), game_id))

    # ------------------------------------------------------------ deals

    def start_deal(self, game_id: int, setup: dict[str, Any] | None = None) -> DealRow:
        """A new deal of the game, numbered from 1; ``setup`` holds what the
        engine needs to start it (dealer, seed...)."""
        game = self.game(game_id)
        if game.finished is not None:
            raise StoreError(f"game {game_id} is finished; start a new game")
        if self.open_deal(game_id) is not None:
            raise StoreError(f"game {game_id} still has an unfinished deal")
        with self._transaction():
            number = self._conn.execute(
                "SELECT COALESCE(MAX(number), 0) + 1 FROM deals WHERE game_id = ?", (game_id,)
            ).fetchone()[0]
            cur = self._conn.execute(
                "INSERT INTO deals (game_id, number, setup, started) VALUES (?, ?, ?, ?)",
                (game_id, number, _dumps(setup or {}, "setup"), time.time()),
            )
        return self.deal(cur.lastrowid)

    def deal(self, deal_id: int) -> DealRow:
        rows = self._select("SELECT * FROM deals WHERE id = ?", (deal_id,))
        if not rows:
            raise StoreError(f"no deal {deal_id} in the deal log")
        return self._deal_row(rows[0])

    def deals(self, game_id: int) -> list[DealRow]:
        rows = self._select("SELECT * FROM deals WHERE game_id = ? ORDER BY number", (game_id,))
        return [self._deal_row(r) for r in rows]

    def open_deal(self, game_id: int) -> DealRow | None:
        rows = self._select(
            "SELECT * FROM deals WHERE game_id = ? AND finished IS NULL ORDER BY number DESC LIMIT 1", (game_id,)
        )
        return self._deal_row(rows[0]) if rows else None

    def finish_deal(self, deal_id: int, record: dict[str, Any] | None, scores: list[float] | None) -> None:
        """Close a deal with its exported record and the scores by seat
        (``None`` for a deal that was abandoned or redealt)."""
        cur = self._write(
            "UPDATE deals SET finished = ?, record = ?, scores = ? WHERE id = ? AND finished IS NULL",
            (
                time.time(),
                None if record is None else _dumps(record, "record"),
                None if scores is None else _dumps(list(scores), "scores"),
                deal_id,
            ),
        )
        if cur.rowcount != 1:
            raise StoreError(f"deal {deal_id} is unknown or already finished")

    # ------------------------------------------------------------ operations

    def append(self, deal_id: int, op: dict[str, Any]) -> int:
        """Append one operation (its JSON form) to an open deal; returns its
        sequence number (from 1). Durable when this returns."""
        text = _dumps(op, "operation")
        try:
            with self._transaction():
                self._check_open(deal_id, "it takes no more operations")
                seq = self._conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) + 1 FROM operations WHERE deal_id = ?", (deal_id,)
                ).fetchone()[0]
                self._conn.execute(
                    "INSERT INTO operations (deal_id, seq, op, at) VALUES (?, ?, ?, ?)",
                    (deal_id, seq, text, time.time()),
                )
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot write the deal log ({exc})") from None
        return seq

    def replace(self, deal_id: int, seq: int, op: dict[str, Any]) -> None:
        """Put ``op`` in place of the open deal's operation ``seq`` (from 1), in one
        transaction: a card fixed where it lies. Durable when this returns."""
        text = _dumps(op, "operation")
        try:
            with self._transaction():
                self._check_open(deal_id, "its operations cannot change")
                cur = self._conn.execute("UPDATE operations SET op = ?, at = ? WHERE deal_id = ? AND seq = ?",
                                         (text, time.time(), deal_id, seq))
                if cur.rowcount != 1:
                    raise StoreError(f"deal {deal_id} has no operation {seq}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot write the deal log ({exc})") from None

    def _check_open(self, deal_id: int, finished_why: str) -> None:
        """Inside a transaction: StoreError unless ``deal_id`` is a deal of the log still open."""
        row = self._conn.execute("SELECT finished FROM deals WHERE id = ?", (deal_id,)).fetchone()
        if row is None:
            raise StoreError(f"no deal {deal_id} in the deal log")
        if row[0] is not None:
            raise StoreError(f"deal {deal_id} is finished; {finished_why}")

    def operations(self, deal_id: int) -> list[dict[str, Any]]:
        """The deal's operations in the order they were appended."""
        rows = self._select("SELECT seq, op FROM operations WHERE deal_id = ? ORDER BY seq", (deal_id,))
        return [self._decode_op(text, deal_id, seq) for seq, text in rows]

    def count(self, deal_id: int) -> int:
        return self._conn.execute("SELECT COUNT(*) FROM operations WHERE deal_id = ?", (deal_id,)).fetchone()[0]

    def pop(self, deal_id: int) -> dict[str, Any] | None:
        """Undo: delete the deal's last operation and return it (``None`` when
        the deal has none)."""
        with self._transaction():
            row = self._conn.execute(
                "SELECT d.finished, o.seq, o.op FROM deals d LEFT JOIN operations o ON o.deal_id = d.id "
                "WHERE d.id = ? ORDER BY o.seq DESC LIMIT 1",
                (deal_id,),
            ).fetchone()
            if row is None:
                raise StoreError(f"no deal {deal_id} in the deal log")
            if row[0] is not None:
                raise StoreError(f"deal {deal_id} is finished; its operations cannot be undone")
            if row[1] is None:
                return None
            self._conn.execute("DELETE FROM operations WHERE deal_id = ? AND seq = ?", (deal_id, row[1]))
        return self._decode_op(row[2], deal_id, row[1])

    # ------------------------------------------------------------ summaries

    def totals(self, game_id: int) -> list[float]:
        """Running totals by seat over the game's finished deals."""
        game = self.game(game_id)
        totals = [0.0] * game.players
        for deal in self.deals(game_id):
            self._check_scores(game, deal)
            for seat, score in enumerate(deal.scores or []):
                totals[seat] += score
        return totals

    def _check_scores(self, game: GameRow, deal: DealRow) -> None:
        if deal.scores is not None and len(deal.scores) != game.players:
            raise self._damaged(f"game {game.id}, deal {deal.number}",
                                f"{len(deal.scores)} scores for {game.players} players")

    def iter_records(self, game_id: int) -> Iterator[dict[str, Any]]:
        for deal in self.deals(game_id):
            if deal.record is not None:
                yield deal.record


@dataclass(frozen=True)
class BackupResult:
    """What :func:`backup` copied, and what the copy's own checks found."""

    path: Path
    games: int
    deals: int
    operations: int
    size: int
    problem: str | None  # None: the copy passes quick_check and every row decodes


def backup(source: str | Path, target: str | Path, *, overwrite: bool = False) -> BackupResult:
    """A consistent copy of the deal log ``source`` at ``target``, taken while
    it may be in use (``tarotmate run`` holds it): SQLite's online backup API
    copies the database as one read transaction sees it, WAL included.

    The copy is written beside ``target``, checked, synced and renamed into
    place: ``target`` is either the old file or the complete copy. The copy is
    a single file (rollback journal, no ``-wal``). A damaged log is still
    copied; ``problem`` then says what the copy's checks found."""
    source, target = Path(source), Path(target)
    if not source.exists():
        raise StoreError(f"{source}: no deal log there (nothing to back up)")
    if check_file(source):
        raise StoreError(f"{source}: an empty file, not a deal log yet (nothing to back up)")
    if target.exists() and target.resolve() == source.resolve():
        raise StoreError(f"{target}: that is the deal log itself; give another file")
    if target.exists() and not overwrite:
        raise StoreError(f"{target}: already exists; give a new name or --force to replace it")
    if target.is_dir():
        raise StoreError(f"{target}: is a folder; give a file name")
    check_location(target)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.backup")
    for leftover in (temporary, Path(f"{temporary}-journal"), Path(f"{temporary}-wal")):
        leftover.unlink(missing_ok=True)
    try:
        src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True, timeout=30.0)
    except sqlite3.Error as exc:
        raise StoreError(f"{source}: cannot open the deal log ({exc})") from None
    try:
        dst = sqlite3.connect(str(temporary))
        try:
            # all pages in one step: one read transaction, so one consistent state even while
            # the game writes (in WAL mode the reader blocks no writer)
            src.backup(dst, pages=-1)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            dst.commit()
        finally:
            dst.close()
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, target)
        folder = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    except sqlite3.Error as exc:
        temporary.unlink(missing_ok=True)
        raise StoreError(f"{source}: cannot back up the deal log ({_database_problem(source, exc)})") from None
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise StoreError(_location_problem(target, exc)) from None
    finally:
        src.close()
    counts = [0, 0, 0]
    problem = None
    try:
        with DealLog.open(target, writer=False) as copy:
            for i, table in enumerate(("games", "deals", "operations")):
                counts[i] = copy._conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            copy.check_rows()
    except StoreError as exc:
        problem = str(exc)
    return BackupResult(target, *counts, size=target.stat().st_size, problem=problem)


def _table_names(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]


def _text_factory(data: bytes) -> str:
    """TEXT columns as str even when they are not UTF-8 (kept as surrogate
    escapes, which the row checks below report as damage)."""
    return data.decode("utf-8", "surrogateescape")


def _database_problem(path: Path, exc: sqlite3.DatabaseError) -> str:
    text = str(exc)
    if "readonly" in text or "read-only" in text:
        return f"{path}: the deal log is read-only here ({text}); nothing was written"
    if "unable to open" in text:
        return f"{path}: cannot open the deal log ({text}): is its folder writable?"
    return f"{path}: the deal log is damaged ({text}); it was left untouched"


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) and math.isfinite(value)


def _utf8(value: Any, column: str) -> str:
    if isinstance(value, bytes):
        raise ValueError(f"{column}: bytes where text belongs")
    if not isinstance(value, str):
        raise ValueError(f"{column}: expected text, got {_short(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{column}: not UTF-8 text") from None
    return value


def _json_column(value: Any, column: str) -> Any:
    try:
        return bounded_json.loads(_utf8(value, column), column)
    except bounded_json.JSONInputError as exc:
        raise ValueError(str(exc)) from None


def _typed(value: Any, column: str, check: Callable[[Any], bool], expected: str) -> Any:
    if not check(value):
        raise ValueError(f"{column}: expected {expected}, got {_short(value)}")
    return value


def _game_row(row: tuple) -> GameRow:
    """A ``games`` row, checked; ``ValueError`` names the faulty column."""
    players = _typed(row[2], "players", lambda v: _is_int(v) and 1 <= v <= 16, "a number of players")
    names = _typed(_json_column(row[3], "names"), "names",
                   lambda v: isinstance(v, list) and len(v) == players and all(isinstance(n, str) for n in v),
                   f"{players} names")
    return GameRow(
        id=_typed(row[0], "id", _is_int, "an integer"),
        kind=_typed(_utf8(row[1], "kind"), "kind", bool, "a game kind"),
        players=players,
        names=names,
        options=_typed(_json_column(row[4], "options"), "options", lambda v: isinstance(v, dict), "an object"),
        label=_utf8(row[5], "label"),
        started=_typed(row[6], "started", _is_number, "a time"),
        finished=_typed(row[7], "finished", lambda v: v is None or _is_number(v), "a time or null"),
    )


def _deal_row(row: tuple) -> DealRow:
    """A ``deals`` row, checked; ``ValueError`` names the faulty column."""
    record = None if row[6] is None else _json_column(row[6], "record")
    scores = None if row[7] is None else _json_column(row[7], "scores")
    return DealRow(
        id=_typed(row[0], "id", _is_int, "an integer"),
        game_id=_typed(row[1], "game_id", _is_int, "an integer"),
        number=_typed(row[2], "number", lambda v: _is_int(v) and v >= 1, "a deal number"),
        setup=_typed(_json_column(row[3], "setup"), "setup", lambda v: isinstance(v, dict), "an object"),
        started=_typed(row[4], "started", _is_number, "a time"),
        finished=_typed(row[5], "finished", lambda v: v is None or _is_number(v), "a time or null"),
        record=_typed(record, "record", lambda v: v is None or isinstance(v, dict), "an object or null"),
        scores=_typed(scores, "scores", lambda v: v is None or (isinstance(v, list) and all(map(_is_number, v))),
                      "a list of numbers or null"),
    )

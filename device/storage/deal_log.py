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
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

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


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


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

    def __init__(self, conn: sqlite3.Connection, path: Path):
        self._conn = conn
        self.path = path

    # ------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | Path) -> "DealLog":
        """Open (or create) the deal log at ``path``."""
        path = Path(path)
        if check_file(path):
            cls._create_file(path)
        try:
            conn = sqlite3.connect(str(path), isolation_level=None, timeout=10.0)
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: cannot open the deal log ({exc})") from None
        try:
            cls._verify(conn, path)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(f"{path}: the deal log is damaged ({exc}); it was left untouched") from None
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
        self._conn.close()

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
            (kind, len(names), _dumps(list(names)), _dumps(options or {}), label, time.time()),
        )
        return self.game(cur.lastrowid)

    def game(self, game_id: int) -> GameRow:
        row = self._conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"no game {game_id} in the deal log")
        return _game_row(row)

    def games(self) -> list[GameRow]:
        rows = self._conn.execute("SELECT * FROM games ORDER BY id").fetchall()
        return [_game_row(r) for r in rows]

    def open_game(self, label: str | None = None) -> GameRow | None:
        """The latest unfinished game (with that label, when given)."""
        sql = "SELECT * FROM games WHERE finished IS NULL"
        params: tuple = ()
        if label is not None:
            sql += " AND label = ?"
            params = (label,)
        row = self._conn.execute(sql + " ORDER BY id DESC LIMIT 1", params).fetchone()
        return _game_row(row) if row else None

    def latest_game(self, label: str | None = None) -> GameRow | None:
        sql = "SELECT * FROM games"
        params: tuple = ()
        if label is not None:
            sql += " WHERE label = ?"
            params = (label,)
        row = self._conn.execute(sql + " ORDER BY id DESC LIMIT 1", params).fetchone()
        return _game_row(row) if row else None

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
                (game_id, number, _dumps(setup or {}), time.time()),
            )
        return self.deal(cur.lastrowid)

    def deal(self, deal_id: int) -> DealRow:
        row = self._conn.execute("SELECT * FROM deals WHERE id = ?", (deal_id,)).fetchone()
        if row is None:
            raise StoreError(f"no deal {deal_id} in the deal log")
        return _deal_row(row)

    def deals(self, game_id: int) -> list[DealRow]:
        rows = self._conn.execute("SELECT * FROM deals WHERE game_id = ? ORDER BY number", (game_id,)).fetchall()
        return [_deal_row(r) for r in rows]

    def open_deal(self, game_id: int) -> DealRow | None:
        row = self._conn.execute(
            "SELECT * FROM deals WHERE game_id = ? AND finished IS NULL ORDER BY number DESC LIMIT 1",
            (game_id,),
        ).fetchone()
        return _deal_row(row) if row else None

    def finish_deal(self, deal_id: int, record: dict[str, Any] | None, scores: list[float] | None) -> None:
        """Close a deal with its exported record and the scores by seat
        (``None`` for a deal that was abandoned or redealt)."""
        cur = self._write(
            "UPDATE deals SET finished = ?, record = ?, scores = ? WHERE id = ? AND finished IS NULL",
            (
                time.time(),
                None if record is None else _dumps(record),
                None if scores is None else _dumps(list(scores)),
                deal_id,
            ),
        )
        if cur.rowcount != 1:
            raise StoreError(f"deal {deal_id} is unknown or already finished")

    # ------------------------------------------------------------ operations

    def append(self, deal_id: int, op: dict[str, Any]) -> int:
        """Append one operation (its JSON form) to an open deal; returns its
        sequence number (from 1). Durable when this returns."""
        text = _dumps(op)
        try:
            with self._transaction():
                row = self._conn.execute("SELECT finished FROM deals WHERE id = ?", (deal_id,)).fetchone()
                if row is None:
                    raise StoreError(f"no deal {deal_id} in the deal log")
                if row[0] is not None:
                    raise StoreError(f"deal {deal_id} is finished; it takes no more operations")
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

    def operations(self, deal_id: int) -> list[dict[str, Any]]:
        """The deal's operations in the order they were appended."""
        rows = self._conn.execute(
            "SELECT op FROM operations WHERE deal_id = ? ORDER BY seq", (deal_id,)
        ).fetchall()
        return [json.loads(r[0]) for r in rows]

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
        return json.loads(row[2])

    # ------------------------------------------------------------ summaries

    def totals(self, game_id: int) -> list[float]:
        """Running totals by seat over the game's finished deals."""
        game = self.game(game_id)
        totals = [0.0] * game.players
        for deal in self.deals(game_id):
            for seat, score in enumerate(deal.scores or []):
                totals[seat] += score
        return totals

    def iter_records(self, game_id: int) -> Iterator[dict[str, Any]]:
        for deal in self.deals(game_id):
            if deal.record is not None:
                yield deal.record


def _table_names(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]


def _game_row(row: tuple) -> GameRow:
    return GameRow(
        id=row[0],
        kind=row[1],
        players=row[2],
        names=json.loads(row[3]),
        options=json.loads(row[4]),
        label=row[5],
        started=row[6],
        finished=row[7],
    )


def _deal_row(row: tuple) -> DealRow:
    return DealRow(
        id=row[0],
        game_id=row[1],
        number=row[2],
        setup=json.loads(row[3]),
        started=row[4],
        finished=row[5],
        record=None if row[6] is None else json.loads(row[6]),
        scores=None if row[7] is None else json.loads(row[7]),
    )

"""The club database's schema: one list of versioned migrations for SQLite and PostgreSQL.

Each migration is a list of statements written once; ``{pk}`` becomes the
dialect's auto-numbered primary key, ``{blob}`` its binary type. The
database's version is the highest migration applied (table
``schema_migrations``); :func:`pending` lists what an older database lacks.
A database newer than this program is refused, never altered.
"""

from __future__ import annotations

PK = {"sqlite": "INTEGER PRIMARY KEY AUTOINCREMENT", "postgresql": "BIGSERIAL PRIMARY KEY"}

MIGRATIONS: list[tuple[int, str, list[str]]] = [
    (1, "club, tables, players, sessions, deals and corrections", [
        """CREATE TABLE settings (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL)""",
        """CREATE TABLE club_tables (
            id         {pk},
            number     INTEGER NOT NULL UNIQUE,
            name       TEXT NOT NULL,
            token_hash TEXT NOT NULL UNIQUE,
            paired_at  TEXT NOT NULL,
            revoked    INTEGER NOT NULL DEFAULT 0)""",
        """CREATE TABLE pairings (
            code       TEXT PRIMARY KEY,
            request    TEXT NOT NULL UNIQUE,
            name       TEXT NOT NULL,
            created_at TEXT NOT NULL,
            table_id   INTEGER REFERENCES club_tables(id),
            token      TEXT)""",
        """CREATE TABLE players (
            id         {pk},
            name       TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            active     INTEGER NOT NULL DEFAULT 1)""",
        """CREATE TABLE sessions (
            id            {pk},
            name          TEXT NOT NULL,
            started_at    TEXT NOT NULL,
            closed_at     TEXT,
            current_round INTEGER NOT NULL DEFAULT 1)""",
        """CREATE TABLE deals (
            id          {pk},
            uid         TEXT NOT NULL,
            table_id    INTEGER NOT NULL REFERENCES club_tables(id),
            session_id  INTEGER NOT NULL REFERENCES sessions(id),
            round       INTEGER NOT NULL,
            game        TEXT NOT NULL,
            record      TEXT NOT NULL,
            original    TEXT NOT NULL,
            contract    TEXT,
            won         INTEGER,
            received_at TEXT NOT NULL,
            voided      INTEGER NOT NULL DEFAULT 0,
            UNIQUE (table_id, uid))""",
        """CREATE TABLE deal_players (
            deal_id   INTEGER NOT NULL REFERENCES deals(id),
            seat      INTEGER NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id),
            score     INTEGER NOT NULL,
            taker     INTEGER NOT NULL,
            partner   INTEGER NOT NULL,
            PRIMARY KEY (deal_id, seat))""",
        """CREATE TABLE corrections (
            id         {pk},
            deal_id    INTEGER NOT NULL REFERENCES deals(id),
            created_at TEXT NOT NULL,
            kind       TEXT NOT NULL,
            reason     TEXT NOT NULL,
            before     TEXT,
            after      TEXT)""",
        "CREATE INDEX deals_session ON deals (session_id, id)",
        "CREATE INDEX deal_players_player ON deal_players (player_id)",
    ]),
    (2, "director logins (each with its CSRF token)", [
        """CREATE TABLE director_logins (
            id_hash    TEXT PRIMARY KEY,
            csrf       TEXT NOT NULL,
            created_at TEXT NOT NULL,
            expires    REAL NOT NULL)""",
    ]),
    (3, "a Trivium game's own fields: its combination and its winner (no longer French tarot's contract "
        "and taker)", [
        "ALTER TABLE deals ADD COLUMN combination TEXT",
        "ALTER TABLE deal_players ADD COLUMN winner INTEGER NOT NULL DEFAULT 0",
        "UPDATE deal_players SET winner = taker, taker = 0 "
        "WHERE deal_id IN (SELECT id FROM deals WHERE game = 'trivium')",
        "UPDATE deals SET combination = contract, contract = NULL WHERE game = 'trivium'",
    ]),
]

LATEST = MIGRATIONS[-1][0]


def statements(migration: list[str], dialect: str) -> list[str]:
    return [s.format(pk=PK[dialect]) for s in migration]


def pending(version: int) -> list[tuple[int, str, list[str]]]:
    return [m for m in MIGRATIONS if m[0] > version]

"""The club's data: tables and their pairing, players, evenings, deals and corrections.

Every method is one transaction. A deal is stored once per (table, id): a
resend of the same publication answers ``duplicate`` and changes nothing; the
same id with another record is refused. Standings and statistics are sums over
``deal_players`` (the current revision of each deal, voided deals left out).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterator

from device.club.auth import hash_password, verify_password
from device.club.db import Database
from device.club.records import CheckedDeal, Refused, canonical_json, check_record

PAIRING_ALPHABET = "ACDEFHJKLMNPQRTUVWXY34679"  # no 0/O, 1/I, 2/Z, 5/S, 8/B lookalikes
PAIRING_LENGTH = 5
PAIRING_TTL_S = 15 * 60
LOGIN_TTL_S = 12 * 3600
TOKEN_CACHE_S = 10.0


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class ClubTable:
    id: int
    number: int
    name: str


@dataclass(frozen=True)
class Stored:
    """The answer to a publication: ``status`` is ``stored`` or ``duplicate``."""

    status: str
    deal: int
    session: int
    round: int


class ClubStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        # Caches of what every publication looks up; cleared by what changes them. Several
        # server processes may share a PostgreSQL database: a revoked token is only cached
        # as valid by this process for TOKEN_CACHE_S.
        self._tokens: dict[str, tuple[float, ClubTable]] = {}
        self._player_ids: dict[str, int] = {}

    # ------------------------------------------------------------ settings

    def setting(self, key: str) -> str | None:
        with self.db.read() as tx:
            return tx.value("SELECT value FROM settings WHERE key = ?", (key,))

    def set_setting(self, key: str, value: str) -> None:
        with self.db.transaction() as tx:
            if tx.value("SELECT count(*) FROM settings WHERE key = ?", (key,)):
                tx.execute("UPDATE settings SET value = ? WHERE key = ?", (value, key))
            else:
                tx.execute("INSERT INTO settings (key, value) VALUES (?, ?)", (key, value))

    def has_director_password(self) -> bool:
        return self.setting("director_password") is not None

    def set_director_password(self, password: str) -> None:
        self.set_setting("director_password", hash_password(password))

    # ------------------------------------------------------------ director logins

    def login(self, password: str) -> tuple[str, str] | None:
        """(login id, CSRF token) for the right password, else None."""
        stored = self.setting("director_password")
        if stored is None or not verify_password(password, stored):
            return None
        login, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM director_logins WHERE expires < ?", (time.time(),))
            tx.execute("INSERT INTO director_logins (id_hash, csrf, created_at, expires) VALUES (?, ?, ?, ?)",
                       (token_hash(login), csrf, now_iso(), time.time() + LOGIN_TTL_S))
        return login, csrf

    def login_csrf(self, login: str | None) -> str | None:
        """The CSRF token of a live director login, else None."""
        if not login:
            return None
        with self.db.read() as tx:
            return tx.value("SELECT csrf FROM director_logins WHERE id_hash = ? AND expires >= ?",
                            (token_hash(login), time.time()))

    def logout(self, login: str) -> None:
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM director_logins WHERE id_hash = ?", (token_hash(login),))

    # ------------------------------------------------------------ pairing

    def start_pairing(self, name: str) -> tuple[str, str]:
        """A table asks to pair: (code to show on its OLED, secret request id to poll)."""
        name = " ".join(str(name).split())[:40] or "Table"
        request = secrets.token_urlsafe(24)
        with self.db.transaction() as tx:
            cutoff = datetime.fromtimestamp(time.time() - PAIRING_TTL_S, timezone.utc).isoformat(timespec="seconds")
            tx.execute("DELETE FROM pairings WHERE created_at < ? AND table_id IS NULL", (cutoff,))
            while True:
                code = "".join(secrets.choice(PAIRING_ALPHABET) for _ in range(PAIRING_LENGTH))
                if not tx.value("SELECT count(*) FROM pairings WHERE code = ?", (code,)):
                    break
            tx.execute("INSERT INTO pairings (code, request, name, created_at) VALUES (?, ?, ?, ?)",
                       (code, request, name, now_iso()))
        return code, request

    def pending_pairings(self) -> list[dict[str, Any]]:
        with self.db.read() as tx:
            rows = tx.all("SELECT name, created_at FROM pairings WHERE table_id IS NULL ORDER BY created_at")
        return [{"name": n, "since": c} for n, c in rows]

    def confirm_pairing(self, code: str, number: int | None = None) -> ClubTable:
        """The director typed ``code``: the table gets a number and a token."""
        code = "".join(str(code).split()).upper()
        token = secrets.token_urlsafe(32)
        wanted = number
        for _attempt in range(5):
            number = wanted
            try:
                with self.db.transaction() as tx:
                    if self.db.dialect == "postgresql":
                        tx.execute("SELECT pg_advisory_xact_lock(7362)")
                    row = tx.one("SELECT name, table_id FROM pairings WHERE code = ?", (code,))
                    if row is None:
                        raise Refused(f"no table is waiting with code {code!r} (codes last 15 minutes)", "code")
                    if row[1] is not None:
                        raise Refused(f"code {code!r} was already used", "code")
                    if number is None:
                        number = int(tx.value("SELECT coalesce(max(number), 0) FROM club_tables", default=0)) + 1
                    elif tx.value("SELECT count(*) FROM club_tables WHERE number = ? AND revoked = 0", (number,)):
                        raise Refused(f"table {number} is already paired", "number")
                    else:
                        tx.execute("DELETE FROM club_tables WHERE number = ? AND revoked = 1 AND NOT EXISTS "
                                   "(SELECT 1 FROM deals WHERE deals.table_id = club_tables.id)", (number,))
                        if tx.value("SELECT count(*) FROM club_tables WHERE number = ?", (number,)):
                            raise Refused(f"table number {number} is taken by a table with deals", "number")
                    name = row[0] if row[0] != "Table" else f"Table {number}"
                    tx.execute("INSERT INTO club_tables (number, name, token_hash, paired_at) VALUES (?, ?, ?, ?)",
                               (number, name, token_hash(token), now_iso()))
                    table_id = int(tx.value("SELECT id FROM club_tables WHERE number = ?", (number,)))
                    tx.execute("UPDATE pairings SET table_id = ?, token = ? WHERE code = ?", (table_id, token, code))
                    return ClubTable(table_id, number, name)
            except Exception as exc:  # two codes confirmed at once took the same number: try again
                if not self.db.is_unique_violation(exc):
                    raise
        raise Refused("the tables' numbers are busy; try again", "code")

    def collect_pairing(self, request: str) -> dict[str, Any] | None:
        """What a waiting table learns when it polls: None (unknown request),
        ``{"status": "pending"}``, or the table's number and token (handed once)."""
        with self.db.transaction() as tx:
            row = tx.one("SELECT p.code, p.token, t.number, t.name FROM pairings p "
                         "LEFT JOIN club_tables t ON t.id = p.table_id WHERE p.request = ?", (request,))
            if row is None:
                return None
            code, token, number, name = row
            if token is None:
                return {"status": "pending"}
            tx.execute("DELETE FROM pairings WHERE code = ?", (code,))
        return {"status": "paired", "table": number, "name": name, "token": token}

    def table_for_token(self, token: str | None) -> ClubTable | None:
        if not token:
            return None
        key = token_hash(token)
        cached = self._tokens.get(key)
        if cached is not None and time.monotonic() - cached[0] < TOKEN_CACHE_S:
            return cached[1]
        with self.db.read() as tx:
            row = tx.one("SELECT id, number, name FROM club_tables WHERE token_hash = ? AND revoked = 0", (key,))
        if row is None:
            return None
        table = ClubTable(*row)
        self._tokens[key] = (time.monotonic(), table)
        return table

    def tables(self) -> list[dict[str, Any]]:
        with self.db.read() as tx:
            rows = tx.all("SELECT id, number, name, paired_at, revoked FROM club_tables ORDER BY number")
        return [{"id": i, "number": n, "name": nm, "paired_at": p, "revoked": bool(r)} for i, n, nm, p, r in rows]

    def revoke_table(self, number: int) -> None:
        self._tokens.clear()
        with self.db.transaction() as tx:
            tx.execute("UPDATE club_tables SET revoked = 1, token_hash = ? WHERE number = ?",
                       (f"revoked:{number}:{secrets.token_hex(8)}", number))

    # ------------------------------------------------------------ players

    def players(self) -> list[dict[str, Any]]:
        with self.db.read() as tx:
            rows = tx.all("SELECT id, name, active FROM players ORDER BY lower(name)")
        return [{"id": i, "name": n, "active": bool(a)} for i, n, a in rows]

    def add_player(self, name: str) -> int:
        name = " ".join(str(name).split())
        if not name or len(name) > 40:
            raise Refused("a player's name has 1 to 40 characters", "name")
        with self._write() as tx:
            return self._player_id(tx, name)

    def rename_player(self, player_id: int, name: str) -> None:
        name = " ".join(str(name).split())
        if not name or len(name) > 40:
            raise Refused("a player's name has 1 to 40 characters", "name")
        self._player_ids.clear()
        try:
            with self.db.transaction() as tx:
                tx.execute("UPDATE players SET name = ? WHERE id = ?", (name, player_id))
        except Exception as exc:
            if self.db.is_unique_violation(exc):
                raise Refused(f"there is already a player called {name!r}", "name") from None
            raise

    def set_player_active(self, player_id: int, active: bool) -> None:
        with self.db.transaction() as tx:
            tx.execute("UPDATE players SET active = ? WHERE id = ?", (int(active), player_id))

    @contextlib.contextmanager
    def _write(self) -> Iterator[Any]:
        """A transaction whose players' ids are remembered once it has committed."""
        with self.db.transaction() as tx:
            yield tx
        self._player_ids.update(tx.memo)

    def _player_id(self, tx: Any, name: str) -> int:
        pid = self._player_ids.get(name) or tx.memo.get(name)
        if pid is not None:
            return pid
        pid = tx.value("SELECT id FROM players WHERE name = ?", (name,))
        if pid is None:
            tx.execute("INSERT INTO players (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                       (name, now_iso()))
            pid = tx.value("SELECT id FROM players WHERE name = ?", (name,))
        # players are never deleted: the id is safe to remember once this transaction commits
        tx.memo[name] = int(pid)
        return int(pid)

    # ------------------------------------------------------------ sessions

    def sessions(self) -> list[dict[str, Any]]:
        with self.db.read() as tx:
            rows = tx.all("SELECT s.id, s.name, s.started_at, s.closed_at, s.current_round, "
                          "(SELECT count(*) FROM deals d WHERE d.session_id = s.id AND d.voided = 0) "
                          "FROM sessions s ORDER BY s.id DESC")
        return [{"id": i, "name": n, "started_at": st, "closed_at": c, "round": r, "deals": d}
                for i, n, st, c, r, d in rows]

    def session(self, session_id: int) -> dict[str, Any] | None:
        return next((s for s in self.sessions() if s["id"] == session_id), None)

    def current_session(self) -> dict[str, Any] | None:
        """The open evening (the latest), else the latest closed one, else None."""
        ss = self.sessions()
        return next((s for s in ss if s["closed_at"] is None), ss[0] if ss else None)

    def open_session(self, name: str = "") -> int:
        """Close the open evening (if any) and start a new one."""
        with self.db.transaction() as tx:
            tx.execute("UPDATE sessions SET closed_at = ? WHERE closed_at IS NULL", (now_iso(),))
            return self._new_session(tx, name)

    def _new_session(self, tx: Any, name: str) -> int:
        name = " ".join(str(name).split())[:60] or f"Evening of {datetime.now().strftime('%Y-%m-%d')}"
        tx.execute("INSERT INTO sessions (name, started_at) VALUES (?, ?)", (name, now_iso()))
        return int(tx.value("SELECT max(id) FROM sessions"))

    def close_session(self, session_id: int) -> None:
        with self.db.transaction() as tx:
            tx.execute("UPDATE sessions SET closed_at = ? WHERE id = ? AND closed_at IS NULL", (now_iso(), session_id))

    def set_round(self, session_id: int, round_: int) -> None:
        if not 1 <= round_ <= 999:
            raise Refused("a round is 1..999", "round")
        with self.db.transaction() as tx:
            tx.execute("UPDATE sessions SET current_round = ? WHERE id = ?", (round_, session_id))

    def _open_session_tx(self, tx: Any) -> tuple[int, int]:
        row = tx.one("SELECT id, current_round FROM sessions WHERE closed_at IS NULL ORDER BY id DESC")
        if row is None:
            if self.db.dialect == "postgresql":
                tx.execute("SELECT pg_advisory_xact_lock(7363)")
                row = tx.one("SELECT id, current_round FROM sessions WHERE closed_at IS NULL ORDER BY id DESC")
            if row is None:
                return self._new_session(tx, ""), 1
        return int(row[0]), int(row[1])

    # ------------------------------------------------------------ deals

    def publish(self, table: ClubTable, deal: CheckedDeal) -> Stored:
        """Store a checked deal once; a resend of the same id and record is a duplicate."""
        for _attempt in range(3):
            try:
                result = self.publish_many([(table, deal)])[0]
            except Exception as exc:  # the same id arrived twice at once: answer from the first
                if not self.db.is_unique_violation(exc):
                    raise
                continue
            if isinstance(result, Exception):
                raise result
            return result
        raise Refused("the deal could not be stored; try again")

    def publish_many(self, items: list[tuple[ClubTable, CheckedDeal]]) -> list[Stored | Exception]:
        """Store several checked deals in one transaction: one commit (one disk flush) and three
        statements for all of them, however many.

        Each deal is stored, a duplicate (its id was stored before, or earlier in ``items``, with
        the same record), or refused (the same id with another record): the answer for each is
        its :class:`Stored` or the :class:`Refused` that turned it down. When the transaction as
        a whole fails (the database, a race with another server process) this raises and nothing
        is stored."""
        if not items:
            return []
        results: list[Stored | Exception | None] = [None] * len(items)
        records = [deal.record_json() for _t, deal in items]
        with self._write() as tx:
            keys = list(dict.fromkeys((table.id, deal.uid) for table, deal in items))
            existing = {(t, u): (i, s, r, o) for i, s, r, o, t, u in tx.all(
                "SELECT id, session_id, round, original, table_id, uid FROM deals WHERE "
                + " OR ".join(["(table_id = ? AND uid = ?)"] * len(keys)), [v for k in keys for v in k])}
            first: dict[tuple[int, str], int] = {}  # a key's first publication in this batch
            fresh: list[int] = []
            for n, (table, deal) in enumerate(items):
                key = (table.id, deal.uid)
                if key in existing:
                    deal_id, session_id, rnd, original = existing[key]
                    results[n] = (Stored("duplicate", int(deal_id), int(session_id), int(rnd))
                                  if original == records[n] else _other_record(deal.uid))
                elif key in first:
                    results[n] = None if records[first[key]] == records[n] else _other_record(deal.uid)
                else:
                    first[key] = n
                    fresh.append(n)
            if fresh:
                session_id, current_round = self._open_session_tx(tx)
                now = now_iso()
                rows = []
                for n in fresh:
                    table, deal = items[n]
                    rows.append((deal.uid, table.id, session_id, deal.round or current_round, deal.game, records[n],
                                 records[n], deal.contract, None if deal.won is None else int(deal.won),
                                 deal.combination, now))
                ids = {(t, u): i for i, t, u in tx.all(
                    "INSERT INTO deals (uid, table_id, session_id, round, game, record, original, contract, won, "
                    "combination, received_at) VALUES " + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(rows))
                    + " RETURNING id, table_id, uid", [v for row in rows for v in row])}
                for n, row in zip(fresh, rows):
                    table, deal = items[n]
                    results[n] = Stored("stored", int(ids[(table.id, deal.uid)]), session_id, row[3])
                self._write_seats(tx, [(results[n].deal, items[n][1]) for n in fresh])  # type: ignore[union-attr]
            for n, (table, deal) in enumerate(items):
                if results[n] is None:  # the same publication twice in this batch: a duplicate of the first
                    s = results[first[(table.id, deal.uid)]]
                    results[n] = Stored("duplicate", s.deal, s.session, s.round)  # type: ignore[union-attr]
        return results  # type: ignore[return-value]

    def _write_seats(self, tx: Any, deals: list[tuple[int, CheckedDeal]], replace: bool = False) -> None:
        """The seats of ``deals`` ((deal id, checked deal)), in one statement."""
        if replace:
            for deal_id, _deal in deals:
                tx.execute("DELETE FROM deal_players WHERE deal_id = ?", (deal_id,))
        rows = [(deal_id, s.seat, self._player_id(tx, s.name), s.score, int(s.taker), int(s.partner), int(s.winner))
                for deal_id, deal in deals for s in deal.seats]
        tx.execute("INSERT INTO deal_players (deal_id, seat, player_id, score, taker, partner, winner) VALUES "
                   + ", ".join(["(?, ?, ?, ?, ?, ?, ?)"] * len(rows)), [v for row in rows for v in row])

    def correct(self, deal_id: int, record: Any, scores: Any, reason: str) -> None:
        """Replace a deal's record by a corrected one (replayed); the old one is kept."""
        reason = " ".join(str(reason).split())[:200]
        if not reason:
            raise Refused("say why the deal is corrected", "reason")
        checked = CheckedDeal.of("correction", check_record(record, scores), None)
        with self._write() as tx:
            before = tx.value("SELECT record FROM deals WHERE id = ?", (deal_id,))
            if before is None:
                raise Refused(f"no deal {deal_id}", "deal")
            after = canonical_json(checked.record)
            tx.execute("UPDATE deals SET record = ?, game = ?, contract = ?, won = ?, combination = ? WHERE id = ?",
                       (after, checked.game, checked.contract, None if checked.won is None else int(checked.won),
                        checked.combination, deal_id))
            self._write_seats(tx, [(deal_id, checked)], replace=True)
            tx.execute("INSERT INTO corrections (deal_id, created_at, kind, reason, before, after) "
                       "VALUES (?, ?, 'correct', ?, ?, ?)", (deal_id, now_iso(), reason, before, after))

    def set_voided(self, deal_id: int, voided: bool, reason: str) -> None:
        reason = " ".join(str(reason).split())[:200]
        if not reason:
            raise Refused("say why", "reason")
        with self.db.transaction() as tx:
            if tx.value("SELECT count(*) FROM deals WHERE id = ?", (deal_id,)) == 0:
                raise Refused(f"no deal {deal_id}", "deal")
            tx.execute("UPDATE deals SET voided = ? WHERE id = ?", (int(voided), deal_id))
            tx.execute("INSERT INTO corrections (deal_id, created_at, kind, reason) VALUES (?, ?, ?, ?)",
                       (deal_id, now_iso(), "void" if voided else "restore", reason))

    def deal(self, deal_id: int) -> dict[str, Any] | None:
        rows = self._deals("d.id = ?", (deal_id,), include_voided=True)
        if not rows:
            return None
        d = rows[0]
        with self.db.read() as tx:
            d["corrections"] = [
                {"at": a, "kind": k, "reason": r, "before": json.loads(b) if b else None,
                 "after": json.loads(x) if x else None}
                for a, k, r, b, x in tx.all("SELECT created_at, kind, reason, before, after FROM corrections "
                                            "WHERE deal_id = ? ORDER BY id", (deal_id,))]
        return d

    def deals(self, session_id: int, include_voided: bool = False) -> list[dict[str, Any]]:
        return self._deals("d.session_id = ?", (session_id,), include_voided)

    def _deals(self, where: str, params: tuple, include_voided: bool) -> list[dict[str, Any]]:
        cond = where if include_voided else f"{where} AND d.voided = 0"
        with self.db.read() as tx:
            rows = tx.all("SELECT d.id, d.uid, t.number, d.round, d.game, d.record, d.contract, d.won, "
                          "d.combination, d.received_at, d.voided, d.session_id, "
                          "(SELECT count(*) FROM corrections c WHERE c.deal_id = d.id) "
                          f"FROM deals d JOIN club_tables t ON t.id = d.table_id WHERE {cond} ORDER BY d.id", params)
            ids = [r[0] for r in rows]
            seats: dict[int, list] = {i: [] for i in ids}
            if ids:
                for deal_id, seat, name, score, taker, partner, winner in tx.all(
                        "SELECT dp.deal_id, dp.seat, p.name, dp.score, dp.taker, dp.partner, dp.winner "
                        "FROM deal_players dp "
                        "JOIN players p ON p.id = dp.player_id JOIN deals d ON d.id = dp.deal_id "
                        f"WHERE {cond} ORDER BY dp.deal_id, dp.seat", params):
                    seats[deal_id].append({"seat": seat, "name": name, "score": score, "taker": bool(taker),
                                           "partner": bool(partner), "winner": bool(winner)})
        return [{"id": i, "uid": u, "table": t, "round": r, "game": g, "record": json.loads(rec),
                 "contract": c, "won": None if w is None else bool(w), "combination": cb, "received_at": at,
                 "voided": bool(v), "session": s, "corrected": n > 0, "seats": seats[i]}
                for i, u, t, r, g, rec, c, w, cb, at, v, s, n in rows]

    def standings(self, session_id: int) -> list[dict[str, Any]]:
        with self.db.read() as tx:
            rows = tx.all("SELECT p.name, sum(dp.score), count(*) FROM deal_players dp "
                          "JOIN deals d ON d.id = dp.deal_id JOIN players p ON p.id = dp.player_id "
                          "WHERE d.session_id = ? AND d.voided = 0 GROUP BY p.name", (session_id,))
        out = [{"name": n, "score": int(s), "deals": int(c)} for n, s, c in rows]
        out.sort(key=lambda p: (-p["score"], p["name"].casefold()))
        return out

    # ------------------------------------------------------------ player statistics

    def player(self, name: str) -> dict[str, Any] | None:
        with self.db.read() as tx:
            pid = tx.value("SELECT id FROM players WHERE name = ?", (name,))
            if pid is None:
                return None
            rows = tx.all("SELECT d.id, d.session_id, s.name, t.number, d.round, d.game, d.contract, d.won, "
                          "d.combination, dp.score, dp.taker, dp.partner, dp.winner, d.received_at FROM deal_players dp "
                          "JOIN deals d ON d.id = dp.deal_id JOIN sessions s ON s.id = d.session_id "
                          "JOIN club_tables t ON t.id = d.table_id "
                          "WHERE dp.player_id = ? AND d.voided = 0 ORDER BY d.id", (pid,))
        history = [{"deal": i, "session": s, "session_name": sn, "table": t, "round": r, "game": g,
                    "contract": c, "won": None if w is None else bool(w), "combination": cb, "score": sc,
                    "taker": bool(tk), "partner": bool(pt), "winner": bool(wn), "at": at}
                   for i, s, sn, t, r, g, c, w, cb, sc, tk, pt, wn, at in rows]
        return {"name": name, "history": history, "stats": player_statistics(history)}


def _other_record(uid: str) -> Refused:
    return Refused(f"id {uid!r} was already published with another record", "id")


def player_statistics(history: list[dict[str, Any]]) -> dict[str, Any]:
    """Deals played, taken and won by contract (French tarot), games won by combination (Trivium),
    average score, and the running total."""
    by_contract: dict[str, dict[str, int]] = {}
    by_combination: dict[str, int] = {}
    taken = 0
    for h in history:
        if h["taker"] and h["contract"]:  # only French tarot has a taker and a contract
            taken += 1
            c = by_contract.setdefault(h["contract"], {"taken": 0, "won": 0})
            c["taken"] += 1
            c["won"] += int(bool(h["won"]))
        if h.get("winner") and h.get("combination"):  # only Trivium has a winner and a combination
            by_combination[h["combination"]] = by_combination.get(h["combination"], 0) + 1
    total, running, evenings = 0, [], {}
    for h in history:
        total += h["score"]
        running.append(total)
        e = evenings.setdefault(h["session"], {"session": h["session"], "name": h["session_name"],
                                               "score": 0, "deals": 0})
        e["score"] += h["score"]
        e["deals"] += 1
    played = len(history)
    return {"deals": played, "taken": taken, "by_contract": by_contract, "won_games": sum(by_combination.values()),
            "by_combination": by_combination, "total": total,
            "average": round(total / played, 1) if played else 0.0, "running": running,
            "evenings": list(evenings.values())}

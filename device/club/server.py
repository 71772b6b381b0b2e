"""The club server's web application (Starlette): pages, JSON API, publishing, director pages.

Read-only pages and ``/api/*`` reads need no login. Tables publish with the
token they got when paired (``Authorization: Bearer TOKEN``). The director's
pages and ``/api/director/*`` need the director's login cookie and, for every
change, the login's CSRF token (form field ``csrf`` or header
``X-CSRF-Token``); the cookie is ``HttpOnly`` and ``SameSite=Strict``.
"""

from __future__ import annotations

import asyncio
import csv
import hmac
import io
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response,
                                 StreamingResponse)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from device.web import serving
from device.web.feed import ChangeFeed
from device.club.committer import GroupCommit
from device.club.records import MAX_BODY, CheckedDeal, Refused, check_publication, parse_body, result_label
from device.club.store import ClubStore, ClubTable, Stored

COOKIE = "tarotmate_director"
HERE = Path(__file__).parent
STATIC = HERE.parent / "web" / "static"
MAX_PENDING_PAIRINGS = 200
REPLAY_THREADS = 2

CSV_COLUMNS = ["session", "deal", "table", "round", "game", "contract", "won", "seat", "player", "score",
               "taker", "partner", "corrected", "voided", "received_at", "combination", "winner"]


class NotPublished(Exception):
    """A publication answered without storing it: the HTTP status and the JSON answer."""

    def __init__(self, status: int, answer: dict[str, Any]) -> None:
        super().__init__(answer.get("error", ""))
        self.status = status
        self.answer = answer


class ClubApp:
    """Holds the store and the change feed; builds the Starlette application."""

    def __init__(self, store: ClubStore) -> None:
        self.store = store
        self.feed = ChangeFeed()
        self.committer = GroupCommit(store)
        # Replays hold the GIL: two threads (not the 40 of the request pool) keep them in arrival order
        # instead of slicing the CPU between dozens of them, each finishing late.
        self.replayer = ThreadPoolExecutor(max_workers=REPLAY_THREADS, thread_name_prefix="club-replay")
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.templates.env.filters["result"] = result_label
        self.templates.env.filters["urlname"] = lambda s: quote(s, safe="")

    # ------------------------------------------------------------ helpers

    def _session_id(self, request: Request) -> int | None:
        raw = request.query_params.get("session")
        if raw is not None:
            try:
                return int(raw)
            except ValueError:
                return None
        s = self.store.current_session()
        return s["id"] if s else None

    def _page(self, request: Request, name: str, **context: Any) -> HTMLResponse:
        context.setdefault("director", self.store.login_csrf(request.cookies.get(COOKIE)) is not None)
        return self.templates.TemplateResponse(request, name, context)

    def _csrf_ok(self, request: Request, sent: str | None) -> str | None:
        """The CSRF token of the director's login when ``sent`` matches it, else None."""
        csrf = self.store.login_csrf(request.cookies.get(COOKIE))
        if csrf is None or not sent or not hmac.compare_digest(csrf, sent):
            return None
        return csrf

    # ------------------------------------------------------------ read-only pages

    def board(self, request: Request) -> HTMLResponse:
        big = request.url.path == "/big" or request.query_params.get("big") == "1"
        return self._page(request, "board.html", big=big, data=self.board_data(self._session_id(request)))

    def board_data(self, session_id: int | None) -> dict[str, Any]:
        if session_id is None:
            return {"session": None, "name": "", "round": None, "tables": [], "standings": []}
        session = self.store.session(session_id) or {}
        deals = self.store.deals(session_id)
        tables: dict[int, dict[str, Any]] = {}
        for t in self.store.tables():
            if not t["revoked"]:
                tables[t["number"]] = {"number": t["number"], "name": t["name"], "deals": 0, "last": None,
                                       "totals": {}}
        for d in deals:
            t = tables.setdefault(d["table"], {"number": d["table"], "name": f"Table {d['table']}", "deals": 0,
                                               "last": None, "totals": {}})
            t["deals"] += 1
            t["last"] = {"id": d["id"], "round": d["round"], "game": d["game"], "contract": result_label(d),
                         "won": d["won"], "at": d["received_at"], "corrected": d["corrected"],
                         "taker": next((s["name"] for s in d["seats"] if s["taker"]), None),
                         "winner": next((s["name"] for s in d["seats"] if s["winner"]), None),
                         "seats": [{"name": s["name"], "score": s["score"]} for s in d["seats"]]}
            for s in d["seats"]:
                t["totals"][s["name"]] = t["totals"].get(s["name"], 0) + s["score"]
        out_tables = []
        for number in sorted(tables):
            t = tables[number]
            t["totals"] = [{"name": n, "score": s} for n, s in sorted(t["totals"].items(), key=lambda x: -x[1])]
            out_tables.append(t)
        return {"session": session_id, "name": session.get("name", ""), "round": session.get("round"),
                "tables": out_tables, "standings": self.store.standings(session_id)}

    def standings_page(self, request: Request) -> HTMLResponse:
        sid = self._session_id(request)
        return self._page(request, "standings.html", session=self.store.session(sid) if sid else None,
                          standings=self.store.standings(sid) if sid else [], sessions=self.store.sessions())

    def sessions_page(self, request: Request) -> HTMLResponse:
        return self._page(request, "sessions.html", sessions=self.store.sessions())

    def session_page(self, request: Request) -> HTMLResponse:
        sid = int(request.path_params["sid"])
        session = self.store.session(sid)
        if session is None:
            return self._page(request, "message.html", title="No such evening", message=f"No evening {sid}.")
        return self._page(request, "session.html", session=session, deals=self.store.deals(sid, True),
                          standings=self.store.standings(sid))

    def players_page(self, request: Request) -> HTMLResponse:
        return self._page(request, "players.html", players=self.store.players())

    def player_page(self, request: Request) -> HTMLResponse:
        name = request.path_params["name"]
        p = self.store.player(name)
        if p is None:
            return self._page(request, "message.html", title="No such player", message=f"No player {name!r}.")
        return self._page(request, "player.html", p=p, chart=json.dumps(p["stats"]["running"]))

    def deal_page(self, request: Request) -> HTMLResponse:
        d = self.store.deal(int(request.path_params["did"]))
        if d is None:
            return self._page(request, "message.html", title="No such deal", message="No such deal.")
        return self._page(request, "deal.html", d=d, record=json.dumps(d["record"], indent=1, ensure_ascii=False))

    def export_csv(self, request: Request) -> Response:
        sid = int(request.path_params["sid"])
        if self.store.session(sid) is None:
            return PlainTextResponse(f"no evening {sid}\n", status_code=404)
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(CSV_COLUMNS)  # the columns of earlier versions first, in their order
        for d in self.store.deals(sid, include_voided=True):
            for s in d["seats"]:
                w.writerow([sid, d["id"], d["table"], d["round"], d["game"], d["contract"] or "",
                            "" if d["won"] is None else int(d["won"]), s["seat"], s["name"], s["score"],
                            int(s["taker"]), int(s["partner"]), int(d["corrected"]), int(d["voided"]),
                            d["received_at"], d["combination"] or "", int(s["winner"])])
        return Response(buf.getvalue(), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="evening-{sid}.csv"'})

    # ------------------------------------------------------------ JSON API (read)

    def api_standings(self, request: Request) -> JSONResponse:
        sid = self._session_id(request)
        return JSONResponse({"session": sid, "players": self.store.standings(sid) if sid is not None else []})

    def api_deals(self, request: Request) -> JSONResponse:
        sid = self._session_id(request)
        deals = self.store.deals(sid) if sid is not None else []
        return JSONResponse([{"id": d["uid"], "table": d["table"], "round": d["round"], "record": d["record"]}
                             for d in deals])

    def api_board(self, request: Request) -> JSONResponse:
        return JSONResponse(self.board_data(self._session_id(request)))

    def api_players(self, request: Request) -> JSONResponse:
        return JSONResponse([{"name": p["name"]} for p in self.store.players() if p["active"]])

    def api_player(self, request: Request) -> JSONResponse:
        p = self.store.player(request.path_params["name"])
        if p is None:
            return JSONResponse({"error": "no such player"}, status_code=404)
        return JSONResponse(p)

    def api_health(self, request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "schema": self.store.db.version(), "database": self.store.db.dialect})

    async def api_events(self, request: Request) -> StreamingResponse:
        return StreamingResponse(self.feed.stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    # ------------------------------------------------------------ tables: pairing and publishing

    async def _json(self, request: Request) -> Any:
        return parse_body(await self._raw(request))

    async def _raw(self, request: Request) -> bytes:
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > MAX_BODY:
            raise Refused(f"the request is over {MAX_BODY // 1024} kB")
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise Refused(f"the request is over {MAX_BODY // 1024} kB")
        return raw

    async def api_pair_start(self, request: Request) -> JSONResponse:
        try:
            body = await self._json(request)
        except Refused as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        name = body.get("name", "Table") if isinstance(body, dict) else "Table"
        if not isinstance(name, str):
            return JSONResponse({"error": "name: expected a string"}, status_code=400)
        if len(await run_in_threadpool(self.store.pending_pairings)) >= MAX_PENDING_PAIRINGS:
            return JSONResponse({"error": "too many tables are waiting to pair"}, status_code=429)
        code, req = await run_in_threadpool(self.store.start_pairing, name)
        self.feed.bump()
        return JSONResponse({"code": code, "request": req, "poll": f"/api/pair/{req}"})

    def api_pair_poll(self, request: Request) -> JSONResponse:
        got = self.store.collect_pairing(request.path_params["request"])
        if got is None:
            return JSONResponse({"error": "unknown or expired pairing request"}, status_code=404)
        return JSONResponse(got)

    async def api_publish(self, request: Request) -> JSONResponse:
        auth = request.headers.get("authorization", "")
        token = auth[7:].strip() if auth.lower().startswith("bearer ") else None
        try:
            raw = await self._raw(request)
        except Refused as exc:
            return JSONResponse({"status": "refused", "error": str(exc), "field": exc.field}, status_code=413)
        t0 = time.perf_counter()
        t1 = t0
        try:
            # the replay is CPU work: off the event loop, first come first served
            table, deal = await asyncio.get_running_loop().run_in_executor(self.replayer, self.check, token, raw)
            t1 = time.perf_counter()
            # the commit: the group committer answers once the deal is on disk
            stored = await asyncio.wrap_future(self.committer.submit(table, deal))
            status, answer = 200, self._stored_answer(table, deal, stored)
        except NotPublished as exc:
            status, answer = exc.status, exc.answer
        except Refused as exc:  # from the store: the id was published with another record
            status, answer = 409, {"status": "refused", "error": str(exc), "field": exc.field}
        t2 = time.perf_counter()
        if answer.get("status") == "stored":
            self.feed.bump()
        headers = {"Server-Timing": f"publish;dur={(t2 - t0) * 1000:.1f}, replay;dur={(t1 - t0) * 1000:.1f}, "
                                    f"commit;dur={(t2 - t1) * 1000:.1f}"}
        if status == 401:
            headers["WWW-Authenticate"] = "Bearer"
        return JSONResponse(answer, status_code=status, headers=headers)

    def check(self, token: str | None, raw: bytes) -> tuple[ClubTable, CheckedDeal]:
        """Authenticate and replay a publication; :class:`NotPublished` says why not."""
        table = self.store.table_for_token(token)
        if table is None:
            raise NotPublished(401, {"status": "unauthorized", "error": "this table is not paired (unknown token)"})
        try:
            return table, check_publication(parse_body(raw))
        except Refused as exc:
            raise NotPublished(422, {"status": "refused", "error": str(exc), "field": exc.field}) from None

    @staticmethod
    def _stored_answer(table: ClubTable, deal: CheckedDeal, stored: Stored) -> dict[str, Any]:
        return {"status": stored.status, "id": deal.uid, "deal": stored.deal, "session": stored.session,
                "table": table.number, "round": stored.round, "scores": deal.scores}

    def close(self) -> None:
        """Answer the publications still queued for commit; end the event streams."""
        self.feed.close()
        self.replayer.shutdown(wait=True)
        self.committer.close()

    # ------------------------------------------------------------ director

    def login_page(self, request: Request) -> HTMLResponse:
        return self._page(request, "login.html", error=None, has_password=self.store.has_director_password())

    async def login_post(self, request: Request) -> Response:
        if not _same_origin(request):
            return PlainTextResponse("cross-site login refused\n", status_code=403)
        form = await request.form()
        got = await run_in_threadpool(self.store.login, str(form.get("password", "")))
        if got is None:
            return self._page(request, "login.html", error="Wrong password.",
                              has_password=self.store.has_director_password())
        resp = RedirectResponse("/director", status_code=303)
        _set_cookie(resp, got[0])
        return resp

    async def api_login(self, request: Request) -> JSONResponse:
        try:
            body = await self._json(request)
        except Refused as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        password = body.get("password") if isinstance(body, dict) else None
        got = await run_in_threadpool(self.store.login, password) if isinstance(password, str) else None
        if got is None:
            return JSONResponse({"error": "wrong director password"}, status_code=403)
        resp = JSONResponse({"csrf": got[1]})
        _set_cookie(resp, got[0])
        return resp

    def director_page(self, request: Request) -> Response:
        csrf = self.store.login_csrf(request.cookies.get(COOKIE))
        if csrf is None:
            return RedirectResponse("/director/login", status_code=303)
        session = self.store.current_session()
        return self._page(request, "director.html", csrf=csrf, pending=self.store.pending_pairings(),
                          tables=self.store.tables(), players=self.store.players(), session=session,
                          sessions=self.store.sessions()[:10],
                          deals=self.store.deals(session["id"], True) if session else [],
                          message=request.query_params.get("m", ""), error=request.query_params.get("e", ""))

    def director_deal_page(self, request: Request) -> Response:
        csrf = self.store.login_csrf(request.cookies.get(COOKIE))
        if csrf is None:
            return RedirectResponse("/director/login", status_code=303)
        d = self.store.deal(int(request.path_params["did"]))
        if d is None:
            return RedirectResponse("/director?e=" + quote("no such deal"), status_code=303)
        return self._page(request, "director_deal.html", csrf=csrf, d=d,
                          record=json.dumps(d["record"], indent=1, ensure_ascii=False),
                          scores=json.dumps([s["score"] for s in d["seats"]]),
                          error=request.query_params.get("e", ""))

    def director_action(self, action: Callable[[dict[str, Any], dict[str, str]], str]) -> Callable:
        """A director form POST: check login + CSRF, run ``action(form, path)``, redirect with its message."""

        async def endpoint(request: Request) -> Response:
            form = dict(await request.form())
            if self._csrf_ok(request, request.headers.get("x-csrf-token") or str(form.get("csrf", ""))) is None:
                return PlainTextResponse("director login and CSRF token required\n", status_code=403)
            back = "/director"
            try:
                message = await run_in_threadpool(action, form, dict(request.path_params))
                if isinstance(message, tuple):
                    back, message = message
            except Refused as exc:
                where = str(form.get("_back") or "/director")
                if not where.startswith("/director") or "//" in where or "\\" in where:
                    where = "/director"  # only back to a director page of this server
                return RedirectResponse(f"{where}?e={quote(str(exc))}", status_code=303)
            self.feed.bump()
            return RedirectResponse(f"{back}?m={quote(message)}", status_code=303)

        return endpoint

    def director_api(self, action: Callable[[dict[str, Any], dict[str, str]], Any]) -> Callable:
        """A director JSON POST: login cookie + ``X-CSRF-Token`` header; answers the action's result."""

        async def endpoint(request: Request) -> JSONResponse:
            if self._csrf_ok(request, request.headers.get("x-csrf-token")) is None:
                return JSONResponse({"error": "director login and X-CSRF-Token required"}, status_code=403)
            try:
                body = await self._json(request)
                if not isinstance(body, dict):
                    raise Refused("expected a JSON object")
                result = await run_in_threadpool(action, body, dict(request.path_params))
            except Refused as exc:
                return JSONResponse({"error": str(exc), "field": exc.field}, status_code=422)
            self.feed.bump()
            return JSONResponse(result)

        return endpoint

    # director actions (form or JSON): each returns a message (or a JSON-able result)

    def _pair(self, form: dict, _p: dict) -> str:
        number = _int_or_none(form.get("number"), "number")
        t = self.store.confirm_pairing(str(form.get("code", "")), number)
        return f"Paired {t.name} as table {t.number}."

    def _pair_api(self, body: dict, _p: dict) -> dict:
        t = self.store.confirm_pairing(str(body.get("code", "")), _int_or_none(body.get("number"), "number"))
        return {"table": t.number, "name": t.name}

    def _revoke(self, _f: dict, p: dict) -> str:
        self.store.revoke_table(int(p["number"]))
        return f"Table {p['number']} unpaired; it must pair again to publish."

    def _add_player(self, form: dict, _p: dict) -> str:
        self.store.add_player(str(form.get("name", "")))
        return f"Player {form.get('name')} added."

    def _add_player_api(self, body: dict, _p: dict) -> dict:
        return {"id": self.store.add_player(str(body.get("name", ""))), "name": " ".join(str(body.get("name")).split())}

    def _edit_player(self, form: dict, p: dict) -> str:
        pid = int(p["pid"])
        if form.get("name"):
            self.store.rename_player(pid, str(form["name"]))
        if "active" in form:
            self.store.set_player_active(pid, form["active"] == "1")
        return "Player saved."

    def _new_session(self, form: dict, _p: dict) -> str:
        sid = self.store.open_session(str(form.get("name", "")))
        return f"Evening {sid} started."

    def _new_session_api(self, body: dict, _p: dict) -> dict:
        return {"session": self.store.open_session(str(body.get("name", "")))}

    def _set_round(self, form: dict, p: dict) -> str:
        rnd = _int_or_none(form.get("round"), "round")
        if rnd is None:
            raise Refused("a round number is needed", "round")
        self.store.set_round(int(p["sid"]), rnd)
        return f"Round {rnd} now."

    def _close_session(self, _f: dict, p: dict) -> str:
        self.store.close_session(int(p["sid"]))
        return "Evening closed."

    def _correct(self, form: dict, p: dict) -> tuple[str, str]:
        did = int(p["did"])
        try:
            record = json.loads(str(form.get("record", "")))
            scores = json.loads(str(form.get("scores", "null")))
        except json.JSONDecodeError as exc:
            raise Refused(f"not JSON: {exc}", "record") from None
        self.store.correct(did, record, scores, str(form.get("reason", "")))
        return f"/deals/{did}", "Deal corrected."

    def _void(self, form: dict, p: dict) -> tuple[str, str]:
        did = int(p["did"])
        voided = form.get("voided", "1") == "1"
        self.store.set_voided(did, voided, str(form.get("reason", "")))
        return f"/deals/{did}", "Deal voided." if voided else "Deal restored."

    async def logout_post(self, request: Request) -> Response:
        form = dict(await request.form())
        if self._csrf_ok(request, str(form.get("csrf", ""))) is None:
            return PlainTextResponse("director login and CSRF token required\n", status_code=403)
        await run_in_threadpool(self.store.logout, request.cookies.get(COOKIE, ""))
        resp = RedirectResponse("/", status_code=303)
        resp.delete_cookie(COOKIE, path="/")
        return resp

    # ------------------------------------------------------------ the application

    def build(self) -> Starlette:
        d, j = self.director_action, self.director_api
        routes = [
            Route("/", self.board),
            Route("/big", self.board),
            Route("/standings", self.standings_page),
            Route("/sessions", self.sessions_page),
            Route("/sessions/{sid:int}", self.session_page),
            Route("/sessions/{sid:int}/export.csv", self.export_csv),
            Route("/players", self.players_page),
            Route("/players/{name:path}", self.player_page),
            Route("/deals/{did:int}", self.deal_page),
            Route("/api/health", self.api_health),
            Route("/api/standings", self.api_standings),
            Route("/api/deals", self.api_deals),
            Route("/api/board", self.api_board),
            Route("/api/players", self.api_players),
            Route("/api/players/{name:path}", self.api_player),
            Route("/api/events", self.api_events),
            Route("/api/pair", self.api_pair_start, methods=["POST"]),
            Route("/api/pair/{request:str}", self.api_pair_poll),
            Route("/api/publish", self.api_publish, methods=["POST"]),
            Route("/api/director/login", self.api_login, methods=["POST"]),
            Route("/api/director/pair", j(self._pair_api), methods=["POST"]),
            Route("/api/director/players", j(self._add_player_api), methods=["POST"]),
            Route("/api/director/sessions", j(self._new_session_api), methods=["POST"]),
            Route("/director", self.director_page),
            Route("/director/login", self.login_page),
            Route("/director/login", self.login_post, methods=["POST"]),
            Route("/director/logout", self.logout_post, methods=["POST"]),
            Route("/director/pair", d(self._pair), methods=["POST"]),
            Route("/director/tables/{number:int}/revoke", d(self._revoke), methods=["POST"]),
            Route("/director/players", d(self._add_player), methods=["POST"]),
            Route("/director/players/{pid:int}", d(self._edit_player), methods=["POST"]),
            Route("/director/sessions", d(self._new_session), methods=["POST"]),
            Route("/director/sessions/{sid:int}/round", d(self._set_round), methods=["POST"]),
            Route("/director/sessions/{sid:int}/close", d(self._close_session), methods=["POST"]),
            Route("/director/deals/{did:int}", self.director_deal_page),
            Route("/director/deals/{did:int}/correct", d(self._correct), methods=["POST"]),
            Route("/director/deals/{did:int}/void", d(self._void), methods=["POST"]),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        ]
        app = Starlette(routes=routes)
        app.state.club = self
        return app


def _int_or_none(value: Any, field: str) -> int | None:
    if value in (None, ""):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise Refused(f"expected a number, got {value!r}", field) from None


def _set_cookie(resp: Response, login: str) -> None:
    resp.set_cookie(COOKIE, login, max_age=12 * 3600, path="/", httponly=True, samesite="strict")


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return origin is None
    host = request.headers.get("host", "")
    return origin.split("://", 1)[-1] == host


def create_app(store: ClubStore) -> Starlette:
    return ClubApp(store).build()


def make_server(app: Starlette, host: str, port: int, feed: ChangeFeed | None = None):
    """A uvicorn server for the club's ``app`` (:func:`device.web.serving.make_server`): it ends the open
    event streams first when it stops, then answers the publications still queued."""
    club = getattr(app.state, "club", None)
    return serving.make_server(app, host, port, feed or getattr(club, "feed", None),
                               on_close=None if club is None else club.close)

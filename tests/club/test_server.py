"""The club server over HTTP: the JSON API's exact shapes, publishing, pairing, director pages and CSRF."""

from __future__ import annotations

import http.client
import re
import threading
import time
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from device.club.server import ClubApp
from engine.tarot.record import replay_record

from .helpers import PASSWORD, publication


@pytest.fixture
def client(store):
    with TestClient(ClubApp(store).build()) as c:
        yield c


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def director(client) -> str:
    r = client.post("/api/director/login", json={"password": PASSWORD})
    assert r.status_code == 200
    return r.json()["csrf"]


def pair_over_http(client, name="Table") -> str:
    start = client.post("/api/pair", json={"name": name}).json()
    assert re.fullmatch(r"[A-Z0-9]{5}", start["code"])
    assert client.get(start["poll"]).json() == {"status": "pending"}
    csrf = director(client)
    assert client.post("/api/director/pair", json={"code": start["code"]}, headers={"X-CSRF-Token": csrf}).status_code == 200
    got = client.get(start["poll"]).json()
    assert got["status"] == "paired"
    return got["token"]


def test_the_json_api_has_exactly_the_documented_shapes(client, store):
    token = pair_over_http(client)
    pubs = [publication(s) for s in range(5)]
    for p in pubs:
        assert client.post("/api/publish", json=p, headers=bearer(token)).json()["status"] == "stored"
    standings = client.get("/api/standings").json()
    assert set(standings) == {"session", "players"}
    assert standings["session"] == store.current_session()["id"]
    assert all(set(p) == {"name", "score", "deals"} for p in standings["players"])
    scores = [p["score"] for p in standings["players"]]
    assert scores == sorted(scores, reverse=True)
    deals = client.get("/api/deals").json()
    assert [set(d) for d in deals] == [{"id", "table", "round", "record"}] * 5
    assert [d["id"] for d in deals] == [p["id"] for p in pubs]
    assert {d["table"] for d in deals} == {1} and {d["round"] for d in deals} == {1}
    # the standings are the sum of the replays of what /api/deals returns
    totals: dict[str, int] = {}
    for d in deals:
        for name, score in zip(d["record"]["names"], replay_record(d["record"])["scores"]):
            totals[name] = totals.get(name, 0) + score
    assert {p["name"]: p["score"] for p in standings["players"]} == totals


def test_the_api_answers_before_any_evening(client):
    assert client.get("/api/standings").json() == {"session": None, "players": []}
    assert client.get("/api/deals").json() == []


def test_publishing_needs_a_paired_table(client):
    r = client.post("/api/publish", json=publication(1))
    assert r.status_code == 401
    r = client.post("/api/publish", json=publication(1), headers=bearer("made-up"))
    assert r.status_code == 401 and "not paired" in r.json()["error"]


def test_a_resend_is_acknowledged_and_not_counted_twice(client):
    token = pair_over_http(client)
    pub = publication(9)
    first = client.post("/api/publish", json=pub, headers=bearer(token)).json()
    second = client.post("/api/publish", json=pub, headers=bearer(token)).json()
    assert (first["status"], second["status"]) == ("stored", "duplicate")
    assert first["deal"] == second["deal"]
    assert len(client.get("/api/deals").json()) == 1
    assert sum(p["deals"] for p in client.get("/api/standings").json()["players"]) == 4


def test_the_same_id_with_another_record_is_refused_and_the_stages_are_timed(client):
    from device.club.outbox import server_timing

    token = pair_over_http(client)
    first = client.post("/api/publish", json=publication(3, uid="same"), headers=bearer(token))
    assert first.status_code == 200
    stages = server_timing(first.headers["server-timing"])
    assert set(stages) == {"publish", "replay", "commit"}
    assert stages["publish"] >= stages["replay"] and stages["publish"] >= stages["commit"]
    other = client.post("/api/publish", json=publication(4, uid="same"), headers=bearer(token))
    assert other.status_code == 409
    assert other.json()["field"] == "id" and "another record" in other.json()["error"]
    assert [d["id"] for d in client.get("/api/deals").json()] == ["same"]


def test_scores_that_do_not_replay_are_refused_with_the_reason(client):
    token = pair_over_http(client)
    pub = publication(2)
    pub["scores"] = [s + 1 for s in pub["scores"]]
    r = client.post("/api/publish", json=pub, headers=bearer(token))
    assert r.status_code == 422
    assert r.json()["field"] == "scores" and "do not replay" in r.json()["error"]
    assert client.get("/api/deals").json() == []
    r = client.post("/api/publish", content=b"{not json", headers=bearer(token))
    assert r.status_code == 422 and "not JSON" in r.json()["error"]
    r = client.post("/api/publish", content=b"x" * (300 * 1024), headers=bearer(token))
    assert r.status_code == 413


def test_director_json_api_needs_login_and_csrf_header(client):
    code = client.post("/api/pair", json={}).json()["code"]
    assert client.post("/api/director/pair", json={"code": code}).status_code == 403
    assert client.post("/api/director/login", json={"password": "wrong"}).status_code == 403
    csrf = director(client)
    assert client.post("/api/director/pair", json={"code": code}, headers={"X-CSRF-Token": "forged"}).status_code == 403
    r = client.post("/api/director/pair", json={"code": "ZZZZZ"}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 422 and "no table is waiting" in r.json()["error"]
    assert client.post("/api/director/pair", json={"code": code}, headers={"X-CSRF-Token": csrf}).json()["table"] == 1


def csrf_of(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def test_director_pages_login_forms_and_csrf(client):
    assert client.get("/director", follow_redirects=False).headers["location"] == "/director/login"
    r = client.post("/director/login", data={"password": "nope"})
    assert "Wrong password" in r.text
    r = client.post("/director/login", data={"password": PASSWORD}, follow_redirects=False)
    assert r.status_code == 303
    assert "httponly" in r.headers["set-cookie"].lower() and "samesite=strict" in r.headers["set-cookie"].lower()
    page = client.get("/director").text
    csrf = csrf_of(page)
    # a form posted without the token (as a cross-site form would be) is refused
    assert client.post("/director/players", data={"name": "Eve"}).status_code == 403
    assert client.post("/director/players", data={"name": "Eve", "csrf": "forged"}).status_code == 403
    r = client.post("/director/players", data={"name": "  Jeanne   Dupont ", "csrf": csrf})
    assert "Player" in r.text and "Jeanne Dupont" in r.text
    assert client.get("/api/players").json() == [{"name": "Jeanne Dupont"}]
    code = client.post("/api/pair", json={"name": "Bar"}).json()["code"]
    r = client.post("/director/pair", data={"code": code, "number": "7", "csrf": csrf})
    assert "Paired Bar as table 7" in r.text


def test_a_cross_site_login_is_refused(client):
    r = client.post("/director/login", data={"password": PASSWORD}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403


def test_director_corrects_and_voids_a_deal_and_the_pages_show_it(client, store):
    token = pair_over_http(client)
    deal_id = client.post("/api/publish", json=publication(1), headers=bearer(token)).json()["deal"]
    client.post("/director/login", data={"password": PASSWORD})
    page = client.get(f"/director/deals/{deal_id}").text
    csrf = csrf_of(page)
    other = publication(4)
    import json as _json
    r = client.post(f"/director/deals/{deal_id}/correct", data={
        "csrf": csrf, "record": _json.dumps(other["record"]), "scores": _json.dumps(other["scores"]),
        "reason": "trick 3 was misread"})
    assert "trick 3 was misread" in r.text and "corrected" in r.text
    r = client.post(f"/director/deals/{deal_id}/correct", data={
        "csrf": csrf, "record": _json.dumps(other["record"]), "scores": "[0, 0, 0, 0]", "reason": "x",
        "_back": f"/director/deals/{deal_id}"})
    assert "do not replay" in r.text
    r = client.post(f"/director/deals/{deal_id}/void", data={"csrf": csrf, "reason": "misdeal", "voided": "1"})
    assert "voided" in r.text and "misdeal" in r.text
    assert client.get("/api/deals").json() == []
    assert store.deal(deal_id)["voided"]


def test_read_only_pages_and_the_csv_export(client, store):
    token = pair_over_http(client, "Corner")
    for s in range(3):
        client.post("/api/publish", json=publication(s), headers=bearer(token))
    sid = store.current_session()["id"]
    for path in ["/", "/big", "/standings", "/sessions", f"/sessions/{sid}", "/players", "/players/Ana",
                 "/deals/1", "/director/login"]:
        r = client.get(path)
        assert r.status_code == 200, path
        assert "<script src=\"https://" not in r.text and "cdn" not in r.text.lower(), path
    assert "Corner" in client.get("/").text
    assert 'class="big"' in client.get("/big").text
    csv_text = client.get(f"/sessions/{sid}/export.csv").text.splitlines()
    assert csv_text[0].startswith("session,deal,table,round,game,contract,won,seat,player,score")
    assert len(csv_text) == 1 + 3 * 4
    assert client.get("/static/vendor/uPlot.iife.min.js").status_code == 200
    assert client.get("/players/Nobody").status_code == 200 and "No such player" in client.get("/players/Nobody").text


def test_a_trivium_game_reads_as_trivium_in_the_csv_and_the_pages(client, store):
    import csv
    import io

    from engine.trivium.bot import random_game
    from engine.trivium.record import game_to_record

    token = pair_over_http(client, "Corner")
    game = random_game(["Ana", "Luis", "Marta"], seed=4)  # Luis: GRAN MAESTRE, 200
    r = client.post("/api/publish", json={"id": "t-4", "record": game_to_record(game)}, headers=bearer(token))
    assert r.json()["status"] == "stored", r.text
    client.post("/api/publish", json=publication(1), headers=bearer(token))
    sid = store.current_session()["id"]
    rows = list(csv.DictReader(io.StringIO(client.get(f"/sessions/{sid}/export.csv").text)))
    trivium = [row for row in rows if row["game"] == "trivium"]
    assert [(row["player"], row["combination"], row["winner"], row["taker"], row["contract"], row["score"])
            for row in trivium] == [("Ana", "gran_maestre", "0", "0", "", "0"),
                                    ("Luis", "gran_maestre", "1", "0", "", "200"),
                                    ("Marta", "gran_maestre", "0", "0", "", "0")]
    tarot = [row for row in rows if row["game"] == "french-tarot"]
    assert {row["combination"] for row in tarot} == {""} and {row["winner"] for row in tarot} == {"0"}
    assert sum(int(row["taker"]) for row in tarot) == 1 and all(row["contract"] for row in tarot)
    assert "GRAN MAESTRE" in client.get(f"/sessions/{sid}").text
    assert "passed" not in client.get("/deals/1").text.lower() and "GRAN MAESTRE" in client.get("/deals/1").text
    last = client.get("/api/board").json()["tables"][0]["last"]
    assert last["contract"] != "GRAN MAESTRE"  # the last deal is the French tarot one
    player = client.get("/api/players/Luis").json()["stats"]
    assert player["by_combination"] == {"gran_maestre": 1}


def test_the_event_stream_announces_a_new_deal(live_club, store):
    code, request = store.start_pairing("T")
    store.confirm_pairing(code)
    token = store.collect_pairing(request)["token"]
    con = http.client.HTTPConnection("127.0.0.1", live_club.port, timeout=5)
    con.request("GET", "/api/events")
    resp = con.getresponse()
    assert resp.getheader("content-type").startswith("text/event-stream")
    first = resp.readline()
    assert first.startswith(b"retry:")
    got = []

    def read():
        for _ in range(6):
            got.append(resp.readline())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(0.2)
    pub = http.client.HTTPConnection("127.0.0.1", live_club.port, timeout=5)
    import json as _json
    pub.request("POST", "/api/publish", body=_json.dumps(publication(1)), headers=bearer(token))
    assert pub.getresponse().status == 200
    reader.join(3)
    assert b"event: change\n" in got
    con.close()


def test_a_player_whose_name_has_a_slash_has_a_page(client, store):
    token = pair_over_http(client)
    client.post("/api/publish", json=publication(1, names=["Anne/Marie", "B", "C", "D"]), headers=bearer(token))
    assert client.get("/api/players/Anne%2FMarie").json()["stats"]["deals"] == 1
    assert "Anne/Marie" in client.get("/players/Anne%2FMarie").text


def test_a_refused_director_form_only_returns_to_a_director_page(client):
    client.post("/director/login", data={"password": PASSWORD})
    csrf = csrf_of(client.get("/director").text)
    r = client.post("/director/pair", data={"csrf": csrf, "code": "NOPE1", "_back": "https://evil.example/x"},
                    follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/director?e=")

"""The club store on SQLite and on a real PostgreSQL: pairing, publishing once, standings, corrections, migrations."""

from __future__ import annotations

import threading

import pytest

from device.club import schema
from device.club.db import Database, DatabaseError
from device.club.records import Refused, check_publication
from device.club.store import ClubStore
from engine.tarot.record import replay_record

from .helpers import PASSWORD, paired_token, publication


def test_migrations_bring_a_fresh_database_to_the_latest_version(db_target):
    db = Database(db_target)
    try:
        assert db.version() == schema.LATEST
        assert db.migrate() == []  # nothing left to apply
    finally:
        db.close()


def _publish_as_schema_2(db: Database, table_id: int, uid: str, publication_: dict) -> None:
    """A deal stored as the store of schema 2 stored it: a Trivium game's combination in ``contract``
    and its winner as the ``taker``."""
    checked = check_publication(publication_)
    contract = checked.contract if checked.game == "french-tarot" else checked.combination
    with db.transaction() as tx:
        if not tx.value("SELECT count(*) FROM sessions"):
            tx.execute("INSERT INTO sessions (name, started_at) VALUES ('Evening', 'now')")
        session = tx.value("SELECT max(id) FROM sessions")
        tx.execute("INSERT INTO deals (uid, table_id, session_id, round, game, record, original, contract, won, "
                   "received_at) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, 'now')",
                   (uid, table_id, session, checked.game, checked.record_json(), checked.record_json(), contract,
                    None if checked.won is None else int(checked.won)))
        deal_id = tx.value("SELECT id FROM deals WHERE uid = ?", (uid,))
        for s in checked.seats:
            tx.execute("INSERT INTO players (name, created_at) VALUES (?, 'now') ON CONFLICT (name) DO NOTHING",
                       (s.name,))
            player = tx.value("SELECT id FROM players WHERE name = ?", (s.name,))
            tx.execute("INSERT INTO deal_players (deal_id, seat, player_id, score, taker, partner) "
                       "VALUES (?, ?, ?, ?, ?, ?)", (deal_id, s.seat, player, s.score, int(s.taker or s.winner),
                                                     int(s.partner)))


def trivium_publication(seed: int, uid: str) -> dict:
    from engine.trivium.bot import random_game
    from engine.trivium.record import game_to_record

    game = random_game(["Ana", "Luis", "Marta"], seed=seed)
    return {"id": uid, "record": game_to_record(game), "scores": list(game.state.scores)}


def test_an_older_database_is_migrated_and_keeps_its_data(db_target):
    old = Database(db_target, upto=2)
    assert old.version() == 2
    store = ClubStore(old)
    number, token = paired_token(store)
    table = store.table_for_token(token)
    _publish_as_schema_2(old, table.id, "deal-1", publication(1))
    _publish_as_schema_2(old, table.id, "trivium-4", trivium_publication(4, "trivium-4"))  # Luis: GRAN MAESTRE
    old.close()
    new = Database(db_target)
    try:
        assert new.version() == schema.LATEST
        again = ClubStore(new)
        tarot, trivium = again.deals(again.current_session()["id"])
        expected = check_publication(publication(1))
        assert (tarot["game"], tarot["contract"], tarot["combination"]) == ("french-tarot", expected.contract, None)
        assert [s["taker"] for s in tarot["seats"]] == [s.taker for s in expected.seats]
        assert not any(s["winner"] for s in tarot["seats"])
        # the Trivium game moved to its own fields: no contract, no taker
        assert (trivium["game"], trivium["contract"], trivium["combination"]) == ("trivium", None, "gran_maestre")
        assert [(s["name"], s["taker"], s["winner"]) for s in trivium["seats"]] == [
            ("Ana", False, False), ("Luis", False, True), ("Marta", False, False)]
        luis = again.player("Luis")["stats"]
        took = sum(s.taker for s in expected.seats if s.name == "Luis")  # his French tarot deal only
        assert (luis["taken"], luis["won_games"], luis["by_combination"]) == (took, 1, {"gran_maestre": 1})
        again.set_director_password(PASSWORD)
        assert again.login(PASSWORD) is not None  # migration 2's table works
        again.publish(table, check_publication(trivium_publication(2, "trivium-2")))  # and the new code stores
        assert again.deals(again.current_session()["id"])[-1]["combination"] == "cuadrivium"
    finally:
        new.close()


def test_a_trivium_game_is_stored_in_its_own_fields(store):
    _, token = paired_token(store)
    table = store.table_for_token(token)
    store.publish(table, check_publication(trivium_publication(4, "t-4")))
    store.publish(table, check_publication(publication(1)))
    trivium, tarot = store.deals(store.current_session()["id"])
    assert (trivium["contract"], trivium["won"], trivium["combination"]) == (None, None, "gran_maestre")
    assert [s["winner"] for s in trivium["seats"]] == [False, True, False]
    assert not any(s["taker"] or s["partner"] for s in trivium["seats"])
    assert tarot["combination"] is None and tarot["contract"] == check_publication(publication(1)).contract
    stats = store.player("Luis")["stats"]
    assert stats["by_combination"] == {"gran_maestre": 1} and stats["won_games"] == 1
    assert "gran_maestre" not in stats["by_contract"]  # a Trivium game is no contract


def test_a_database_from_a_newer_tarotmate_is_refused(db_target):
    db = Database(db_target)
    with db.transaction() as tx:
        tx.execute("INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, 'future', 'now')",
                   (schema.LATEST + 1,))
    db.close()
    with pytest.raises(DatabaseError, match="newer Tarotmate"):
        Database(db_target)


def test_a_file_that_is_not_a_database_is_refused_clearly(tmp_path):
    bad = tmp_path / "club.db"
    bad.write_bytes(b"this is not SQLite at all" * 100)
    with pytest.raises(DatabaseError, match="not a club database"):
        Database(bad)


def test_pairing_gives_a_table_number_and_a_token_once(store):
    code, request = store.start_pairing("Window table")
    assert len(code) == 5
    assert store.collect_pairing(request) == {"status": "pending"}
    table = store.confirm_pairing(code.lower())  # the director may type it in lower case
    assert (table.number, table.name) == (1, "Window table")
    got = store.collect_pairing(request)
    assert got["status"] == "paired" and got["table"] == 1
    assert store.table_for_token(got["token"]) == table
    assert store.collect_pairing(request) is None  # the token is handed out once
    with pytest.raises(Refused, match="no table is waiting"):
        store.confirm_pairing(code)
    assert store.table_for_token("not-a-token") is None
    store.revoke_table(1)
    assert store.table_for_token(got["token"]) is None


def test_a_deal_is_stored_once_however_often_it_is_sent(store):
    _, token = paired_token(store)
    table = store.table_for_token(token)
    checked = check_publication(publication(7))
    first = store.publish(table, checked)
    assert first.status == "stored"
    again = store.publish(table, checked)
    assert (again.status, again.deal) == ("duplicate", first.deal)
    assert len(store.deals(first.session)) == 1


def test_the_same_id_with_another_record_is_refused(store):
    _, token = paired_token(store)
    table = store.table_for_token(token)
    store.publish(table, check_publication(publication(1, uid="x")))
    with pytest.raises(Refused, match="already published with another record"):
        store.publish(table, check_publication(publication(2, uid="x")))


def test_two_tables_may_use_the_same_id(store):
    t1 = store.table_for_token(paired_token(store, "A")[1])
    t2 = store.table_for_token(paired_token(store, "B")[1])
    assert store.publish(t1, check_publication(publication(1, uid="same"))).status == "stored"
    assert store.publish(t2, check_publication(publication(2, uid="same"))).status == "stored"


def test_concurrent_resends_store_the_deal_once(store):
    table = store.table_for_token(paired_token(store)[1])
    checked = check_publication(publication(3))
    answers, errors = [], []

    def send():
        try:
            answers.append(store.publish(table, checked).status)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(answers) == ["duplicate"] * 7 + ["stored"]


def test_standings_are_the_sum_of_the_replays(store):
    table = store.table_for_token(paired_token(store)[1])
    expected: dict[str, int] = {}
    for seed in range(12):
        pub = publication(seed, names=["Ana", "Luis", "Marta", "Pau"] if seed % 2 else ["Zoé", "Ana", "Hugo", "Pau"])
        store.publish(table, check_publication(pub))
        for name, score in zip(pub["record"]["names"], replay_record(pub["record"])["scores"]):
            expected[name] = expected.get(name, 0) + score
    sid = store.current_session()["id"]
    standings = store.standings(sid)
    assert {p["name"]: p["score"] for p in standings} == expected
    assert [p["score"] for p in standings] == sorted(expected.values(), reverse=True)
    assert {p["name"]: p["deals"] for p in standings}["Ana"] == 12


def test_a_correction_is_replayed_kept_and_changes_the_standings(store):
    table = store.table_for_token(paired_token(store)[1])
    stored = store.publish(table, check_publication(publication(1)))
    other = publication(2)
    store.correct(stored.deal, other["record"], other["scores"], "wrong trick entered")
    deal = store.deal(stored.deal)
    assert [s["score"] for s in deal["seats"]] == other["scores"]
    assert [c["kind"] for c in deal["corrections"]] == ["correct"]
    assert deal["corrections"][0]["before"]["tricks"] == publication(1)["record"]["tricks"]
    assert {p["name"]: p["score"] for p in store.standings(stored.session)} == dict(zip(
        other["record"]["names"], other["scores"]))
    with pytest.raises(Refused, match="do not replay"):
        store.correct(stored.deal, other["record"], [s + 1 for s in other["scores"]], "typo")
    with pytest.raises(Refused, match="say why"):
        store.correct(stored.deal, other["record"], other["scores"], "  ")


def test_a_voided_deal_leaves_the_standings_and_can_be_restored(store):
    table = store.table_for_token(paired_token(store)[1])
    a = store.publish(table, check_publication(publication(1)))
    store.publish(table, check_publication(publication(2)))
    store.set_voided(a.deal, True, "played with a misdealt pack")
    sid = a.session
    assert len(store.deals(sid)) == 1
    assert sum(p["deals"] for p in store.standings(sid)) == 4
    store.set_voided(a.deal, False, "the pack was fine")
    assert len(store.deals(sid)) == 2
    assert [c["kind"] for c in store.deal(a.deal)["corrections"]] == ["void", "restore"]


def test_evenings_and_rounds(store):
    table = store.table_for_token(paired_token(store)[1])
    first = store.publish(table, check_publication(publication(1)))  # the first deal opens an evening
    store.set_round(first.session, 2)
    second = store.publish(table, check_publication(publication(2)))
    assert (second.session, second.round) == (first.session, 2)
    new = store.open_session("Friday cup")
    third = store.publish(table, check_publication(publication(3)))
    assert third.session == new != first.session
    assert store.sessions()[0]["name"] == "Friday cup"
    assert store.sessions()[1]["closed_at"] is not None


def test_player_statistics_across_evenings(store):
    table = store.table_for_token(paired_token(store)[1])
    pubs = [publication(s) for s in range(6)]
    for i, p in enumerate(pubs):
        if i == 3:
            store.open_session("second")
        store.publish(table, check_publication(p))
    stats = store.player("Ana")["stats"]
    scores = [replay_record(p["record"])["scores"][0] for p in pubs]
    assert stats["deals"] == 6
    assert stats["running"][-1] == stats["total"] == sum(scores)
    assert [e["deals"] for e in stats["evenings"]] == [3, 3]
    taken = [p for p in pubs if p["record"]["taker"] == 0]
    assert stats["taken"] == len(taken)
    assert sum(c["taken"] for c in stats["by_contract"].values()) == len(taken)
    assert store.player("Nobody") is None


def test_director_login_needs_the_password(store):
    assert store.login("wrong password") is None
    login, csrf = store.login(PASSWORD)
    assert store.login_csrf(login) == csrf
    store.logout(login)
    assert store.login_csrf(login) is None

"""Group commit: many publications share one transaction, each answered on its own, only once on disk."""

from __future__ import annotations

import threading

import pytest

from device.club.committer import GroupCommit
from device.club.db import Database
from device.club.outbox import server_timing
from device.club.records import Refused, check_publication
from device.club.store import ClubStore

from .helpers import paired_token, publication


def test_a_batch_answers_each_deal_on_its_own(store):
    table = store.table_for_token(paired_token(store)[1])
    first = check_publication(publication(1, uid="a"))
    other_record_same_id = check_publication(publication(2, uid="a"))
    results = store.publish_many([(table, first), (table, first), (table, other_record_same_id),
                                  (table, check_publication(publication(3, uid="b")))])
    assert [getattr(r, "status", None) for r in results] == ["stored", "duplicate", None, "stored"]
    assert isinstance(results[2], Refused) and results[2].field == "id"
    sid = store.current_session()["id"]
    assert [d["uid"] for d in store.deals(sid)] == ["a", "b"]
    assert sum(p["deals"] for p in store.standings(sid)) == 8  # two deals of four players


def test_a_failed_batch_remembers_no_player(store):
    with pytest.raises(RuntimeError):
        with store._write() as tx:
            store._player_id(tx, "Ghost")
            raise RuntimeError("the transaction fails after the player was added")
    assert "Ghost" not in store._player_ids
    assert all(p["name"] != "Ghost" for p in store.players())


def test_concurrent_publications_are_committed_before_they_are_answered(db_target):
    db = Database(db_target)
    store = ClubStore(db)
    table = store.table_for_token(paired_token(store)[1])
    committer = GroupCommit(store)
    pubs = [check_publication(publication(seed, uid=f"deal-{seed % 30}")) for seed in range(30)]
    pubs += pubs[:10]  # resends while the first sends are in flight
    answers: list = []
    lock = threading.Lock()
    seen_on_disk: list[bool] = []

    def send(checked):
        stored = committer.publish(table, checked)
        other = Database(db_target)  # another connection sees it: it was committed before the answer
        try:
            seen_on_disk.append(ClubStore(other).deal(stored.deal) is not None)
        finally:
            other.close()
        with lock:
            answers.append((checked.uid, stored.status))

    threads = [threading.Thread(target=send, args=(p,)) for p in pubs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    committer.close()
    try:
        assert len(answers) == 40 and all(seen_on_disk)
        assert sorted(uid for uid, status in answers if status == "stored") == sorted(f"deal-{i}" for i in range(30))
        assert sum(status == "duplicate" for _, status in answers) == 10
        assert len(store.deals(store.current_session()["id"])) == 30
        assert committer.deals == 40 and 1 <= committer.batches <= 40
    finally:
        db.close()


def test_a_refusal_reaches_its_publication_only(store):
    table = store.table_for_token(paired_token(store)[1])
    committer = GroupCommit(store)
    try:
        assert committer.publish(table, check_publication(publication(1, uid="x"))).status == "stored"
        with pytest.raises(Refused, match="already published with another record"):
            committer.publish(table, check_publication(publication(2, uid="x")))
        assert committer.publish(table, check_publication(publication(3, uid="y"))).status == "stored"
    finally:
        committer.close()


def test_sqlite_readers_do_not_wait_for_the_writer(tmp_path):
    db = Database(tmp_path / "club.db")
    store = ClubStore(db)
    paired_token(store)
    inside, release, read = threading.Event(), threading.Event(), []

    def writer():
        with db.transaction() as tx:
            tx.execute("UPDATE club_tables SET name = 'Renamed'")
            inside.set()
            release.wait(10)

    w = threading.Thread(target=writer)
    w.start()
    inside.wait(10)
    r = threading.Thread(target=lambda: read.append(store.tables()[0]["name"]))
    r.start()
    r.join(5)
    release.set()
    w.join(10)
    try:
        assert read == ["Table 1"]  # read while the write was open: the last commit, without waiting
        assert store.tables()[0]["name"] == "Renamed"
    finally:
        db.close()


def test_server_timing_header_is_parsed_by_stage():
    assert server_timing("publish;dur=12.5, replay;dur=4, commit;desc=\"x\";dur=8.5") == {
        "publish": 0.0125, "replay": 0.004, "commit": 0.0085}
    assert server_timing("") == {} and server_timing("publish;dur=oops") == {}

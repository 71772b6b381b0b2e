"""The table's outbox: durable, retried until acknowledged, refusals kept, the table never blocked."""

from __future__ import annotations

from device.club.outbox import Outbox, Publisher, pair_with_server
from device.club.server import ClubApp

from .helpers import LiveServer, free_port, paired_token, publication, wait_for


def queue(outbox: Outbox, seed: int) -> str:
    p = publication(seed)
    return outbox.add(p["record"], p["scores"])


def test_the_outbox_survives_a_restart(tmp_path):
    box = Outbox(tmp_path / "outbox.db")
    a = queue(box, 1)
    box.add(publication(1)["record"], publication(1)["scores"], uid=a)  # the same id again: nothing new
    box.set_link(url="http://127.0.0.1:9", token="t")
    box.close()
    again = Outbox(tmp_path / "outbox.db")
    assert [i.uid for i in again.pending()] == [a]
    assert again.get_link("url") == "http://127.0.0.1:9"
    again.set_link(token=None)
    assert again.get_link("token") is None


def test_deals_wait_while_the_server_is_down_and_go_once_it_is_back(store, tmp_path):
    _, token = paired_token(store)
    port = free_port()
    box = Outbox(tmp_path / "outbox.db")
    publisher = Publisher(box, f"http://127.0.0.1:{port}", token, backoff_max=0.3).start()
    try:
        uids = [queue(box, s) for s in range(3)]  # the table plays on: adding never waits for the server
        assert wait_for(lambda: box.pending()[0].attempts >= 2, 5)  # retried, oldest first
        assert box.counts()["pending"] == 3
        club = ClubApp(store)
        server = LiveServer(club.build(), port=port).start()
        try:
            assert wait_for(lambda: box.counts()["acked"] == 3)
            deals = store.deals(store.current_session()["id"])
            assert [d["uid"] for d in deals] == uids
            uids.append(queue(box, 9))  # a later deal is sent at once
            assert wait_for(lambda: box.counts()["acked"] == 4, 5)
        finally:
            server.stop()
    finally:
        publisher.stop()


def test_a_refused_deal_is_kept_with_the_reason_and_not_resent(paired_table, store):
    box = Outbox(paired_table.outbox)
    refusals = []
    publisher = Publisher(box, box.get_link("url"), box.get_link("token"),
                          on_refused=lambda u, r: refusals.append((u, r))).start()
    try:
        bad = publication(2)
        uid = box.add(bad["record"], [s + 5 for s in bad["scores"]])
        good = queue(box, 3)
        assert wait_for(lambda: box.counts() == {"pending": 0, "acked": 1, "refused": 1})
        assert refusals and refusals[0][0] == uid and "do not replay" in refusals[0][1]
        assert box.refusals()[0][0] == uid
        assert [d["uid"] for d in store.deals(store.current_session()["id"])] == [good]
    finally:
        publisher.stop()


def test_an_unknown_token_keeps_the_deals_pending(live_club, tmp_path):
    box = Outbox(tmp_path / "outbox.db")
    publisher = Publisher(box, live_club.url, "revoked-token", backoff_max=0.2).start()
    try:
        queue(box, 1)
        assert wait_for(lambda: publisher.status.unpaired, 5)
        assert box.counts()["pending"] == 1
    finally:
        publisher.stop()


def test_pairing_shows_the_code_and_returns_the_token(live_club, store):
    import threading

    shown = []
    result = {}

    def table_side():
        result.update(pair_with_server(live_club.url, "Terrace", shown.append, poll_s=0.05, wait_s=10))

    t = threading.Thread(target=table_side)
    t.start()
    assert wait_for(lambda: shown, 5)
    store.confirm_pairing(shown[0])  # the director types the code
    t.join(10)
    assert result["table"] == 1 and store.table_for_token(result["token"]).name == "Terrace"

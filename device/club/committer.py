"""Group commit: the publications that arrive while one commit is being flushed go in the next.

Every acknowledged deal must survive a power cut, so each commit waits for the
disk (SQLite ``synchronous=FULL``, PostgreSQL ``synchronous_commit=on``). One
commit per publication makes a busy evening wait in line for the disk, one
flush after another. :class:`GroupCommit` has a single writer thread: it takes
every publication waiting in its queue (up to :data:`MAX_BATCH`), stores them
in one transaction (:meth:`ClubStore.publish_many`), and answers each only once
that transaction has committed. A table is never acknowledged before its deal
is on disk; under load, many deals share one flush.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Future

from device.club.records import CheckedDeal
from device.club.store import ClubStore, ClubTable, Stored

MAX_BATCH = 64


class GroupCommit:
    def __init__(self, store: ClubStore, max_batch: int = MAX_BATCH) -> None:
        self.store = store
        self.max_batch = max_batch
        self._queue: queue.SimpleQueue[tuple[ClubTable, CheckedDeal, Future] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self.batches = 0  # commits made
        self.deals = 0  # publications answered

    def submit(self, table: ClubTable, deal: CheckedDeal) -> Future:
        """Queue a checked deal; the future's result is its :class:`Stored` once committed
        (or the exception that refused it)."""
        future: Future = Future()
        self._ensure_started()
        self._queue.put((table, deal, future))
        return future

    def publish(self, table: ClubTable, deal: CheckedDeal) -> Stored:
        """:meth:`submit` and wait for the answer."""
        return self.submit(table, deal).result()

    def close(self, timeout: float = 5.0) -> None:
        """Answer what is queued, then stop the writer thread."""
        with self._start_lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join(timeout)

    def _ensure_started(self) -> None:
        if self._thread is None:
            with self._start_lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="club-group-commit", daemon=True)
                    self._thread.start()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            stop = False
            while len(batch) < self.max_batch:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
            self._commit(batch)
            if stop:
                return

    def _commit(self, batch: list[tuple[ClubTable, CheckedDeal, Future]]) -> None:
        try:
            results = self.store.publish_many([(t, d) for t, d, _ in batch])
            self.batches += 1
        except Exception:  # noqa: BLE001 - the whole transaction failed: each deal on its own, as before
            results = [self._alone(t, d) for t, d, _ in batch]
        for (_t, _d, future), result in zip(batch, results):
            if isinstance(result, Exception):
                future.set_exception(result)
            else:
                future.set_result(result)
        self.deals += len(batch)

    def _alone(self, table: ClubTable, deal: CheckedDeal) -> Stored | Exception:
        try:
            self.batches += 1
            return self.store.publish(table, deal)
        except Exception as exc:  # noqa: BLE001 - handed to the waiting request
            return exc

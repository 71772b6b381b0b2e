"""The table learns its deck as it plays: the views of cards whose name is proven go to the deck memory.

A view's name is proven when a player answers the question about it (it is
learned at once, ``answer``), or when the card was committed from the camera
and never disputed until the deal was scored (``confirmed``: kept aside
during the deal, learned when it is scored). Each view is tied to the
operation that put the card in the deal (``game/deal/index``), so an undo
takes back the views of the operations it undid, whether learned already or
kept aside. A deal closed without a score teaches nothing of what was kept
aside. See :mod:`vision.deck_memory` for the memory itself.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Callable

from engine.errors import TarotmateError
from vision.deck_memory import DeckMemory

# what a deck memory that cannot be written or read any more raises (a full or read-only disk, a file
# damaged or taken away during the game): the table stops learning, the game goes on
MEMORY_FAILURES = (sqlite3.Error, OSError, TarotmateError)


def ref_of(session, index: int) -> str:
    """The reference of operation ``index`` of the session's current deal."""
    return f"{session.game.id}/{session.deal.number}/{index}"


class TableLearner:
    """Feeds a :class:`DeckMemory` from the controller (see the module doc). A memory that fails
    (:data:`MEMORY_FAILURES`) stops the learning, said once through ``report``; the game goes on."""

    def __init__(self, memory: DeckMemory, report: Callable[[str], None] | None = None):
        self.memory = memory
        self.report = report
        self.stopped: str | None = None  # why the table stopped learning its deck (None: it learns)
        # (operation index, card, view, the model's probabilities of the view, its red ink) committed this deal
        self._aside: list[tuple[int, str, Any, Any, Any]] = []
        self._learned: list[int] = []  # operation indexes of this deal whose views are learned

    def _safely(self, what: Callable[[], Any], default: Any = None) -> Any:
        if self.stopped is not None:
            return default
        try:
            return what()
        except MEMORY_FAILURES as exc:
            self.stopped = f"the table stopped learning its deck ({exc})"
            if self.report is not None:
                self.report(self.stopped)
            return default

    def answered(self, session, card: str, view, index: int, probs=None, red=None) -> None:
        if view is not None and self._safely(
                lambda: self.memory.learn(card, view, "answer", ref_of(session, index), probs=probs, red=red), False):
            self._learned.append(index)

    def committed(self, session, card: str, view, index: int, probs=None, red=None) -> None:
        if view is not None:
            self._aside.append((index, card, view, probs, red))

    def undone(self, session, count: int) -> None:
        """The deal went back to ``count`` operations: what came after is forgotten."""
        self._aside = [a for a in self._aside if a[0] < count]
        for index in [i for i in self._learned if i >= count]:
            self._safely(lambda: self.memory.forget(ref_of(session, index)))
        self._learned = [i for i in self._learned if i < count]

    def renamed(self, session, index: int, wrong: str, right: str) -> None:
        """The card ``wrong`` of operation ``index`` was fixed as ``right``: a view kept aside
        under the wrong name now waits under the right one; one learned is forgotten."""
        self._aside = [(i, right if (i == index and c == wrong) else c, v, p, r) for i, c, v, p, r in self._aside]
        if index in self._learned:
            self._safely(lambda: self.memory.forget(ref_of(session, index)))
            self._learned.remove(index)

    def deal_scored(self, session) -> int:
        """The deal was scored: what was kept aside is proven. How many views were learned. What the
        memory's keypoint checks read of its views is found now, between two deals, rather than on
        the next deal's first cards (:meth:`vision.deck_memory.DeckMemory.derive`)."""
        views = [(card, view, ref_of(session, index), probs, red) for index, card, view, probs, red in self._aside]
        n = self._safely(lambda: self.memory.learn_many(views, "confirmed"), 0)
        if n:
            self._safely(self.memory.derive)
        self.new_deal()
        return n

    def forget_all(self) -> int | None:
        """The menu's "Forget the deck?": how many views went (None: the memory failed)."""
        n = self._safely(self.memory.reset)
        self.new_deal()
        return n

    def new_deal(self) -> None:
        self._aside.clear()
        self._learned.clear()


def known_cards(app) -> int | None:
    """How many cards the table knows by sight (None: it does not learn its deck)."""
    learner = getattr(app.controller, "learner", None)
    return None if learner is None else learner._safely(lambda: len(learner.memory.known_cards()))


def attach(controller, namer, log_path, report: Callable[[str], None] | None = None):
    """Let the table learn its deck: returns the namer to give the tracker (``namer`` weighed by
    the memory kept beside the deal log ``log_path``) and feeds the memory from ``controller``.
    A namer that gives no embeddings (the simulator's truth) is returned as it is, and nothing
    is learned. ``report``: where a memory failing during the game is said."""
    import numpy as np

    from vision.deck_memory import MemoryNamer, memory_path_beside
    from vision.enroll import model_id

    model = callable(getattr(namer, "run", None)) and getattr(namer, "labels", None) and hasattr(namer, "model_id")
    # an enrolled deck's profile (vision.enroll.PrototypeNamer): the memory settles what its views' keypoints tell
    profile = getattr(namer, "profile", None) is not None and callable(getattr(namer, "probabilities", None)) \
        and hasattr(namer, "embedder")
    if not (model or profile):
        return namer
    w, h = namer.input_size
    dimension = int(namer.embed([np.zeros((h, w, 3), np.uint8)]).shape[1])
    identity = str(namer.model_id) if model else model_id(namer.embedder)  # the model whose embeddings it keeps
    memory = DeckMemory(memory_path_beside(log_path), identity, dimension)
    learner = TableLearner(memory, report)
    learner._safely(memory.derive)  # what its keypoint checks read of its views, before the first card (kept in its file)
    controller.learner = learner
    session = controller.session
    session.on_deal_scored.append(learner.deal_scored)  # the deal is scored: its undisputed cards are proven
    return MemoryNamer(namer, memory, fuses=bool(model))

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

from typing import Any

from vision.deck_memory import DeckMemory


def ref_of(session, index: int) -> str:
    """The reference of operation ``index`` of the session's current deal."""
    return f"{session.game.id}/{session.deal.number}/{index}"


class TableLearner:
    """Feeds a :class:`DeckMemory` from the controller (see the module doc)."""

    def __init__(self, memory: DeckMemory):
        self.memory = memory
        # (operation index, card, view, the model's probabilities of the view) committed this deal
        self._aside: list[tuple[int, str, Any, Any]] = []
        self._learned: list[int] = []  # operation indexes of this deal whose views are learned

    def answered(self, session, card: str, view, index: int, probs=None) -> None:
        if view is not None and self.memory.learn(card, view, "answer", ref_of(session, index), probs=probs):
            self._learned.append(index)

    def committed(self, session, card: str, view, index: int, probs=None) -> None:
        if view is not None:
            self._aside.append((index, card, view, probs))

    def undone(self, session, count: int) -> None:
        """The deal went back to ``count`` operations: what came after is forgotten."""
        self._aside = [a for a in self._aside if a[0] < count]
        for index in [i for i in self._learned if i >= count]:
            self.memory.forget(ref_of(session, index))
        self._learned = [i for i in self._learned if i < count]

    def renamed(self, session, index: int, wrong: str, right: str) -> None:
        """The card ``wrong`` of operation ``index`` was fixed as ``right``: a view kept aside
        under the wrong name now waits under the right one; one learned is forgotten."""
        self._aside = [(i, right if (i == index and c == wrong) else c, v, p) for i, c, v, p in self._aside]
        if index in self._learned:
            self.memory.forget(ref_of(session, index))
            self._learned.remove(index)

    def deal_scored(self, session) -> int:
        """The deal was scored: what was kept aside is proven. How many views were learned."""
        n = self.memory.learn_many([(card, view, ref_of(session, index), probs)
                                    for index, card, view, probs in self._aside], "confirmed")
        self.new_deal()
        return n

    def new_deal(self) -> None:
        self._aside.clear()
        self._learned.clear()


def known_cards(app) -> int | None:
    """How many cards the table knows by sight (None: it does not learn its deck)."""
    learner = getattr(app.controller, "learner", None)
    return None if learner is None else len(learner.memory.known_cards())


def attach(controller, namer, log_path):
    """Let the table learn its deck: returns the namer to give the tracker (``namer`` weighed by
    the memory kept beside the deal log ``log_path``) and feeds the memory from ``controller``.
    A namer that gives no embeddings (the simulator's truth) is returned as it is, and nothing
    is learned."""
    import numpy as np

    from vision.deck_memory import MemoryNamer, memory_path_beside

    if not (callable(getattr(namer, "run", None)) and getattr(namer, "labels", None) and hasattr(namer, "model_id")):
        return namer
    w, h = namer.input_size
    dimension = int(namer.embed([np.zeros((h, w, 3), np.uint8)]).shape[1])
    memory = DeckMemory(memory_path_beside(log_path), str(namer.model_id), dimension)
    learner = TableLearner(memory)
    controller.learner = learner
    session = controller.session
    session.on_deal_scored.append(learner.deal_scored)  # the deal is scored: its undisputed cards are proven
    return MemoryNamer(namer, memory)

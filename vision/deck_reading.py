"""How surely the card model reads the deck in play: the table's running gauge.

A deck whose art the card model never learned can fool it in a way no single
view shows: it names most cards as a few look-alikes (a king, a trump) with
middling confidence, agreeing with itself from view to view, and the tracker's
bars for one card (votes that agree, a margin over the next card) let them
through. The deck as a whole shows it: of the cards the tracker decides at the
table, few have a view the model names surely. On a deck it reads (the shipped
deck, or a tarock it was never trained on) about half to nine in ten do, on a
deck it cannot read a few in a hundred (``benchmarks/bench_table.py --sequence
10 --table hard --deck DIR --trace T``; docs/tracking.md "A deck the model
cannot read").

:class:`DeckReading` keeps, for the latest cards decided, how surely the card
model alone (before the table's deck memory weighed it, with the game's
possible cards) named the best of each card's views; the tracker asks it
whether the deck is read (:meth:`DeckReading.unread`) before it commits a card
without a question. It lasts as long as the table plays with one deck: the demo
keeps one for all its scenes, the device one per tracker, and the table's deck
memory keeps it in its file through a restart (:class:`vision.deck_memory.KeptReading`).
Pure here: no image, no file.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Sequence

# a card read surely: the best of its views named at this much or more by the card model alone
READ_SURELY = 0.8
# the deck is judged once this many cards were decided (before: read, as the model's bars for one card say)
READ_CARDS = 12
# ... over the latest this many (a deck changed during an evening is judged again within them)
READ_WINDOW = 60


def best_reading(votes: Sequence) -> float:
    """How surely the card model named the best of a card's views: its own top probability for a
    card (not "no card"), before a deck memory weighed it (:attr:`vision.votes.Vote.model_top`),
    else the namer's (:attr:`vision.votes.Vote.top`); 0 without a view naming a card first."""
    best = 0.0
    for v in votes:
        top = v.model_top or v.top
        if top and top[0][0] is not None:
            best = max(best, float(top[0][1]))
    return best


@dataclass
class DeckReading:
    """The best view's reading (:func:`best_reading`) of the latest cards the tracker decided."""

    window: int = READ_WINDOW
    readings: deque = field(default_factory=deque)

    def decided(self, reading: float) -> None:
        """A card decided (committed or asked), its best view read this surely."""
        self.readings.append(float(reading))
        while len(self.readings) > max(1, self.window):
            self.readings.popleft()

    def sure_share(self) -> float | None:
        """The share of the latest cards read surely (``READ_SURELY``); None before ``READ_CARDS``."""
        if len(self.readings) < READ_CARDS:
            return None
        return sum(r >= READ_SURELY for r in self.readings) / len(self.readings)

    def unread(self, bar: float) -> bool:
        """Whether the deck in play is one the card model cannot read: under ``bar`` of the latest
        cards read surely (never before ``READ_CARDS`` cards, nor with ``bar`` 0)."""
        share = self.sure_share()
        return bar > 0 and share is not None and share < bar

    def reset(self) -> None:
        """Another deck: judged afresh."""
        self.readings.clear()


def reading_note(reading: DeckReading, unread: bool) -> str:
    """What the table says when it finds the card model cannot read the deck in play, or reads it again."""
    if not unread:
        return "the card model reads this deck again: its cards are named"
    share = reading.sure_share() or 0.0
    return (f"the card model cannot read this deck ({share:.0%} of the latest {len(reading.readings)} cards "
            f"read surely): its cards are asked, but those the table has learned by sight; enrol the deck "
            f"(tarotmate enroll NAME --from-dir DIR or --camera) to have it named")


class ReadingNews:
    """Says once when a tracker's judgement of the deck changes (:meth:`news`): the line the demo's
    log and the device's journal print, and the judgement last said (:attr:`unread`, what the
    device's ``STATUS=`` line carries while it lasts)."""

    def __init__(self) -> None:
        self.unread = False  # the deck was last said not to be read

    def news(self, tracker) -> str | None:
        """:func:`reading_note` when ``tracker`` judges the deck otherwise than last said, else None
        (a tracker without that judgement never finds the deck unread)."""
        judged = getattr(tracker, "deck_unread", None)
        unread = bool(judged()) if callable(judged) else False
        if unread == self.unread:
            return None
        self.unread = unread
        return reading_note(tracker.reading, unread)

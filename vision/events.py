"""Table events: what the tracker reports about the cards on the table.

The tracker knows nothing of rules: it says that a card appeared in a zone,
moved, was removed, that a zone was cleared, that a card lies somewhere but
could not be named with enough confidence (``uncertain``: a person confirms it),
or that a card it reported, seen surely at last, is another card (``renamed``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

APPEARED = "appeared"
MOVED = "moved"
REMOVED = "removed"
CLEARED = "cleared"
UNCERTAIN = "uncertain"
RENAMED = "renamed"
EVENT_TYPES = (APPEARED, MOVED, REMOVED, CLEARED, UNCERTAIN, RENAMED)
CARD_EVENT_TYPES = (APPEARED, MOVED, REMOVED, UNCERTAIN, RENAMED)


@dataclass(frozen=True)
class TableEvent:
    """One change on the table.

    * ``type``: one of ``EVENT_TYPES``.
    * ``frame`` / ``time``: the index and timestamp (seconds) of the frame at
      which the tracker decided (not the frame at which the card landed).
    * ``zone``: the zone's name (``"middle"``, ``"seat1"`` ...).
    * ``card``: the card code (``"H07"``) for ``appeared``, ``moved`` and
      ``removed`` of a named card, and the card's new name for ``renamed``;
      ``None`` for ``cleared``, for ``uncertain`` and for the removal of a card
      that was never named.
    * ``corners``: four ``[x, y]`` image points (clockwise, corner 0 to 1 a
      short edge) for card events, ``None`` for ``cleared`` and ``removed``.
    * ``confidence``: the mean confidence of the winning votes (``appeared``,
      ``moved``), of the best candidate (``uncertain``), else ``None``.
    * ``candidates``: for ``uncertain``, ``(card, confidence)`` pairs, best
      first (``card`` may be ``None``: "not a card face"); empty otherwise.
    * ``view``: for ``appeared`` and ``uncertain``, the card model's embedding
      of the card's best view, when the namer gives one (what the table's deck
      memory learns once the card's name is proven), and ``view_probs`` the
      namer's probabilities of that view (its labels' order, before the rules
      rescored them: what the memory calibrates itself on): the card model's,
      and once the memory weighs the namings the memory's own (fused); not part
      of :meth:`to_dict` nor of equality. ``view_red``: how red that view's ink is
      (:func:`vision.votes.red_ink`), when measured (what the memory tells the deck's red suits by).
    * ``toward``: for card events with corners, the seat (1-based, as the zone file numbers
      them) on whose side of its zone the card lies, when one is clear
      (:meth:`vision.zones.Zones.seat_toward`: players lay a trick's card in front of
      themselves); ``None`` otherwise. Not part of :meth:`to_dict` nor of equality.
    * ``excluded``: for ``uncertain``, ``(card, probability)``: the card the namer itself saw
      when the possible cards ruled it out (:func:`vision.votes.excluded_card`; a card already
      played, seen again), else ``None``. Not part of :meth:`to_dict` nor of equality.
    * ``was``: for ``renamed``, the card the tracker had reported (``card`` is what it
      is); ``None`` otherwise. In :meth:`to_dict` for ``renamed`` only.
    * ``unread``: for ``uncertain``, asked on a deck the card model cannot read
      (:meth:`vision.tracker.Tracker.deck_unread`: every card is asked there, the screen says
      why). Not part of :meth:`to_dict` nor of equality.
    """

    type: str
    frame: int
    time: float
    zone: str
    card: str | None = None
    corners: list[list[float]] | None = None
    confidence: float | None = None
    candidates: list[tuple[str | None, float]] = field(default_factory=list)
    view: Any = field(default=None, compare=False, repr=False)
    view_probs: Any = field(default=None, compare=False, repr=False)
    view_red: float | None = field(default=None, compare=False, repr=False)
    toward: int | None = field(default=None, compare=False)
    excluded: tuple[str, float] | None = field(default=None, compare=False)
    was: str | None = None
    unread: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        if self.type not in EVENT_TYPES:
            raise ValueError(f"unknown table event type {self.type!r}: expected one of {', '.join(EVENT_TYPES)}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with every field (tuples become lists)."""
        return {
            "type": self.type,
            "frame": self.frame,
            "time": round(self.time, 4),
            "zone": self.zone,
            "card": self.card,
            "corners": None if self.corners is None else [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "confidence": None if self.confidence is None else round(float(self.confidence), 4),
            "candidates": [[c, round(float(p), 4)] for c, p in self.candidates],
        } | ({"was": self.was} if self.type == RENAMED else {})

    def describe(self) -> str:
        """One readable line, e.g. ``frame 123  4.100 s  appeared   H07 in middle (0.98)``."""
        head = f"frame {self.frame:6d}  {self.time:8.3f} s  {self.type:<9s}"
        if self.type == CLEARED:
            return f"{head} {self.zone}"
        if self.type == UNCERTAIN:
            options = ", ".join(f"{c or 'not a card'} {p:.2f}" for c, p in self.candidates[:3])
            return f"{head} ? in {self.zone} (candidates: {options or 'none'})"
        what = self.card or "unnamed card"
        if self.type == RENAMED:
            what = f"{self.was} is {what}"
        conf = f" ({self.confidence:.2f})" if self.confidence is not None else ""
        return f"{head} {what} in {self.zone}{conf}"


def corners_list(quad: Sequence[Sequence[float]]) -> list[list[float]]:
    """Four ``[x, y]`` float pairs from any (4, 2) array-like."""
    return [[float(p[0]), float(p[1])] for p in quad]

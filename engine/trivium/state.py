"""The state of a Trivium game: immutable values, derived from the operations.

Where a card is, as far as the table knows:

* in a hand: ``Hand.known`` (dealt in a known deal, taken from the olla,
  received as El Loco from a thief, shown) or one of ``Hand.hidden`` unknown
  cards;
* in the pozo: ``pozo`` lists its cards top first, ``None`` for an unknown one;
* in the olla: ``olla``, bottom first (its last card is the top);
* laid in front of a seat: ``laid[seat]``.

Cards whose place is unknown form ``unseen``: they fill exactly the hidden
hand slots and the unknown pozo cards. With a known deal ``unseen`` is empty.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.cards import CODES
from engine.contract import IllegalOperation
from engine.trivium.combinations import Verdict
from engine.trivium.options import TriviumOptions



class Phase(StrEnum):
    """Where a game stands: before the deal, being played, finished."""

    DEAL = "deal"
    PLAY = "play"
    FINISHED = "finished"


PHASES = tuple(p.value for p in Phase)
_ORDER = {code: i for i, code in enumerate(CODES)}
LOCO = "EX"


def sort_codes(codes) -> tuple[str, ...]:
    """Codes in the canonical deck order (T01..T21, EX, S, H, D, C)."""
    return tuple(sorted(codes, key=_ORDER.__getitem__))


@dataclass(frozen=True, slots=True)
class Hand:
    """A seat's hand: the cards the table knows are there, and how many it does not."""

    known: tuple[str, ...] = ()
    hidden: int = 0

    @property
    def size(self) -> int:
        return len(self.known) + self.hidden

    def to_dict(self) -> dict:
        return {"known": list(self.known), "hidden": self.hidden}


@dataclass(frozen=True, slots=True)
class LaidGroup:
    """A group laid face up in front of a seat, validated as it was laid.

    ``valid`` says whether it is a tercia (or the XXI + Loco pair);
    ``reason`` is the sum or the fault (``"10 + 6 + 4 = 20, not 21"``);
    ``stolen_from`` is the seat it was taken from by El Loco, if so.
    """

    cards: tuple[str, ...]
    valid: bool
    reason: str
    stolen_from: int | None = None

    @property
    def is_pair(self) -> bool:
        return self.valid and len(self.cards) == 2

    def to_dict(self) -> dict:
        return {
            "cards": list(self.cards),
            "valid": self.valid,
            "reason": self.reason,
            "stolen_from": self.stolen_from,
        }


@dataclass(frozen=True, slots=True)
class Announcement:
    """An event for the table: what to show or say.

    ``kind`` is one of ``start``, ``tercia``, ``not_tercia``, ``withdraw``,
    ``steal``, ``reshuffle``, ``win``, ``no_winner``. A ``win`` carries the
    ``combination`` and ``points`` (``"Marta: TRIVIUM, 63"``).
    """

    kind: str
    seat: int | None
    player: str | None
    text: str
    combination: str | None = None
    points: int | None = None
    cards: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "seat": self.seat,
            "player": self.player,
            "combination": self.combination,
            "points": self.points,
            "cards": list(self.cards),
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class LocoStatus:
    """Where El Loco is and what became of its one steal.

    ``location``: ``hand``, ``laid``, ``olla``, ``pozo`` or ``unknown``;
    ``seat``: whose hand or laid group holds it (None elsewhere).
    """

    location: str
    seat: int | None
    steal_spent: bool
    thief: int | None
    robbed: int | None

    def to_dict(self) -> dict:
        return {
            "location": self.location,
            "seat": self.seat,
            "steal_spent": self.steal_spent,
            "thief": self.thief,
            "robbed": self.robbed,
        }


@dataclass(frozen=True, slots=True)
class SeatView:
    """What the table companion shows for one seat."""

    seat: int
    player: str
    hand: Hand
    laid: tuple[LaidGroup, ...]
    valid_tercias: int
    flagged: tuple[LaidGroup, ...]

    @property
    def hand_size(self) -> int:
        """How many cards the seat holds (known or not)."""
        return self.hand.size

    def to_dict(self) -> dict:
        return {
            "seat": self.seat,
            "player": self.player,
            "hand": self.hand.to_dict(),
            "hand_size": self.hand_size,
            "laid": [g.to_dict() for g in self.laid],
            "valid_tercias": self.valid_tercias,
        }


@dataclass(frozen=True, slots=True)
class TriviumState:
    """Everything about one game at one moment. Build it with :func:`initial_state`."""

    players: tuple[str, ...]
    options: TriviumOptions
    phase: str = "deal"
    dealer: int | None = None
    hands: tuple[Hand, ...] = ()
    pozo: tuple[str | None, ...] = ()
    olla: tuple[str, ...] = ()
    laid: tuple[tuple[LaidGroup, ...], ...] = ()
    turn: int | None = None
    exchanged: bool = False
    exchanges: int = 0
    thief: int | None = None
    robbed: int | None = None
    winner: int | None = None
    result: Verdict | None = None
    announcements: tuple[Announcement, ...] = ()

    # ------------------------------------------------------------------ derived

    @property
    def n(self) -> int:
        return len(self.players)

    def next_seat(self, seat: int) -> int:
        """The seat that plays after ``seat`` (to its right)."""
        return (seat + 1) % self.n

    @property
    def to_play(self) -> int | None:
        """The seat whose turn it is (None before the deal and once finished)."""
        return self.turn if self.phase == "play" else None

    @property
    def next_to_exchange(self) -> int | None:
        """The seat whose exchange is the next one (it ends the current turn)."""
        if self.phase != "play" or self.turn is None:
            return None
        return self.next_seat(self.turn) if self.exchanged else self.turn

    @property
    def steal_spent(self) -> bool:
        return self.thief is not None

    @property
    def olla_top(self) -> str | None:
        return self.olla[-1] if self.olla else None

    @property
    def pozo_size(self) -> int:
        return len(self.pozo)

    def valid_tercias(self, seat: int) -> int:
        return sum(1 for g in self.laid[seat] if g.valid)

    @property
    def hands_known(self) -> bool:
        """True when every card in every hand is known (a known deal)."""
        return all(h.hidden == 0 for h in self.hands)

    def located(self) -> dict[str, tuple[str, int | None]]:
        """Code -> (place, seat) for every card whose place is known."""
        where: dict[str, tuple[str, int | None]] = {}
        for seat, hand in enumerate(self.hands):
            for c in hand.known:
                where[c] = ("hand", seat)
        for seat, groups in enumerate(self.laid):
            for g in groups:
                for c in g.cards:
                    where[c] = ("laid", seat)
        for c in self.olla:
            where[c] = ("olla", None)
        for c in self.pozo:
            if c is not None:
                where[c] = ("pozo", None)
        return where

    @property
    def unseen(self) -> frozenset[str]:
        """Cards whose place is unknown (hidden hand slots or unknown pozo cards)."""
        if self.phase == "deal":
            return frozenset(CODES)
        return frozenset(CODES) - set(self.located())

    @property
    def loco(self) -> LocoStatus:
        place, seat = self.located().get(LOCO, ("unknown", None))
        return LocoStatus(place, seat, self.steal_spent, self.thief, self.robbed)

    def seat_view(self, seat: int) -> SeatView:
        groups = self.laid[seat] if self.laid else ()
        return SeatView(
            seat,
            self.players[seat],
            self.hands[seat] if self.hands else Hand(),
            groups,
            sum(1 for g in groups if g.valid),
            tuple(g for g in groups if not g.valid),
        )

    @property
    def seats(self) -> tuple[SeatView, ...]:
        return tuple(self.seat_view(s) for s in range(self.n))

    @property
    def scores(self) -> tuple[int, ...]:
        """Points of this game per seat: the winner's combination, 0 for the others."""
        points = self.result.points if self.result is not None else 0
        return tuple(points if s == self.winner else 0 for s in range(self.n))

    def summary(self) -> dict:
        """A JSON-ready picture of the table (what a screen or a log shows)."""
        return {
            "phase": self.phase,
            "dealer": self.dealer,
            "to_play": self.to_play,
            "next_to_exchange": self.next_to_exchange,
            "pozo_size": self.pozo_size,
            "olla": list(self.olla),
            "olla_top": self.olla_top,
            "seats": [v.to_dict() for v in self.seats],
            "loco": self.loco.to_dict(),
            "winner": self.winner,
            "combination": self.result.combination if self.result else None,
            "points": self.result.points if self.result else None,
            "scores": list(self.scores),
        }


def initial_state(players, options: TriviumOptions | None = None) -> TriviumState:
    """The state before the deal: 2 to 4 named players."""
    names = tuple(str(p) for p in players)
    if not 2 <= len(names) <= 4:
        raise IllegalOperation(f"Trivium is played by 2, 3 or 4 players, not {len(names)}", "players")
    if len(set(names)) != len(names):
        raise IllegalOperation("two players have the same name", "players")
    return TriviumState(names, options or TriviumOptions())

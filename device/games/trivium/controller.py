"""Trivium at the table: tercias laid in the seats' zones, discards onto the olla.

See :mod:`device.app.controller` for what a controller does with table
events and menu decisions.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any

from device.app.controller import (ALERT, APPLIED, INFO, MIDDLE, SKIPPED_CARD, Controller, Notice, PendingCard,
                                   seat_of_zone)
from device.app.decisions import decides
from device.app.session import GameSession
from engine.cards import CODES, card
from engine.trivium.combinations import completions, tercia_value
from engine.trivium.state import Phase
from vision.events import APPEARED, UNCERTAIN
from vision.possible import PossibleCards


@dataclass(frozen=True)
class TriviumNotice(Notice):
    """A notice that carries the engine's announcement (a tercia, a win...)."""

    announcement: Any = None


PAIR = frozenset({"T21", "EX"})


def discarding_seat(game) -> int | None:
    """The seat whose card lands on the olla next: the seat whose exchange is next (the seat
    to play before any exchange this turn)."""
    return game.next_to_exchange if game.next_to_exchange is not None else game.to_play


def starts_another(first: str, code: str) -> bool:
    """Whether ``code``, laid after ``first`` (the only card seen of a tercia), cannot be in
    that tercia but can be in another: no third card makes the two 21 (nor are they the XXI
    + Loco pair), and both are numbered cards or El Loco (a court is in no tercia)."""
    in_a_tercia = all(c.is_excuse or tercia_value(c) is not None for c in (card(first), card(code)))
    return in_a_tercia and frozenset((first, code)) != PAIR and not completions([first, code], CODES)


def laid_short(group: Sequence[str], code: str) -> bool:
    """Whether ``code``, laid by a seat after ``group`` (the cards seen of the tercia it is
    laying), shows that tercia laid short, the rest of it unseen: two cards seen (not the XXI +
    Loco pair), ``code`` cannot make them 21 while other cards could; one card seen,
    :func:`starts_another`."""
    if len(group) == 2 and frozenset(group) != PAIR:
        fits = completions(group, CODES)
        return bool(fits) and code not in fits
    return len(group) == 1 and starts_another(group[0], code)


def placed(where: dict, code: str) -> bool:
    """Whether ``code`` lies where the table knows it (the olla, a laid group), by the engine's
    ``state.located()`` map."""
    return where.get(code, ("", None))[0] in ("olla", "laid")


class TriviumController(Controller):
    """Trivium: tercias laid in the seats' zones, discards onto the olla.

    * Cards appearing in zone ``seatN`` are collected; three of them (or the
      XXI + Loco pair) are seat ``N-1``'s tercia.
    * A card appearing in the middle is the discard of the seat whose
      exchange it is: from the pozo, unless the olla's top card was just taken
      (``removed`` from the middle) or ``('exchange', 'olla')`` was chosen.
      Another seat's tercia still short then (a card of it laid unseen) is
      asked for first: its seat's turn is over (:meth:`seen_before_its_turn`).
    * The rest comes from the menus: ``('deal', starter)``, ``('exchange',
      'pozo'|'olla')``, ``('steal', seat, victim, group)``, ``('declare',
      seat, cards)``, ``('withdraw', seat, group)``, ``('pozo_empty', seat)``,
      a card the camera missed (``('lay_card', seat, code)`` in a seat's
      tercia, ``('correct_card', code)`` onto the olla) or any engine
      operation as ``('op', dict)``.
    """

    def __init__(self, session: GameSession):
        super().__init__(session)
        self.groups: dict[int, list[str]] = {}
        self.exchange_from: str | None = None
        self.declaring: tuple[int, list[str]] | None = None  # a declaration being shown
        self.let_be: dict[int, tuple[str, ...]] = {}  # short tercias whose question was dismissed ("not a card")
        self._asked_with: dict[int, int] = {}  # the cards a short tercia had when its card was last asked

    @property
    def game(self):
        return self.session.state

    def reset_collections(self) -> None:
        self.groups = {}
        self.exchange_from = None
        self.declaring = None
        self.let_be = {}
        self._asked_with = {}

    def apply(self, op: Any, what: str) -> list[Notice]:
        before = len(self.game.announcements)
        notices = super().apply(op, what)
        if notices and notices[0].kind == APPLIED:
            self._drop_placed()
            fresh = list(self.game.announcements)[before:]
            wins = [a for a in fresh if a.kind in ("win", "not_tercia")] or fresh[-1:]
            if wins:
                first = notices[0]
                notices = [TriviumNotice(first.kind, f"{first.text} · {wins[-1].text}", first.op, first.seat,
                                         first.card, first.rule, first.detail, first.why, announcement=wins[-1])]
        return notices

    def _drop_placed(self) -> None:
        """Out of the groups the camera is collecting: the cards an operation has just placed (a
        tercia entered from the menu with the card the camera saw of it, a declaration): left
        there, they would join the seat's next tercia."""
        where = self.game.state.located()
        for seat, group in list(self.groups.items()):
            kept = [c for c in group if not placed(where, c)]
            if kept:
                self.groups[seat] = kept
            else:
                del self.groups[seat]

    # ------------------------------------------------------------ the camera

    def possible_cards(self) -> PossibleCards | None:
        """Any card whose place the table does not know to be the olla or a laid tercia
        (the olla and the laid tercias are known), nor a group being laid."""
        game = self.game
        if game.phase is not Phase.PLAY:
            return None
        where = game.state.located()
        laying = {c for group in self.groups.values() for c in group}
        codes = [c for c in CODES if not placed(where, c) and c not in laying]
        return PossibleCards.of(codes) if codes else None

    def free_cards(self) -> list[str]:
        """The cards a player may still enter by hand: any whose place the table does not know
        (the olla, a laid tercia, a group being laid), in :data:`~engine.cards.CODES` order."""
        possible = self.possible_cards()
        return [c for c in CODES if possible is None or c in possible]

    def completing(self, seat: int) -> tuple[str, ...]:
        """The cards that would make the seat's tercia being laid 21 when two of its cards are
        seen (none otherwise: one card leaves too many)."""
        group = self._two_laid(f"seat{seat + 1}")
        return () if group is None else self._fits(group)

    @decides("card")
    def _decide_card(self, code: str) -> list[Notice]:
        """A card entered by hand: the discard of the seat whose exchange it is."""
        return self.card_seen(code, MIDDLE)

    @decides("lay_card")
    def _decide_lay_card(self, seat: int, code: str) -> list[Notice]:
        """A card of a tercia the camera did not see, entered by hand ("Card not seen…"): laid in
        that seat's zone, as if the camera had seen it there (its tercia is complete with it or
        waits for the rest)."""
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self.session.names):
            return [Notice(ALERT, f"a card laid by hand names no seat of this game: {seat!r}", card=code)]
        if code not in CODES:
            return [Notice(ALERT, f"a card laid by hand is no card: {code!r}")]
        return self.card_seen(code, f"seat{seat + 1}")

    def card_seen(self, code: str, zone: str) -> list[Notice]:
        game = self.game
        if self.session.deal_over:
            return [Notice(INFO, f"{code} seen after the end of the game: ignored", card=code)]
        if game.phase is not Phase.PLAY:
            return [Notice(ALERT, f"{code} seen before the game started: not expected now", card=code)]
        seat = seat_of_zone(zone)
        if self.declaring is not None and seat == self.declaring[0]:
            shown = self.declaring[1]
            if code not in shown:
                shown.append(code)
            return [Notice(INFO, f"{self._name(seat)} shows {' '.join(shown)}", seat=seat, card=code)]
        if seat is not None:
            return self._laid(seat, code)
        if zone == MIDDLE:
            return self._discard(code)
        return [Notice(INFO, f"{code} in {zone}: not a zone of the game", card=code)]

    def _laid(self, seat: int, code: str) -> list[Notice]:
        from engine.trivium import LayTercia

        if seat >= len(self.session.names):
            return [Notice(ALERT, f"{code} laid in the zone of seat {seat + 1}, who is not playing", card=code)]
        if placed(self.game.state.located(), code):
            return [Notice(INFO, f"{code} lies already in a laid group or the olla: not collected again",
                           seat=seat, card=code)]
        group = self.groups.setdefault(seat, [])
        if code in group:
            return [Notice(INFO, f"{code} is already in the group being laid", seat=seat, card=code)]
        group.append(code)
        if len(group) < 3 and frozenset(group) != PAIR:
            return [Notice(INFO, f"{self._name(seat)} lays {' '.join(group)}…", seat=seat, card=code)]
        cards = tuple(group)
        del self.groups[seat]
        return self.apply(LayTercia(seat, cards), f"{self._name(seat)} lays {' '.join(cards)}")

    def _discard(self, code: str) -> list[Notice]:
        from engine.trivium import DrawFromPozo, TakeFromOlla

        seat = discarding_seat(self.game)
        source, self.exchange_from = self.exchange_from or "pozo", None
        if source == "olla":
            return self.apply(TakeFromOlla(seat, code), f"{self._name(seat)} takes from the olla, discards {code}")
        return self.apply(DrawFromPozo(seat, code), f"{self._name(seat)} draws from the pozo, discards {code}")

    def seen_before_its_turn(self, event) -> list[Notice] | None:
        """A card discarded onto the olla by one seat while another seat's tercia is still short
        (one or two of its cards seen, the rest never): that seat's turn is over, so a card of its
        tercia was laid unseen. It is asked for, the cards that complete the tercia offered first
        (two cards seen leave one value, or El Loco); the discard waits for the answer. A card in a
        seat's zone may tell the same of that seat's own tercia (:meth:`_next_tercia`)."""
        game = self.game
        if (event.type not in (APPEARED, UNCERTAIN) or game.phase is not Phase.PLAY
                or self.declaring is not None or self.session.deal_over):
            return None
        if event.zone != MIDDLE:
            return self._next_tercia(event)
        seat = self._short_tercia(besides=discarding_seat(game))
        if seat is None:
            return None
        self.held.insert(0, event)
        return self._ask_short(seat)

    def _uncertain(self, event) -> list[Notice]:
        """An unclear card in a seat's zone where two cards of a tercia lie is, by the rules, one
        of the cards that make them 21: those the camera hesitated with come first, then the
        others, then the camera's other candidates (its best guess first only when it fits)."""
        notices = super()._uncertain(event)
        group = self._two_laid(event.zone)
        if not self.pending or group is None or self.pending[-1].zone != event.zone:
            return notices
        pending = self.pending[-1]
        fits = self._fits(group)
        if not fits:
            return notices
        seen = [(c, p) for c, p in pending.candidates if c is not None]
        first = [(c, p) for c, p in seen if c in fits]
        rest = [(c, 0.0) for c in fits if c not in dict(first)]
        pending.candidates = first + rest + [(c, p) for c, p in seen if c not in fits]
        if pending.possible is not None:
            order = [c for c, _ in pending.candidates]
            pending.possible = tuple(order) + tuple(c for c in pending.possible if c not in order)
        return notices

    def _next_tercia(self, event) -> list[Notice] | None:
        """A card laid in a seat's zone that cannot belong to the tercia being laid there: most
        likely the first card of the seat's next tercia, the rest of this one laid unseen. Two
        cards seen: the card cannot make them 21 while others could; one card seen: no third
        card makes the two 21 (and the new card may start a tercia). The missing card is asked
        for (the card just seen offered too: the player may have laid it there, a group the
        rules flag); the card waits."""
        seat, code = seat_of_zone(event.zone), event.card
        group = self.groups.get(seat, []) if seat is not None else []
        if (event.type != APPEARED or code is None or not group or code in group
                or self.let_be.get(seat) == tuple(group)):
            return None
        if not laid_short(group, code):
            return None
        self.held.insert(0, event)
        return self._ask_short(seat, laid=code)

    def _two_laid(self, zone: str) -> list[str] | None:
        """The two cards of a tercia being laid in ``zone`` (not the XXI + Loco pair, whole),
        else None."""
        seat = seat_of_zone(zone)
        group = self.groups.get(seat, []) if seat is not None else []
        return group if len(group) == 2 and frozenset(group) != PAIR else None

    def _fits(self, group: Sequence[str]) -> tuple[str, ...]:
        """The cards still possible (any, without the rules' help) that make ``group`` a tercia."""
        possible = self.possible_cards() if self.rules_help else None
        return completions(group, [c for c in CODES if possible is None or c in possible])

    def _short_tercia(self, besides: int | None) -> int | None:
        """The first seat but ``besides`` with a tercia being laid, short, not dismissed."""
        for seat in sorted(self.groups):
            group = self.groups[seat]
            if seat != besides and 0 < len(group) < 3 and self.let_be.get(seat) != tuple(group):
                return seat
        return None

    def _ask_short(self, seat: int, laid: str | None = None) -> list[Notice]:
        """Ask for the card a short tercia misses, the cards that complete it first (and, third,
        ``laid``: a card just seen there that does not)."""
        group = self.groups[seat]
        self._asked_with[seat] = len(group)
        offered = self._fits(group)
        seen = f"{' '.join(group)}, and {laid} does not make it 21" if laid else " ".join(group)
        order = list(offered)
        if laid:  # among the first choices on the OLED: the player may have laid that group
            order.insert(2, laid)
        return self.ask_missing(f"seat{seat + 1}", seat,
                                f"{self._name(seat)}'s tercia shows {seen}: which card was not seen?",
                                SKIPPED_CARD, candidates=[(c, 1.0 - 0.01 * k) for k, c in enumerate(order)])

    def after_resolved(self, pending: PendingCard) -> list[Notice]:
        """A short tercia's card answered: while it is still short (two cards were missed), the
        next one is asked, the discard still waiting; an answer that added no card to it (a card
        already in it) lets it be, as "Not a card" does."""
        seat = pending.seat
        group = self.groups.get(seat, []) if seat is not None else []
        if pending.reason != SKIPPED_CARD or not 0 < len(group) < 3:
            return []
        if self.held and not self.pending and len(group) > self._asked_with.get(seat, 0):
            return self._ask_short(seat)
        self.let_be[seat] = tuple(group)
        return []

    @decides("reject_card")
    def _decide_reject_card(self, *_: Any) -> list[Notice]:
        """"Not a card" on a short tercia's question: no card of it was missed (it is being laid
        still, or was taken back); it is not asked again while it stays as it is."""
        if self.pending and self.pending[0].reason == SKIPPED_CARD and self.pending[0].seat in self.groups:
            seat = self.pending[0].seat
            self.let_be[seat] = tuple(self.groups[seat])
        return super()._decide_reject_card()

    def card_renamed(self, was: str, code: str, zone: str) -> list[Notice]:
        """A card of a group still being laid, renamed by the camera: fixed in the group (it
        makes no operation until it is whole); else as every game does."""
        seat = seat_of_zone(zone)
        group = self.groups.get(seat) if seat is not None else None
        if group and was in group and code not in group:
            group.remove(was)
            return self._laid(seat, code)
        return super().card_renamed(was, code, zone)

    def card_removed(self, code: str | None, zone: str) -> list[Notice]:
        if zone == MIDDLE and code is not None and code == self.game.olla_top:
            self.exchange_from = "olla"
            return [Notice(INFO, f"{code} taken from the olla", card=code)]
        return []

    def zone_cleared(self, zone: str) -> list[Notice]:
        seat = seat_of_zone(zone)
        if seat is not None and self.groups.get(seat):
            group = self.groups.pop(seat)
            return [Notice(ALERT, f"{self._name(seat)} took back {' '.join(group)} before a tercia was complete",
                           seat=seat)]
        return []

    # ------------------------------------------------------------ the menus

    @decides("deal")
    def _decide_deal(self, starter: int, dealer: int | None = None) -> list[Notice]:
        from engine.trivium import Deal

        if dealer is None:
            dealer = self.session.deal.setup.get("dealer", 0)
        return self.apply(Deal(dealer, None, None, starter=starter), f"{self._name(starter)} starts")

    @decides("exchange")
    def _decide_exchange(self, source: str) -> list[Notice]:
        if source not in ("pozo", "olla"):
            return [Notice(ALERT, f"an exchange is from the pozo or the olla, not {source!r}")]
        self.exchange_from = source
        return [Notice(INFO, f"exchange from the {source}: show the discarded card")]

    @decides("steal")
    def _decide_steal(self, seat: int, victim: int, group: int) -> list[Notice]:
        from engine.trivium import Steal

        return self.apply(Steal(seat, victim, group), f"{self._name(seat)} steals from {self._name(victim)}")

    @decides("declare")
    def _decide_declare(self, seat: int, cards: Sequence[str] | None = None) -> list[Notice]:
        """With ``cards``: the declaration. Without (the menu): the cards are
        read from the camera as the player shows them in front of them, until
        ``('declare_done',)``."""
        from engine.trivium import Declare

        if cards is None:
            self.declaring = (seat, [])
            return [Notice(INFO, f"{self._name(seat)}: show the cards of the declaration, then OK", seat=seat)]
        self.declaring = None
        return self.apply(Declare(seat, tuple(cards)), f"{self._name(seat)} declares {' '.join(cards)}")

    @decides("declare_done")
    def _decide_declare_done(self, *_: Any) -> list[Notice]:
        if self.declaring is None:
            return [Notice(INFO, "no declaration is being shown")]
        seat, cards = self.declaring
        # the laid tercia a Gran Maestre may use is already on the table: the player's own valid groups count
        return self._decide_declare(seat, tuple(cards))

    @decides("withdraw")
    def _decide_withdraw(self, seat: int, group: int) -> list[Notice]:
        from engine.trivium import Withdraw

        return self.apply(Withdraw(seat, group), f"{self._name(seat)} takes back group {group + 1}")

    @decides("pozo_empty")
    def _decide_pozo_empty(self, seat: int, new_pozo: Sequence[str | None] | None = None) -> list[Notice]:
        from engine.trivium import PozoEmpty

        return self.apply(PozoEmpty(seat, None if new_pozo is None else tuple(new_pozo)), "the pozo is empty")

    @decides("op")
    def _decide_op(self, data: dict) -> list[Notice]:
        op = self.session.rules.op_from_dict(data)
        return self.apply(op, f"{data.get('op')}")

"""From what happens at the table to engine operations, phase by phase.

The tracker reports table events (``vision.events.TableEvent``: a card
appeared in a zone, a zone was cleared, an uncertain card...); the menus
report decisions (tuples such as ``('bid', 2, 'garde')``, see
``device.app.flows``). The controller turns both into operations of the engine
for the current phase and hands them to the :class:`GameSession`, which logs
them before the engine applies them. It never decides a rule itself:

* French tarot: while the chien is shown, cards appearing in the middle make
  the chien; during the play, a card appearing in the middle is the card of
  the seat the turn order says is next (``deal.to_play``).
* Trivium: three cards laid in a seat's zone (zone ``seatN`` is seat ``N-1``)
  are that seat's tercia; the rest of a turn comes from the buttons.
* An ``uncertain`` event waits for a ``('confirm_card', code)`` or
  ``('correct_card', code)`` decision; nothing is guessed.
* An operation the engine refuses produces an ``alert`` notice with the
  engine's reason; it is never dropped silently.
* ``('card', code)`` enters a card by hand: it is treated exactly like a card
  seen in the middle (or, in Trivium, see :class:`TriviumController`).

Decisions the controller understands, beyond ``device.app.flows``':
``('card', code)``, ``('chien', codes)``, ``('ecart', codes_or_None[, trumps_shown])``,
``('poignee', seat, level, shown)``, ``('misere', seat, kind)``,
``('petit_sec', seat)`` and, in Trivium, ``('op', operation_dict)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from device.app.session import GameSession
from engine.errors import TarotmateError
from vision.events import APPEARED, CLEARED, MOVED, REMOVED, UNCERTAIN, TableEvent

MIDDLE = "middle"
_SEAT_ZONE = re.compile(r"^seat(\d+)$")

APPLIED = "applied"
ALERT = "alert"
INFO = "info"
CONFIRM = "confirm"


@dataclass(frozen=True)
class Notice:
    """What the controller did with an event or decision, for the screens.

    ``kind``: ``applied`` (an operation was logged and applied), ``alert``
    (refused or impossible: shown with the buzzer), ``info`` (nothing to do),
    ``confirm`` (an uncertain card waits for the player)."""

    kind: str
    text: str
    op: Any = None
    seat: int | None = None
    card: str | None = None
    rule: str = ""
    detail: str = ""  # for an alert: the short reason the screen shows


@dataclass
class PendingCard:
    """An uncertain card waiting for the player's confirmation."""

    zone: str
    candidates: list[tuple[str | None, float]]
    corners: list[list[float]] | None = None

    @property
    def best(self) -> str | None:
        for code, _ in self.candidates:
            if code is not None:
                return code
        return None

    @property
    def confidence(self) -> float:
        return self.candidates[0][1] if self.candidates else 0.0

    @property
    def alternatives(self) -> tuple[str, ...]:
        best = self.best
        return tuple(c for c, _ in self.candidates if c is not None and c != best)


def seat_of_zone(zone: str) -> int | None:
    """Zone ``seatN`` belongs to seat ``N-1`` (zone names count from 1, as
    players do; engine seats count from 0)."""
    match = _SEAT_ZONE.match(zone or "")
    return int(match.group(1)) - 1 if match else None


@dataclass
class Controller:
    """Shared by both games: pending confirmations, undo, manual cards."""

    session: GameSession
    pending: list[PendingCard] = field(default_factory=list)
    history: list[Notice] = field(default_factory=list)

    # ------------------------------------------------------------ entry points

    def on_event(self, event: TableEvent) -> list[Notice]:
        try:
            notices = self._on_event(event)
        except TarotmateError as exc:  # e.g. a card code the engine does not know
            notices = [Notice(ALERT, f"{event.type} in {event.zone}: {exc}", card=event.card)]
        return self._remember(notices)

    def _on_event(self, event: TableEvent) -> list[Notice]:
        if event.type == UNCERTAIN:
            notices = self._uncertain(event)
        elif event.type == APPEARED and event.card:
            notices = self.card_seen(event.card, event.zone)
        elif event.type == CLEARED:
            notices = self.zone_cleared(event.zone)
        elif event.type == REMOVED:
            notices = self.card_removed(event.card, event.zone)
        elif event.type == MOVED:
            notices = []
        else:
            notices = [Notice(INFO, f"{event.type} in {event.zone}: nothing to do")]
        return notices

    def on_decision(self, decision: tuple) -> list[Notice]:
        if not decision:
            return []
        kind, args = decision[0], decision[1:]
        handler = getattr(self, f"_decide_{kind}", None)
        if handler is None:
            notices = [Notice(INFO, f"decision {kind!r} has no meaning in {self.session.rules.kind}")]
        else:
            try:
                notices = handler(*args)
            except TarotmateError as exc:  # a bad card code, a finished deal...
                notices = [Notice(ALERT, f"{kind}: {exc}")]
            except TypeError as exc:
                notices = [Notice(ALERT, f"decision {decision!r} is malformed ({exc})")]
        return self._remember(notices)

    def _remember(self, notices: list[Notice]) -> list[Notice]:
        self.history.extend(notices)
        del self.history[:-50]
        return notices

    # ------------------------------------------------------------ common

    def apply(self, op: Any, what: str) -> list[Notice]:
        """Log and apply ``op``; a refusal becomes an alert with the engine's reason."""
        result = self.session.apply(op)
        seat = getattr(op, "seat", None)
        card = getattr(op, "card", None)
        if result.ok:
            return [Notice(APPLIED, what, op, seat, card if isinstance(card, str) else None)]
        reason = result.refusal.reason
        return [Notice(ALERT, f"{what}: refused: {reason}", op, seat, card if isinstance(card, str) else None,
                       result.refusal.rule, detail=reason)]

    def _uncertain(self, event: TableEvent) -> list[Notice]:
        pending = PendingCard(event.zone, list(event.candidates), event.corners)
        self.pending.append(pending)
        best = pending.best or "?"
        return [Notice(CONFIRM, f"confirm the card in {event.zone}: {best}?", card=pending.best)]

    def _resolve(self, code: str) -> list[Notice]:
        if not self.pending:
            return [Notice(INFO, f"no card waits for confirmation ({code})")]
        pending = self.pending.pop(0)
        return self.card_seen(code, pending.zone)

    def _decide_confirm_card(self, code: str) -> list[Notice]:
        return self._resolve(code)

    def _decide_correct_card(self, code: str) -> list[Notice]:
        """With a card pending: that card really is ``code``. With nothing
        pending (the menu's "Correct a card"): enter ``code`` by hand, as the
        card the camera missed; a wrong card is fixed with undo, then this."""
        if not self.pending:
            return self._decide_card(code)
        return self._resolve(code)

    def _decide_card(self, code: str) -> list[Notice]:  # pragma: no cover - overridden
        raise NotImplementedError

    def _decide_reject_card(self, *_: Any) -> list[Notice]:
        if self.pending:
            self.pending.pop(0)
        return [Notice(INFO, "not a card: ignored")]

    def _decide_cancel(self, *_: Any) -> list[Notice]:
        return []

    def _decide_undo(self, *_: Any) -> list[Notice]:
        op = self.session.undo()
        self.reset_collections()
        if op is None:
            return [Notice(INFO, "nothing to undo in this deal")]
        return [Notice(APPLIED, f"undone: {op.to_dict()}", op)]

    def _decide_new_deal(self, *_: Any) -> list[Notice]:
        if not self.session.deal_over:
            return [Notice(ALERT, "the deal is not over: finish it (or undo) before a new deal")]
        if self.session.deal.finished is None:
            self.session.finish_deal()
        self.session.next_deal()
        self.reset_collections()
        return [Notice(APPLIED, f"deal {self.session.deal.number} starts")]

    def _decide_end_game(self, *_: Any) -> list[Notice]:
        """Close the game (a deal in progress is kept in the log without a
        score) and start a new one with the same players."""
        session = self.session
        if session.deal.finished is None:
            if session.deal_over:
                session.finish_deal()
            else:
                session.abandon_deal()
        totals = session.totals()
        session.finish_game()
        session.start_new_game()
        self.reset_collections()
        self.pending.clear()
        return [Notice(APPLIED, "game over: " + ", ".join(f"{n} {t:g}" for n, t in zip(session.names, totals)))]

    def reset_collections(self) -> None:
        """Forget half-seen groups (after an undo or a new deal)."""

    # ------------------------------------------------------------ per game

    def card_seen(self, code: str, zone: str) -> list[Notice]:  # pragma: no cover - overridden
        raise NotImplementedError

    def zone_cleared(self, zone: str) -> list[Notice]:
        return []

    def card_removed(self, code: str | None, zone: str) -> list[Notice]:
        return []


class TarotController(Controller):
    """French tarot: the chien, then each card of the play by turn order."""

    def __init__(self, session: GameSession):
        super().__init__(session)
        self.chien_seen: list[str] = []
        # a poignée announced from the menu: (seat, level, trumps needed, trumps seen)
        self.poignee_shown: tuple[int, str, int, list[str]] | None = None
        # trumps the taker shows while discarding them (they must be shown to the defence)
        self.ecart_shown: list[str] = []

    @property
    def deal(self):
        return self.session.state

    def reset_collections(self) -> None:
        self.chien_seen = []
        self.poignee_shown = None
        self.ecart_shown = []

    def _decide_card(self, code: str) -> list[Notice]:
        return self.card_seen(code, MIDDLE)

    def card_seen(self, code: str, zone: str) -> list[Notice]:
        from engine.tarot import Play

        if zone != MIDDLE:
            return [Notice(INFO, f"{code} in {zone}: only the middle counts in French tarot", card=code)]
        deal = self.deal
        if deal.phase == "chien":
            return self._chien_card(code)
        if deal.phase == "ecart" and code.startswith("T"):
            if code not in self.ecart_shown:
                self.ecart_shown.append(code)
            return [Notice(INFO, f"{code} shown with the écart", card=code)]
        if deal.phase == "play" and self.poignee_shown is not None:
            if code.startswith("T") or code == "EX":
                return self._poignee_card(code)
            seat, level, need, seen = self.poignee_shown
            self.poignee_shown = None
            notices = [Notice(ALERT, f"{level} poignée of {self._name(seat)}: only {len(seen)} of {need} "
                                     f"trumps shown before {code}; announce it again", seat=seat)]
            return notices + self.card_seen(code, zone)
        if deal.phase == "play":
            if code in deal.current_trick.cards:
                return [Notice(INFO, f"{code} is already in this trick", card=code)]
            seat = deal.to_play
            return self.apply(Play(seat, code), f"{self._name(seat)} plays {code}")
        return [Notice(ALERT, f"{code} seen during the {deal.phase}: not expected now", card=code)]

    def _chien_card(self, code: str) -> list[Notice]:
        from engine.tarot import RevealChien

        if code in self.chien_seen:
            return [Notice(INFO, f"{code} is already in the chien", card=code)]
        self.chien_seen.append(code)
        size = self.deal.chien_size
        if len(self.chien_seen) < size:
            return [Notice(INFO, f"chien: {len(self.chien_seen)} of {size} cards seen", card=code)]
        cards, self.chien_seen = tuple(self.chien_seen), []
        return self.apply(RevealChien(cards), f"chien: {' '.join(cards)}")

    def _poignee_card(self, code: str) -> list[Notice]:
        from engine.tarot import DeclarePoignee

        seat, level, need, seen = self.poignee_shown
        if code not in seen:
            seen.append(code)
        if len(seen) < need:
            return [Notice(INFO, f"poignée: {len(seen)} of {need} trumps seen", seat=seat, card=code)]
        self.poignee_shown = None
        return self.apply(DeclarePoignee(seat, level, tuple(seen)), f"{self._name(seat)}: {level} poignée")

    def zone_cleared(self, zone: str) -> list[Notice]:
        deal = self.deal
        if zone != MIDDLE:
            return []
        if deal.phase == "chien" and self.chien_seen:
            seen, self.chien_seen = self.chien_seen, []
            return [Notice(ALERT, f"the chien was taken with only {len(seen)} of {deal.chien_size} cards seen: "
                                  "show it again or enter it from the menu")]
        if deal.phase == "play" and deal.current_trick.cards:
            n = len(deal.current_trick.cards)
            return [Notice(ALERT, f"trick {deal.trick_number} swept with {n} of {deal.players} cards: "
                                  "enter the missing cards from the menu")]
        return []

    def card_removed(self, code: str | None, zone: str) -> list[Notice]:
        deal = self.deal
        if zone == MIDDLE and deal.phase == "play" and code and code in deal.current_trick.cards:
            return [Notice(INFO, f"{code} was taken back from the trick: use undo if it was not meant", card=code)]
        return []

    # ------------------------------------------------------------ decisions

    def _name(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        return self.session.names[seat] if seat < len(self.session.names) else f"seat {seat}"

    def _decide_bid(self, seat: int, bid: str) -> list[Notice]:
        from engine.tarot import Bid

        return self.apply(Bid(seat, bid), f"{self._name(seat)}: {bid}")

    def _decide_all_passed(self, *_: Any) -> list[Notice]:
        return [Notice(INFO, "everybody passed: redeal")] if self.deal.phase == "redeal" else []

    def _decide_call(self, code: str) -> list[Notice]:
        from engine.tarot import CallCard

        return self.apply(CallCard(code), f"called {code}")

    def _decide_chien(self, cards) -> list[Notice]:
        from engine.tarot import RevealChien

        self.chien_seen = []
        return self.apply(RevealChien(tuple(cards)), f"chien: {' '.join(cards)}")

    def _decide_ecart(self, cards=None, trumps_shown=None) -> list[Notice]:
        """The écart is made; its trumps are those given, else those the camera
        saw shown while the taker discarded."""
        from engine.tarot import Ecart

        if trumps_shown is None:
            trumps_shown = tuple(self.ecart_shown)
        self.ecart_shown = []
        op = Ecart(None if cards is None else tuple(cards), tuple(trumps_shown))
        return self.apply(op, "écart made" if cards is None else f"écart: {' '.join(cards)}")

    def _decide_chelem(self, *_: Any) -> list[Notice]:
        from engine.tarot import AnnounceChelem

        return self.apply(AnnounceChelem(), "chelem announced")

    def _decide_poignee(self, seat: int, level: str, shown=None) -> list[Notice]:
        """With ``shown``: the poignée's trumps. Without (the menu): the
        trumps are read from the camera as they are shown in the middle."""
        from engine.tarot import DeclarePoignee
        from engine.tarot.tables import POIGNEE_LEVELS, POIGNEE_THRESHOLDS

        if shown is None:
            if level not in POIGNEE_LEVELS:
                return [Notice(ALERT, f"unknown poignée level {level!r}")]
            need = POIGNEE_THRESHOLDS[self.deal.players][POIGNEE_LEVELS.index(level)]
            self.poignee_shown = (seat, level, need, [])
            return [Notice(INFO, f"{self._name(seat)}: show the {need} trumps of the {level} poignée", seat=seat)]
        return self.apply(DeclarePoignee(seat, level, tuple(shown)), f"{self._name(seat)}: {level} poignée")

    def _decide_misere(self, seat: int, kind: str) -> list[Notice]:
        from engine.tarot import DeclareMisere

        return self.apply(DeclareMisere(seat, kind), f"{self._name(seat)}: misère {kind}")

    def _decide_petit_sec(self, seat: int) -> list[Notice]:
        from engine.tarot import PetitSec

        return self.apply(PetitSec(seat), f"{self._name(seat)}: petit sec, redeal")


@dataclass(frozen=True)
class TriviumNotice(Notice):
    """A notice that carries the engine's announcement (a tercia, a win...)."""

    announcement: Any = None


PAIR = frozenset({"T21", "EX"})


class TriviumController(Controller):
    """Trivium: tercias laid in the seats' zones, discards onto the olla.

    * Cards appearing in zone ``seatN`` are collected; three of them (or the
      XXI + Loco pair) are seat ``N-1``'s tercia.
    * A card appearing in the middle is the discard of the seat whose
      exchange it is: from the pozo, unless the olla's top card was just taken
      (``removed`` from the middle) or ``('exchange', 'olla')`` was chosen.
    * The rest comes from the menus: ``('deal', starter)``, ``('exchange',
      'pozo'|'olla')``, ``('steal', seat, victim, group)``, ``('declare',
      seat, cards)``, ``('withdraw', seat, group)``, ``('pozo_empty', seat)``
      or any engine operation as ``('op', dict)``.
    """

    def __init__(self, session: GameSession):
        super().__init__(session)
        self.groups: dict[int, list[str]] = {}
        self.exchange_from: str | None = None
        self.declaring: tuple[int, list[str]] | None = None  # a declaration being shown

    @property
    def game(self):
        return self.session.state

    def reset_collections(self) -> None:
        self.groups = {}
        self.exchange_from = None
        self.declaring = None

    def apply(self, op: Any, what: str) -> list[Notice]:
        before = len(self.game.announcements)
        notices = super().apply(op, what)
        if notices and notices[0].kind == APPLIED:
            fresh = list(self.game.announcements)[before:]
            wins = [a for a in fresh if a.kind in ("win", "not_tercia")] or fresh[-1:]
            if wins:
                first = notices[0]
                notices = [TriviumNotice(first.kind, f"{first.text} · {wins[-1].text}", first.op, first.seat,
                                         first.card, first.rule, first.detail, announcement=wins[-1])]
        return notices

    def _name(self, seat: int | None) -> str:
        names = self.session.names
        return names[seat] if seat is not None and 0 <= seat < len(names) else f"seat {seat}"

    # ------------------------------------------------------------ the camera

    def _decide_card(self, code: str) -> list[Notice]:
        """A card entered by hand: the discard of the seat whose exchange it is."""
        return self.card_seen(code, MIDDLE)

    def card_seen(self, code: str, zone: str) -> list[Notice]:
        game = self.game
        if game.phase != "play":
            return [Notice(ALERT, f"{code} seen before the game started or after it ended", card=code)]
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

        seat = self.game.next_to_exchange
        if seat is None:
            seat = self.game.to_play
        source, self.exchange_from = self.exchange_from or "pozo", None
        if source == "olla":
            return self.apply(TakeFromOlla(seat, code), f"{self._name(seat)} takes from the olla, discards {code}")
        return self.apply(DrawFromPozo(seat, code), f"{self._name(seat)} draws from the pozo, discards {code}")

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

    def _decide_deal(self, starter: int, dealer: int | None = None) -> list[Notice]:
        from engine.trivium import Deal

        if dealer is None:
            dealer = self.session.deal.setup.get("dealer", 0)
        return self.apply(Deal(dealer, None, None, starter=starter), f"{self._name(starter)} starts")

    def _decide_exchange(self, source: str) -> list[Notice]:
        if source not in ("pozo", "olla"):
            return [Notice(ALERT, f"an exchange is from the pozo or the olla, not {source!r}")]
        self.exchange_from = source
        return [Notice(INFO, f"exchange from the {source}: show the discarded card")]

    def _decide_steal(self, seat: int, victim: int, group: int) -> list[Notice]:
        from engine.trivium import Steal

        return self.apply(Steal(seat, victim, group), f"{self._name(seat)} steals from {self._name(victim)}")

    def _decide_declare(self, seat: int, cards=None) -> list[Notice]:
        """With ``cards``: the declaration. Without (the menu): the cards are
        read from the camera as the player shows them in front of them, until
        ``('declare_done',)``."""
        from engine.trivium import Declare

        if cards is None:
            self.declaring = (seat, [])
            return [Notice(INFO, f"{self._name(seat)}: show the cards of the declaration, then OK", seat=seat)]
        self.declaring = None
        return self.apply(Declare(seat, tuple(cards)), f"{self._name(seat)} declares {' '.join(cards)}")

    def _decide_declare_done(self, *_: Any) -> list[Notice]:
        if self.declaring is None:
            return [Notice(INFO, "no declaration is being shown")]
        seat, cards = self.declaring
        # the laid tercia a Gran Maestre may use is already on the table: the player's own valid groups count
        return self._decide_declare(seat, tuple(cards))

    def _decide_withdraw(self, seat: int, group: int) -> list[Notice]:
        from engine.trivium import Withdraw

        return self.apply(Withdraw(seat, group), f"{self._name(seat)} takes back group {group + 1}")

    def _decide_pozo_empty(self, seat: int, new_pozo=None) -> list[Notice]:
        from engine.trivium import PozoEmpty

        return self.apply(PozoEmpty(seat, None if new_pozo is None else tuple(new_pozo)), "the pozo is empty")

    def _decide_op(self, data: dict) -> list[Notice]:
        op = self.session.rules.op_from_dict(data)
        return self.apply(op, f"{data.get('op')}")


def controller_for(session: GameSession) -> Controller:
    """The controller of the session's game."""
    if session.rules.kind == "french-tarot":
        return TarotController(session)
    if session.rules.kind == "trivium":
        return TriviumController(session)
    raise ValueError(f"no controller for {session.rules.kind}")

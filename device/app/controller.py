"""From what happens at the table to engine operations, phase by phase.

The tracker reports table events (``vision.events.TableEvent``: a card
appeared in a zone, a zone was cleared, an uncertain card...); the menus
report decisions (tuples such as ``('bid', 2, 'garde')``, see
``device.app.flows``). The controller turns both into operations of the engine
for the current phase and hands them to the :class:`GameSession`, which logs
them before the engine applies them. It never decides a rule itself:

* each game's controller (``device/games/<game>/controller.py``) knows what
  an event means in its phases. French tarot: while the chien is shown, cards
  appearing in the middle make the chien; during the play, a card appearing
  in the middle is the card of the seat the turn order says is next
  (``deal.to_play``). Trivium: three cards laid in a seat's zone (zone
  ``seatN`` is seat ``N-1``) are that seat's tercia; the rest of a turn comes
  from the buttons.
* :class:`Controller` here holds what every game shares: cards to confirm,
  undo, a card entered by hand, the next deal, the end of the game.
* An ``uncertain`` event waits for a ``('confirm_card', code)`` or
  ``('correct_card', code)`` decision; nothing is guessed. A card the table
  should have shown and did not (a trick swept short) is asked for the same
  way.
* :meth:`Controller.possible_cards` says, from the engine's state, which
  cards the camera may see now (and how likely each is); the app hands it to
  the tracker, and questions list possible cards only.
* An operation the engine refuses produces an ``alert`` notice with the
  engine's reason; it is never dropped silently.
* ``('card', code)`` enters a card by hand: it is treated exactly like a card
  seen in the middle (or, in Trivium, see its controller).

Decisions the controller understands, beyond ``device.app.flows``':
``('card', code)``, ``('chien', codes)``, ``('ecart', codes_or_None[, trumps_shown])``,
``('poignee', seat, level, shown)``, ``('misere', seat, kind)``,
``('petit_sec', seat)`` and, in Trivium, ``('op', operation_dict)``. Each is taken by
the controller's method marked ``@decides(kind)`` (:mod:`device.app.decisions`),
whose signature says the arguments: a decision that does not fit it is an alert
naming the argument, before the method runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from device.app.decisions import MalformedDecision, decides, handlers_of
from device.app.session import GameSession
from engine.errors import TarotmateError
from vision.events import APPEARED, CLEARED, MOVED, REMOVED, RENAMED, UNCERTAIN, TableEvent
from vision.possible import PossibleCards

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
    detail: str = ""  # for an alert: the short reason the screen shows (English)
    why: Any = None  # for a refusal: the engine's reason (engine.reasons.Reason), translated by the screen


UNCERTAIN_CARD = "uncertain"
MISSING_CARD = "missing"
SKIPPED_CARD = "skipped"  # a card seen on a later player's side before the card of the player to play
SEEN_AGAIN = "seen_again"  # an unclear card the camera saw as a card already played (one of the two is wrong)
EARLIER_CARD = "earlier"  # then: the earlier card, which the camera got wrong, to fix where it lies
HOLDING = (UNCERTAIN_CARD, SKIPPED_CARD, SEEN_AGAIN, EARLIER_CARD)  # questions the camera's later events wait behind


@dataclass
class PendingCard:
    """A card waiting for the player: an uncertain one to confirm, or a missing one to name.

    ``possible``: the cards it may be, best first (``None``: any card);
    ``seat``: whose card it is, when the game knows."""

    zone: str
    candidates: list[tuple[str | None, float]]
    corners: list[list[float]] | None = None
    possible: tuple[str, ...] | None = None
    seat: int | None = None
    reason: str = UNCERTAIN_CARD
    asked_at: int = 0  # operations in the deal when it was asked
    view: Any = None  # the camera's best view of it (for the deck memory, once answered)
    view_probs: Any = None  # the namer's probabilities of that view, before the rules (the memory calibrates on them)
    view_red: float | None = None  # how red that view's ink is (the memory tells the deck's red suits by it)
    again: str | None = None  # SEEN_AGAIN: the card already played the camera saw; EARLIER_CARD: the card to fix
    fix_index: int | None = None  # EARLIER_CARD: the deal's operation that holds ``again``
    trick: int | None = None  # EARLIER_CARD: the trick (or the game's place) of that operation, for the screen
    origin: Any = None  # EARLIER_CARD: the SEEN_AGAIN question it follows (the card now on the table)
    unread: bool = False  # asked because the card model cannot read the deck in play (TableEvent.unread)

    @property
    def best(self) -> str | None:
        for code, _ in self.candidates:
            if code is not None:
                return code
        return self.possible[0] if self.possible else None

    @property
    def confidence(self) -> float:
        return self.candidates[0][1] if self.candidates else 0.0

    @property
    def alternatives(self) -> tuple[str, ...]:
        """The other cards it may be, best first: the camera's, then (with the rules) the
        most likely possible ones."""
        best = self.best
        seen = tuple(c for c, _ in self.candidates if c is not None and c != best)
        if self.possible is None:
            return seen
        return seen + tuple(c for c in self.possible if c != best and c not in seen)


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
    rules_help: bool = True  # whether the rules narrow the camera's and the questions' cards
    prompts: int = 0  # questions asked (uncertain or missing cards)
    asked: list[str] = field(default_factory=list)  # each question's reason, in order (len == prompts)
    answered: list[tuple[Any, str]] = field(default_factory=list)  # (corners, code) of uncertain cards answered
    fixed: list[tuple[Any, str, str]] = field(default_factory=list)  # (corners, was, code) of reported cards fixed in place
    reported: dict[str, Any] = field(default_factory=dict, repr=False)  # where the camera's card was seen (its event's corners)
    learner: Any = None  # device.app.deck_learning.TableLearner: the table learns its deck (None: it does not)
    held: list[TableEvent] = field(default_factory=list)  # the camera's events after a card waiting to be confirmed
    seat_sides: bool = True  # a trick's card lies on its player's side of the middle (TableEvent.toward)
    unchecked: TableEvent | None = field(default=None, repr=False)  # taken as seen (its question was dismissed)
    aside: TableEvent | None = field(default=None, repr=False)  # an unclear quad kept until the next event (sets_aside)
    no_card: list[TableEvent] = field(default_factory=list, repr=False)  # unclear quads the next event showed were none

    # ------------------------------------------------------------ entry points

    def on_event(self, event: TableEvent) -> list[Notice]:
        if self.held or self._holding():
            # a card waits to be confirmed: what the camera saw after it waits too, in order (the
            # next card played is the next seat's, not the unconfirmed card's)
            self.held.append(event)
            return self._remember([Notice(INFO, f"{event.type} in {event.zone} waits for the card to be confirmed",
                                          card=event.card)])
        return self._handle_event(event)

    def _after_aside(self, event: TableEvent) -> list[Notice]:
        """The event after an unclear quad set aside: it shows the quad was no card (dropped, no
        question), or the quad is asked about first and ``event`` waits behind it."""
        aside, self.aside = self.aside, None
        if self.aside_was_no_card(aside, event):
            self.no_card.append(aside)
            dropped = self._remember([Notice(INFO, f"the unclear quad in {aside.zone} was no card, "
                                                   f"by what the camera saw next")])
            return dropped + self._handle_event(event)
        self.held.insert(0, event)
        return self._handle_event(aside, aside_checked=True) + self._release_held()

    def sets_aside(self, event: TableEvent) -> bool:
        """Whether ``event`` (an unclear quad) waits for the next event before it is asked: a
        game that knows where each seat lays its cards keeps back a quad lying where nobody
        lays one (:meth:`aside_was_no_card`). Games without turns ask at once."""
        return False

    def aside_was_no_card(self, aside: TableEvent, event: TableEvent) -> bool:
        """Whether ``event``, the next after the unclear quad ``aside``, shows that ``aside`` was
        no card (then it is dropped; else it is asked about, and ``event`` waits behind it)."""
        return False

    def _holding(self) -> bool:
        return any(p.reason in HOLDING for p in self.pending)

    def _handle_event(self, event: TableEvent, *, aside_checked: bool = False) -> list[Notice]:
        if self.aside is not None:
            return self._after_aside(event)
        if not aside_checked and self.seat_sides and self.sets_aside(event):
            self.aside = event
            return self._remember([Notice(INFO, f"an unclear quad in {event.zone} between two players' cards: "
                                                 "the next card says whether it was one")])
        early = self.seen_before_its_turn(event) if self.seat_sides and event is not self.unchecked else None
        if early is not None:
            return self._remember(early)
        try:
            notices = self._on_event(event)
        except TarotmateError as exc:  # e.g. a card code the engine does not know
            notices = [Notice(ALERT, f"{event.type} in {event.zone}: {exc}", card=event.card)]
        self.card_placed(event.corners, notices)
        taken = event.type == APPEARED and any(n.kind == APPLIED and n.card == event.card for n in notices)
        if taken and event.corners is not None:
            self.reported[event.card] = event.corners
        if taken and self.learner is not None and event.view is not None:
            self.learner.committed(self.session, event.card, event.view, self.session.operations_count - 1,
                                   event.view_probs, event.view_red)
        if any(n.kind == APPLIED for n in notices):
            # the camera saw what a question asked for (a swept card put back): the question is moot
            count = self.session.operations_count
            self.pending = [p for p in self.pending if p.reason != MISSING_CARD or p.asked_at >= count]
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
        elif event.type == RENAMED and event.card and event.was:
            notices = self.card_renamed(event.was, event.card, event.zone)
        else:
            notices = [Notice(INFO, f"{event.type} in {event.zone}: nothing to do")]
        return notices

    def on_decision(self, decision: tuple) -> list[Notice]:
        if not decision:
            return []
        kind, args = decision[0], tuple(decision[1:])
        handler = handlers_of(type(self)).get(kind)
        if handler is None:
            notices = [Notice(INFO, f"decision {kind!r} has no meaning in {self.session.rules.kind}")]
        else:
            try:
                notices = handler.take(self, args)  # the arguments are checked first: a handler's own
            except MalformedDecision as exc:        # errors are not taken for a malformed decision
                notices = [Notice(ALERT, f"decision {decision!r} is malformed ({exc.argument}: {exc.problem})")]
            except TarotmateError as exc:  # a bad card code, a finished deal...
                notices = [Notice(ALERT, f"{kind}: {exc}")]
        notices = self._remember(notices)
        return notices + self._release_held()

    def _release_held(self) -> list[Notice]:
        """The events held behind a card to confirm, in order, once none waits (until one of
        them asks again)."""
        notices: list[Notice] = []
        while self.held and not self._holding():
            notices += self._handle_event(self.held.pop(0))
        return notices

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
                       result.refusal.rule, detail=reason, why=getattr(result.refusal, "why", None))]

    def _uncertain(self, event: TableEvent) -> list[Notice]:
        if self.session.deal_over:
            return [Notice(INFO, f"an unclear card in {event.zone} after the end of the deal: ignored")]
        possible = self.possible_cards() if self.rules_help else None
        candidates = list(event.candidates)
        if possible is not None:
            candidates = [(c, p) for c, p in candidates if c is None or c in possible]
        pending = PendingCard(event.zone, candidates, event.corners, self.question_cards(possible, candidates),
                              view=event.view, view_probs=event.view_probs, view_red=event.view_red,
                              unread=event.unread)
        again = self.seen_again(event)
        if again is not None:
            # the camera saw a card already played: this card, or the earlier one, is wrong; the
            # question offers it first, and the earlier card is fixed if the player says it is
            code, p, seat, where = again
            pending.reason, pending.again = SEEN_AGAIN, code
            pending.candidates = [(code, p)] + [(c, q) for c, q in candidates if c != code]
            if pending.possible is not None:
                pending.possible = (code,) + tuple(c for c in pending.possible if c != code)
            self.pending.append(pending)
            self.prompts += 1
            self.asked.append(SEEN_AGAIN)
            return [Notice(CONFIRM, f"{code} again? It was {self._name(seat)}'s card in {where}: "
                                    f"confirm the card in {event.zone}", card=code)]
        self.pending.append(pending)
        self.prompts += 1
        self.asked.append(UNCERTAIN_CARD)
        best = pending.best or "?"
        return [Notice(CONFIRM, f"confirm the card in {event.zone}: {best}?", card=pending.best)]

    def seen_again(self, event: TableEvent) -> tuple[str, float, int | None, str] | None:
        """An unclear card the camera saw as a card the deal already holds (``event.excluded``):
        (that card, the camera's probability, its seat, where it lies in words, e.g.
        ``"trick 3"``); None when the game has no such card (the default)."""
        return None

    def earlier_choices(self, code: str, index: int) -> tuple[str, ...] | None:
        """The cards the earlier card ``code`` of operation ``index`` may really have been, most
        likely first (``None``: any card)."""
        return None

    def _name(self, seat: int | None) -> str:
        """The seat's player's name, for the notices (``seat N`` when the game has no such player)."""
        names = self.session.names
        return names[seat] if seat is not None and 0 <= seat < len(names) else f"seat {seat}"

    def _resolve_again(self, pending: PendingCard, code: str) -> list[Notice] | None:
        """The answers that a card seen again needs (see :meth:`seen_again`); None: answered as usual."""
        if pending.reason == SEEN_AGAIN and code == pending.again:
            again = self.seen_again_at(code)
            if again is None:
                return None  # no longer in the deal (fixed meanwhile): this card is simply it
            index, seat, where, trick = again
            follow = PendingCard(pending.zone, [], None, self.earlier_choices(code, index), seat, EARLIER_CARD,
                                 self.session.operations_count, again=code, fix_index=index, trick=trick, origin=pending)
            self.pending.insert(0, follow)
            self.prompts += 1
            self.asked.append(EARLIER_CARD)
            return [Notice(CONFIRM, f"this card is {code}: which card did {self._name(seat)} play in {where}?",
                           seat=seat)]
        if pending.reason != EARLIER_CARD:
            return None
        if code == pending.again:
            self.pending.insert(0, pending)  # asked again: the card cannot be both
            return [Notice(ALERT, f"{code} cannot be both cards: which card did {self._name(pending.seat)} play?",
                           seat=pending.seat, card=code)]
        # an earlier card, no longer lying where the camera saw it (the card there now is the new one)
        fixed = self._fix_card(pending.fix_index, pending.again, code, lying=False)
        if not fixed or fixed[-1].kind != APPLIED:
            self.pending.insert(0, pending)  # refused (the deal would not replay): asked again
            return fixed
        origin = pending.origin
        if origin.corners is not None:
            self.answered.append((origin.corners, pending.again))
        seen = self.card_seen(pending.again, origin.zone)
        self.card_placed(origin.corners, seen)
        if self.learner is not None and origin.view is not None and any(n.kind == APPLIED and n.card == pending.again for n in seen):
            self.learner.answered(self.session, pending.again, origin.view, self.session.operations_count - 1,
                                  origin.view_probs, origin.view_red)
        return fixed + seen + self.after_resolved(origin)

    def seen_again_at(self, code: str) -> tuple[int, int | None, str, int | None] | None:
        """Where the deal holds ``code``: (operation index, seat, where in words, trick); None: nowhere."""
        return None

    def card_placed(self, corners: list[list[float]] | None, notices: list[Notice]) -> None:
        """The camera saw a card at ``corners`` and ``notices`` say what was done with it (a
        game whose players lay their cards on their own side learns where each seat lays them)."""

    def seen_before_its_turn(self, event: TableEvent) -> list[Notice] | None:
        """A card lying on a later player's side while another is to play (``event.toward``):
        the game asks for the card of the player to play and holds ``event`` until it is
        answered; ``None``: the event is taken as it comes. Games without turns in one zone
        take every event as it comes."""
        return None

    def ask_skipped(self, event: TableEvent, zone: str, seat: int, what: str) -> list[Notice]:
        """``event``'s card came before the card of ``seat``: ask for that card, and take
        ``event`` (and what the camera sees after it) once it is answered."""
        self.held.insert(0, event)
        return self.ask_missing(zone, seat, what, SKIPPED_CARD)

    def ask_missing(self, zone: str, seat: int | None, what: str, reason: str = MISSING_CARD,
                    candidates: Sequence[tuple[str, float]] = ()) -> list[Notice]:
        """A card the table should have shown and did not: ask the player which it was (the
        possible cards offered, ``candidates`` first: what the camera made of unclear views)."""
        possible = self.possible_cards() if self.rules_help else None
        pending = PendingCard(zone, [], None, self.question_cards(possible, list(candidates)), seat, reason,
                              self.session.operations_count)
        self.pending.append(pending)
        self.prompts += 1
        self.asked.append(reason)
        return [Notice(CONFIRM, what, seat=seat)]

    @staticmethod
    def question_cards(possible: PossibleCards | None, candidates) -> tuple[str, ...] | None:
        """The cards a question offers: the camera's candidates first, then the other
        possible cards, most likely first (``None``: any of the 78)."""
        if possible is None:
            return None
        scores = {c: 2.0 + p for c, p in candidates if c is not None}
        return tuple(possible.best_first({c: scores.get(c, w) for c, w in possible.weights.items()}))

    def _resolve(self, code: str) -> list[Notice]:
        if not self.pending:
            return [Notice(INFO, f"no card waits for confirmation ({code})")]
        pending = self.pending.pop(0)
        again = self._resolve_again(pending, code)
        if again is not None:
            return again
        if pending.corners is not None:
            self.answered.append((pending.corners, code))  # for the tracker: that card is ``code``
            self.reported[code] = pending.corners
        seen = self.card_seen(code, pending.zone)
        self.card_placed(pending.corners, seen)
        if self.learner is not None and pending.view is not None and any(n.kind == APPLIED and n.card == code for n in seen):
            self.learner.answered(self.session, code, pending.view, self.session.operations_count - 1, pending.view_probs,
                                  pending.view_red)
        return seen + self.after_resolved(pending)

    def after_resolved(self, pending: PendingCard) -> list[Notice]:
        """After a question was answered (a game may ask the next missing card)."""
        return []

    def possible_cards(self) -> PossibleCards | None:
        """The cards the camera may see now, with their likelihood (``None``: any card).
        Rules-free vision receives it (:attr:`vision.tracker.Tracker.possible`)."""
        return None

    @decides("confirm_card")
    def _decide_confirm_card(self, code: str) -> list[Notice]:
        return self._resolve(code)

    @decides("forget_deck")
    def _decide_forget_deck(self, *_: Any) -> list[Notice]:
        """The menu's "Forget the deck?": the table's deck memory starts again."""
        if self.learner is None:
            return [Notice(INFO, "the table does not learn its deck")]
        n = self.learner.forget_all()
        if n is None:
            return [Notice(INFO, self.learner.stopped or "the table does not learn its deck")]
        return [Notice(INFO, f"the table forgot its deck ({n} views)")]

    @decides("fix_card")
    def _decide_fix_card(self, index: int, wrong: str, right: str) -> list[Notice]:
        """The card ``wrong`` of the deal's operation ``index`` really is ``right``: the
        operation is replaced in place (the chien, the écart or a trick is not entered again)."""
        return self._fix_card(index, wrong, right, lying=True)

    def _fix_card(self, index: int, wrong: str, right: str, lying: bool) -> list[Notice]:
        """:meth:`_decide_fix_card`; ``lying``: the card may still lie where the camera saw it as
        ``wrong``, and the tracker is told it is ``right`` (:attr:`fixed`)."""
        from device.app.fixes import swap_card

        ops = self.session.state.operations
        if not 0 <= index < len(ops):
            return [Notice(ALERT, f"fix a card: there is no operation {index + 1} in this deal")]
        fixed = swap_card(ops[index], wrong, right)
        if fixed is None:
            return [Notice(ALERT, f"fix a card: operation {index + 1} holds no {wrong}")]
        result = self.session.replace(index, fixed)
        seat = getattr(fixed, "seat", None)
        if not result.ok:
            return [Notice(ALERT, f"fix {wrong} as {right}: refused: {result.refusal}", fixed, seat, right,
                           result.refusal.rule, detail=str(result.refusal), why=getattr(result.refusal, "why", None))]
        if self.learner is not None:
            self.learner.renamed(self.session, index, wrong, right)
        corners = self.reported.pop(wrong, None)
        if corners is not None:
            self.reported[right] = corners
            if lying:
                self.fixed.append((corners, wrong, right))  # for the tracker: the card it saw there as ``wrong`` is ``right``
        return [Notice(APPLIED, f"fixed: {wrong} is {right}", fixed, seat, right)]

    @decides("correct_card")
    def _decide_correct_card(self, code: str) -> list[Notice]:
        """With a card pending: that card really is ``code``. With nothing
        pending (the menu's "Correct a card"): enter ``code`` by hand, as the
        card the camera missed; a wrong card is fixed with undo, then this."""
        if not self.pending:
            return self._decide_card(code)
        return self._resolve(code)

    @decides("card")
    def _decide_card(self, code: str) -> list[Notice]:  # pragma: no cover - overridden
        raise NotImplementedError

    @decides("reject_card")
    def _decide_reject_card(self, *_: Any) -> list[Notice]:
        if self.pending:
            pending = self.pending.pop(0)
            if pending.reason == SKIPPED_CARD and self.held:
                self.unchecked = self.held[0]  # no card was skipped: the card it waited behind comes as seen
        return [Notice(INFO, "not a card: ignored")]

    @decides("cancel")
    def _decide_cancel(self, *_: Any) -> list[Notice]:
        return []

    @decides("undo")
    def _decide_undo(self, *_: Any) -> list[Notice]:
        op = self.session.undo()
        if self.learner is not None:
            self.learner.undone(self.session, self.session.operations_count)
        self.reset_collections()
        if op is None:
            return [Notice(INFO, "nothing to undo in this deal")]
        return [Notice(APPLIED, f"undone: {op.to_dict()}", op)]

    @decides("new_deal")
    def _decide_new_deal(self, *_: Any) -> list[Notice]:
        if not self.session.deal_over:
            return [Notice(ALERT, "the deal is not over: finish it (or undo) before a new deal")]
        if self.session.deal.finished is None:
            self.session.finish_deal()
        if self.session.match_over:
            return [Notice(INFO, self.game_over_text() + "; end the game to start a new one")]
        self.session.next_deal()
        self.reset_collections()
        self.reported.clear()  # the last deal's cards are swept
        return [Notice(APPLIED, f"deal {self.session.deal.number} starts")]

    @decides("end_game")
    def _decide_end_game(self, *_: Any) -> list[Notice]:
        """Close the game (a deal in progress is kept in the log without a
        score) and start a new one with the same players."""
        session = self.session
        if self.learner is not None:
            self.learner.new_deal()  # a deal closed without a score proves nothing
        session.close_game()
        totals = session.totals()
        session.start_new_game()
        self.reset_collections()
        self.reported.clear()
        self.pending.clear()
        self.held.clear()
        self.aside = None
        return [Notice(APPLIED, "game over: " + ", ".join(f"{n} {t:g}" for n, t in zip(session.names, totals)))]

    def game_over_text(self) -> str:
        """``game over: Ana wins with 1012 (Ana 1012, Luis -340, …)`` once the target is reached."""
        session = self.session
        match = session.match
        names = session.names
        totals = ", ".join(f"{n} {t:g}" for n, t in zip(names, match.totals))
        if match.winner is None:
            return f"game over: a tie ({totals})"
        return f"game over: {names[match.winner]} wins with {match.totals[match.winner]:g} ({totals})"

    def reset_collections(self) -> None:
        """Forget half-seen groups (after an undo or a new deal)."""

    # ------------------------------------------------------------ per game

    def card_seen(self, code: str, zone: str) -> list[Notice]:  # pragma: no cover - overridden
        raise NotImplementedError

    def zone_cleared(self, zone: str) -> list[Notice]:
        return []

    def card_removed(self, code: str | None, zone: str) -> list[Notice]:
        return []

    def card_renamed(self, was: str, code: str, zone: str) -> list[Notice]:
        """The camera saw surely, at last, that the card it had reported as ``was`` is ``code``
        (a ``renamed`` event): the deal's operation that holds ``was`` is fixed in place
        (:meth:`_decide_fix_card`, the latest such operation), unless the deal already holds
        ``code`` (one of the two namings is wrong: the player fixes it if need be). A game
        that collects cards before they make an operation (the chien) fixes them there."""
        from device.app.fixes import latest_holding

        ops = self.session.state.operations
        if latest_holding(ops, code) is not None:
            return [Notice(INFO, f"the camera now sees {code} where it saw {was}, but the deal "
                                 f"already holds {code}: {was} kept", card=was)]
        index = latest_holding(ops, was)
        if index is None:
            return [Notice(INFO, f"the camera now sees {code} where it saw {was}: no {was} in the deal", card=code)]
        return self._fix_card(index, was, code, lying=False)  # the tracker renamed it itself


def controller_for(session: GameSession) -> Controller:
    """The controller of the session's game."""
    return session.rules.controller(session)

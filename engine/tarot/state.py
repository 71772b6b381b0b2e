"""One deal of French tarot as a state machine.

``TarotDeal`` is built from the number of players, the dealer and the
options, and optionally the known hands and chien (tests, simulator). It
moves through its phases by operations (``engine.tarot.operations``):

    bidding ─▶ calling (5 players) ─▶ chien ─▶ ecart ─▶ play ─▶ done
       └──▶ redeal (everyone passed, or a petit sec)

(garde sans / garde contre skip chien and ecart). ``can(op)`` says why an
operation is not allowed (None when it is), ``apply(op)`` applies it or raises
:class:`IllegalOperation` and leaves the state untouched, ``undo()`` removes
the last one. Everything else (whose turn it is, tricks, winners, partner,
violations, live target, the result) is derived from the operations.

Hands hidden (the real table): a play is accepted when it is physically
possible (a card not yet seen, by the seat whose turn it is); what the cards
later prove illegal is reported in ``violations``. Hands known: an illegal
play is refused with the rule it breaks.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Iterable, Mapping, Sequence

from engine.cards import Card
from engine.contract import GameState, IllegalOperation, Refusal
from engine.reasons import Reason
from engine.errors import TarotmateError
from engine.tarot.evidence import (BEFORE_PLAY, Constraint, Evidence, Violation, audit_tricks,
                                   play_constraint, proven_facts)
from engine.tarot.legality import NO_LEAD_RULES, LeadRules, legal_plays
from engine.tarot.operations import (AnnounceChelem, Bid, CallCard, DeclareMisere,
                                     DeclarePoignee, Ecart, Operation, PetitSec, Play,
                                     RevealChien)
from engine.tarot.options import FFT, TarotOptions
from engine.tarot.scoring import DealResult, FinishedTrick, count_cards, score_deal
from engine.tarot.tables import (CHIEN_SIZE, CODE, CONTRACT_LABEL, CONTRACTS, COURTS, EXCUSE,
                                 HAND_SIZE, KINGS, MONDE, OUDLER, PETIT, POIGNEE_LEVELS,
                                 POIGNEE_THRESHOLDS, RANK, SUIT, TARGETS, TRUMP, index_of,
                                 trick_winner_index)



class Phase(StrEnum):
    """Where a deal stands (see the module's docstring)."""

    BIDDING = "bidding"
    CALLING = "calling"
    CHIEN = "chien"
    ECART = "ecart"
    PLAY = "play"
    DONE = "done"
    REDEAL = "redeal"


PHASES = tuple(p.value for p in Phase)


class _Refusal(Exception):
    def __init__(self, rule: str, why: Reason) -> None:
        super().__init__(str(why))
        self.rule = rule
        self.why = why
        self.message = str(why)


def _refuse(rule: str, template: str, **args: Any) -> None:
    """Refuse with ``rule`` and a reason: ``template`` (a message id, see
    :mod:`engine.reasons`) filled with ``args``."""
    raise _Refusal(rule, Reason(template, args))


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick as the public API shows it (cards as codes, number from 1)."""

    number: int
    leader: int
    seats: tuple[int, ...]
    cards: tuple[str, ...]
    winner: int | None  # None while the trick is in progress

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"leader": self.leader, "cards": list(self.cards)}
        if self.winner is not None:
            d["winner"] = self.winner
        return d


@dataclass(frozen=True, slots=True)
class LiveTarget:
    """Where the attack stands during play (for the table's screen)."""

    contract: str
    oudlers: int
    needed: int
    has: float
    tricks_left: int

    def text(self) -> str:
        has = f"{self.has:g}"
        bouts = "bout" if self.oudlers == 1 else "bouts"
        return (f"{CONTRACT_LABEL[self.contract]} · {self.oudlers} {bouts} · needs {self.needed}"
                f" · has {has} · {self.tricks_left} tricks left")

    def to_dict(self) -> dict[str, Any]:
        return {"contract": self.contract, "oudlers": self.oudlers, "needed": self.needed,
                "has": self.has, "tricks_left": self.tricks_left}


@dataclass(frozen=True, slots=True)
class Poignee:
    seat: int
    level: str
    shown: tuple[str, ...]
    trick: int  # the trick of the seat's first card


class TarotDeal(GameState[Operation]):
    """One French tarot deal: build it, apply operations, read the state."""

    Phase = Phase

    def __init__(self, players: int, dealer: int = 0, options: TarotOptions | Mapping | None = None,
                 *, names: Sequence[str] | None = None,
                 hands: Mapping[int, Iterable[str | Card]] | None = None,
                 chien: Iterable[str | Card] | None = None, audit: bool = False) -> None:
        if players not in HAND_SIZE:
            raise TarotmateError(f"players: French tarot is played by 3, 4 or 5, not {players!r}")
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players:
            raise TarotmateError(f"dealer: expected a seat 0..{players - 1}, got {dealer!r}")
        if options is None:
            options = FFT
        elif not isinstance(options, TarotOptions):
            options = TarotOptions.from_dict(options)
        self.players = players
        self.dealer = dealer
        self.options: TarotOptions = options
        self.names: tuple[str, ...] | None = None
        if names is not None:
            names = tuple(str(n) for n in names)
            if len(names) != players:
                raise TarotmateError(f"names: expected {players} names, got {len(names)}")
            self.names = names
        self.audit_mode = audit
        self.hand_size = HAND_SIZE[players]
        self.chien_size = CHIEN_SIZE[players]
        self._initial_hands = self._validate_hands(hands or {})
        self._initial_chien = self._validate_chien(chien)
        super().__init__()
        self._restart()

    # ------------------------------------------------------------------ setup
    def _validate_hands(self, hands: Mapping[int, Iterable[str | Card]]) -> dict[int, frozenset[int]]:
        out: dict[int, frozenset[int]] = {}
        seen: dict[int, int] = {}
        for seat, cs in hands.items():
            if not isinstance(seat, int) or not 0 <= seat < self.players:
                raise TarotmateError(f"hands: seat {seat!r} is not 0..{self.players - 1}")
            ints = [index_of(c) for c in cs]
            if len(ints) != self.hand_size:
                raise TarotmateError(f"hands[{seat}]: expected {self.hand_size} cards, got {len(ints)}")
            for c in ints:
                if c in seen:
                    raise TarotmateError(f"hands[{seat}]: {CODE[c]} is also in hands[{seen[c]}]"
                                         if seen[c] != seat else f"hands[{seat}]: {CODE[c]} twice")
                seen[c] = seat
            out[seat] = frozenset(ints)
        return out

    def _validate_chien(self, chien: Iterable[str | Card] | None) -> frozenset[int] | None:
        if chien is None:
            return None
        ints = [index_of(c) for c in chien]
        if len(ints) != self.chien_size or len(set(ints)) != len(ints):
            raise TarotmateError(f"chien: expected {self.chien_size} distinct cards")
        for c in ints:
            for seat, h in self._initial_hands.items():
                if c in h:
                    raise TarotmateError(f"chien: {CODE[c]} is also in hands[{seat}]")
        return frozenset(ints)

    def _restart(self) -> None:
        n = self.players
        self._phase = "bidding"
        self._bids: list[tuple[int, str]] = []
        self._petit_sec: int | None = None
        self._taker: int | None = None
        self._contract: str | None = None
        self._called: int | None = None
        self._chien: frozenset[int] | None = self._initial_chien
        self._chien_seen = False
        self._ecart: frozenset[int] | None = None
        self._ecart_trumps: frozenset[int] = frozenset()
        self._ecart_done = False
        self._chelem_announced = False
        self._poignees: list[Poignee] = []
        self._misere: list[tuple[int, str]] = []
        self._hands: dict[int, set[int]] = {s: set(h) for s, h in self._initial_hands.items()}
        self._owner: dict[int, tuple[int, Reason]] = {}  # card -> (seat, why) known not played yet
        for s, h in self._initial_hands.items():
            for c in h:
                self._owner[c] = (s, Reason("in {seat}'s hand", {"seat": s}))
        self._out: dict[int, Reason] = {}              # card -> why it cannot be played
        self._played_at: dict[int, tuple[int, int]] = {}  # card -> (trick number, seat)
        self._count = [0] * n
        self._tricks: list[FinishedTrick] = []
        self._lead_rules: list[list[LeadRules]] = []
        self._cur_leader = (self.dealer + 1) % n
        self._cur_seats: list[int] = []
        self._cur_cards: list[int] = []
        self._cur_rules: list[LeadRules] = []
        self._trumps_broken = False
        self._partner: int | None = None
        self._violations: list[Violation] = []
        self._evidence = Evidence(n)

    # ------------------------------------------------------------ properties
    @property
    def operations(self) -> tuple[Operation, ...]:
        return tuple(self._operations)

    @property
    def phase(self) -> Phase:
        return Phase(self._phase)

    @property
    def taker(self) -> int | None:
        return self._taker

    @property
    def contract(self) -> str | None:
        return self._contract

    @property
    def called_card(self) -> str | None:
        return None if self._called is None else CODE[self._called]

    @property
    def partner(self) -> int | None:
        """5 players: the partner once the called card is played (None: unknown or alone)."""
        return self._partner

    @property
    def chelem_announced(self) -> bool:
        return self._chelem_announced

    @property
    def chien_seen(self) -> bool:
        """True once the chien was turned face up (prise, garde) with its cards known."""
        return self._chien_seen

    @property
    def miseres(self) -> tuple[tuple[int, str], ...]:
        """The misères declared: (seat, ``atout`` or ``tete``)."""
        return tuple(self._misere)

    @property
    def bids(self) -> tuple[tuple[int, str], ...]:
        return tuple(self._bids)

    @property
    def chien(self) -> tuple[str, ...] | None:
        """The chien when known (given, or turned face up)."""
        return None if self._chien is None else tuple(CODE[c] for c in sorted(self._chien))

    @property
    def ecart(self) -> tuple[str, ...] | None:
        return None if self._ecart is None else tuple(CODE[c] for c in sorted(self._ecart))

    @property
    def poignees(self) -> tuple[Poignee, ...]:
        return tuple(self._poignees)

    @property
    def to_speak(self) -> int | None:
        """The seat whose bid is expected (bidding phase)."""
        if self._phase != "bidding":
            return None
        return (self.dealer + 1 + len(self._bids)) % self.players

    @property
    def to_play(self) -> int | None:
        """The seat expected to play next (play phase), from the turn order."""
        if self._phase != "play":
            return None
        return (self._cur_leader + len(self._cur_cards)) % self.players

    @property
    def trick_number(self) -> int:
        """The number (from 1) of the trick in progress or about to start."""
        return len(self._tricks) + 1

    @property
    def current_trick(self) -> Trick:
        return Trick(len(self._tricks) + 1, self._cur_leader, tuple(self._cur_seats),
                     tuple(CODE[c] for c in self._cur_cards), None)

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The finished tricks, with their winners."""
        return tuple(Trick(i + 1, t.leader, t.seats, tuple(CODE[c] for c in t.cards), t.winner)
                     for i, t in enumerate(self._tricks))

    @property
    def violations(self) -> tuple[Violation, ...]:
        return tuple(self._violations)

    @property
    def played(self) -> dict[str, tuple[int, int]]:
        """Cards played so far: code -> (trick number, seat)."""
        return {CODE[c]: v for c, v in self._played_at.items()}

    def proven(self, seat: int) -> list[str]:
        """What the cards have proven about a hidden seat's hand, in words
        (e.g. ``["no hearts since trick 4", "no trump above T12 since trick 6"]``)."""
        self._check_seat_arg(seat)
        return proven_facts(self._evidence.constraints[seat])

    def proven_absent(self, seat: int) -> frozenset[str]:
        """The cards the seat's plays have proven it does not hold (a suit it failed to
        follow, trumps it could not play): playing one of them now would be a revoke."""
        self._check_seat_arg(seat)
        out: set[int] = set()
        for k in self._evidence.constraints[seat]:
            if not k.reported and k.rule_if_suit not in ("poignee", "misere", "ecart"):
                out |= k.forbidden
        return frozenset(CODE[c] for c in out)

    def _check_seat_arg(self, seat: int) -> None:
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise TarotmateError(f"seat {seat!r} does not exist at {self.players} players")

    def hand(self, seat: int) -> tuple[str, ...] | None:
        """The seat's remaining cards when its hand is known, else None."""
        h = self._hands.get(seat)
        return None if h is None else tuple(CODE[c] for c in sorted(h))

    def is_over(self) -> bool:
        return self._phase in ("done", "redeal")

    @property
    def scores(self) -> tuple[int, ...]:
        """Each seat's score for the deal once it is done (zeros for a redeal or until then)."""
        if self._phase != "done":
            return (0,) * self.players
        return tuple(self.result().scores)

    # ------------------------------------------------------------ operations
    def can(self, op: Operation) -> Refusal | None:
        """None when ``op`` is allowed now, else the precise reason (and the rule) it is not."""
        try:
            self._check(op)
        except _Refusal as r:
            return Refusal(r.why, r.rule)
        return None

    def _advance(self, op: Operation) -> None:
        try:
            self._check(op)
        except _Refusal as r:
            raise IllegalOperation(r.why, r.rule, op) from None
        self._do(op)

    def legal_moves(self) -> list[Play]:
        """Plays allowed for the seat to play, when its hand is known (else [])."""
        seat = self.to_play
        if seat is None or seat not in self._hands:
            return []
        return [Play(seat, CODE[c]) for c in self._legal_for(seat)]

    def legal_card_indices(self) -> list[int]:
        """Fast form of :meth:`legal_moves`: card ints for the seat to play."""
        seat = self.to_play
        if seat is None or seat not in self._hands:
            return []
        return self._legal_for(seat)

    def _legal_for(self, seat: int) -> list[int]:
        return self.legal_among(self._hands[seat])

    def legal_among(self, held: Iterable[int]) -> list[int]:
        """The cards of ``held`` (card ints) the next play may legally be: for a
        hand the caller knows while the deal keeps it hidden (the simulator)."""
        return legal_plays(held, self._cur_cards, self._lead_rule_now())

    # ---------------------------------------------------------------- checks
    def _check(self, op: Operation) -> None:
        if not isinstance(op, Operation):
            _refuse("operation", "not a French tarot operation: {operation}", operation=repr(op))
        if self._phase == "redeal":
            _refuse("redeal", "the deal is cancelled: the cards must be dealt again")
        if self._phase == "done" and not isinstance(op, Play):
            _refuse("phase", "the deal is over")
        check = getattr(self, "_check_" + op.kind, None)
        if check is None:
            _refuse("operation", "unknown operation {operation}", operation=repr(op))
        self._check_seat(getattr(op, "seat", 0))
        check(op)

    def _check_seat(self, seat: int) -> None:
        if not 0 <= seat < self.players:
            _refuse("seat", "{seat} does not exist at {players} players", seat=seat, players=self.players)

    def _check_petit_sec(self, op: PetitSec) -> None:
        if self._phase != "bidding":
            _refuse("phase", "a petit sec is shown before the bidding ends")
        if any(s == op.seat for s, _ in self._bids):
            _refuse("petit_sec", "{seat} has already spoken", seat=op.seat)
        hand = self._hands.get(op.seat)
        if hand is not None:
            trumps = [c for c in hand if SUIT[c] == TRUMP]
            if trumps != [PETIT] or EXCUSE in hand:
                _refuse("petit_sec", "{seat} is not petit sec: a petit sec holds the Petit as its only trump "
                                     "and no Excuse", seat=op.seat)

    def _check_bid(self, op: Bid) -> None:
        if self._phase != "bidding":
            _refuse("phase", "the bidding is over (phase {phase})", phase=self._phase)
        if op.seat != self.to_speak:
            _refuse("turn", "it is {expected_seat}'s turn to bid, not {seat}'s", expected_seat=self.to_speak,
                    seat=op.seat)
        if op.bid != "pass" and self._contract is not None:
            if CONTRACTS.index(op.bid) <= CONTRACTS.index(self._contract):
                _refuse("bid_too_low", "{bid} does not outbid {contract}: every bid must be higher than the "
                                       "one before", bid=op.bid, contract=self._contract)

    def _check_call(self, op: CallCard) -> None:
        if self._phase != "calling":
            _refuse("phase", "a card is called by the taker at 5 players, after the bidding"
                    if self.players == 5 else "a card is called only at 5 players")
        c = index_of(op.card)
        if SUIT[c] >= TRUMP or RANK[c] < 11:
            _refuse("call", "{card}: the taker calls a King (or a Queen, Knight, Jack)", card=op.card)
        rank = RANK[c]
        hand = self._hands.get(self._taker)  # type: ignore[arg-type]
        if rank < 14 and hand is not None:
            for higher in range(rank + 1, 15):
                missing = [s for s in range(4) if _suit_card(s, higher) not in hand]
                if missing:
                    _refuse("call", "{card}: a {rank} may be called only by a taker holding every {higher_rank}",
                            card=op.card, rank=_RANK_NAME[rank], higher_rank=_RANK_NAME[higher])

    def _check_chien(self, op: RevealChien) -> None:
        if self._phase != "chien":
            _refuse("phase", "the chien is shown only after a prise or a garde"
                    if self._phase != "play" else "the chien is not shown at this point")
        if op.cards is None:
            return
        ints = [index_of(c) for c in op.cards]
        if len(ints) != self.chien_size or len(set(ints)) != len(ints):
            _refuse("chien", "the chien has {n} distinct cards, got {got}", n=self.chien_size, got=len(op.cards))
        if self._chien is not None and frozenset(ints) != self._chien:
            _refuse("chien", "these are not the chien's cards")
        for c in ints:
            owner = self._owner.get(c)
            if owner is not None:
                _refuse("chien", "{card} is {where}", card=CODE[c], where=owner[1])

    def _check_ecart(self, op: Ecart) -> None:
        if self._phase != "ecart":
            _refuse("phase", "the écart is made after the chien is shown (prise or garde)")
        taker = self._taker
        hand = self._hands.get(taker)  # type: ignore[arg-type]
        shown = [index_of(c) for c in op.trumps_shown]
        if any(SUIT[c] != TRUMP for c in shown):
            _refuse("ecart", "only trumps are shown from the écart")
        if op.cards is None:
            if hand is not None:
                _refuse("ecart", "the taker's hand is known: give the écart's cards")
            if len(shown) > self.chien_size:
                _refuse("ecart", "the écart has only {n} cards", n=self.chien_size)
            for c in shown:
                self._check_available(c, taker)  # type: ignore[arg-type]
                if c in (PETIT, MONDE):
                    _refuse("ecart", "{card}: oudlers may never be discarded", card=CODE[c])
            return
        ints = [index_of(c) for c in op.cards]
        if len(ints) != self.chien_size or len(set(ints)) != len(ints):
            _refuse("ecart", "the écart has {n} distinct cards, got {got}", n=self.chien_size, got=len(ints))
        if not set(shown) <= set(ints):
            _refuse("ecart", "a trump shown from the écart must be in the écart")
        for c in ints:
            self._check_available(c, taker)  # type: ignore[arg-type]
            if hand is not None and c not in hand:
                _refuse("ecart", "{card} is not in the taker's hand", card=CODE[c])
        if hand is None and self.audit_mode:
            return  # a wrong écart in a record is reported as a violation
        for c in ints:
            if c in KINGS or OUDLER[c]:
                _refuse("ecart", "{card}: Kings and oudlers may never be discarded", card=CODE[c])
        trumps = [c for c in ints if SUIT[c] == TRUMP]
        if trumps and hand is not None:
            eligible = [c for c in hand if SUIT[c] < TRUMP and c not in KINGS and c not in ints]
            if eligible:
                _refuse("ecart", "{card}: a trump may be discarded only when unavoidable, but {other_card} "
                                 "could be discarded", card=CODE[trumps[0]], other_card=CODE[eligible[0]])

    def _check_chelem(self, op: AnnounceChelem) -> None:
        if self._taker is None or self._phase == "bidding":
            _refuse("phase", "a chelem is announced by the taker after the bidding")
        if self._chelem_announced:
            _refuse("chelem", "the chelem is already announced")
        if self._played_at or self._cur_cards:
            _refuse("chelem", "a chelem is announced before the first card is played")

    def _check_poignee(self, op: DeclarePoignee) -> None:
        if self._phase != "play":
            _refuse("phase", "a poignée is shown just before one's first card")
        if self._count[op.seat] or op.seat in self._cur_seats:
            _refuse("poignee", "{seat} has already played a card: a poignée is shown before one's first "
                               "card", seat=op.seat)
        if any(p.seat == op.seat for p in self._poignees):
            _refuse("poignee", "{seat} has already shown a poignée", seat=op.seat)
        need = POIGNEE_THRESHOLDS[self.players][POIGNEE_LEVELS.index(op.level)]
        shown = [index_of(c) for c in op.shown]
        if len(set(shown)) != len(shown):
            _refuse("poignee", "a card is shown twice")
        if any(SUIT[c] != TRUMP and c != EXCUSE for c in shown):
            _refuse("poignee", "a poignée shows trumps (and possibly the Excuse) only")
        if len(shown) < need:
            _refuse("poignee", "a {level} poignée at {players} players shows {need} trumps, not {got}",
                    level=op.level, players=self.players, need=need, got=len(shown))
        if (len(shown) > need and self.options.poignee_overfull == "refuse"
                and not self.audit_mode):
            _refuse("poignee", "a {level} poignée shows exactly {need} trumps: hide the other {extra}",
                    level=op.level, need=need, extra=len(shown) - need)
        ecart_ok = (self.options.poignee_ecart_trump_exception and op.seat == self._taker)
        for c in shown:
            if ecart_ok and c in self._ecart_trumps:
                continue
            self._check_available(c, op.seat)
        hand = self._hands.get(op.seat)
        if hand is not None:
            for c in shown:
                if c not in hand and not (ecart_ok and c in self._ecart_trumps):
                    _refuse("poignee", "{card} is not in {seat}'s hand", card=CODE[c], seat=op.seat)
            trumps = sum(1 for c in hand if SUIT[c] == TRUMP)
            if EXCUSE in _trim(shown, need) and trumps + 1 != need:
                _refuse("poignee", "the Excuse stands in for a trump only when the player holds "
                                   "no other trump")
            if not self.options.poignee_lower_level_allowed:
                best = _best_level(self.players, trumps + (1 if EXCUSE in hand else 0))
                if best is not None and POIGNEE_LEVELS.index(best) > POIGNEE_LEVELS.index(op.level):
                    _refuse("poignee", "{seat} holds a {level} poignée and must show it", seat=op.seat, level=best)

    def _check_misere(self, op: DeclareMisere) -> None:
        if not self.options.misere:
            _refuse("misere", "misères are not played (option misere is off)")
        if self._phase != "play":
            _refuse("phase", "a misère is declared before one's first card")
        if self._count[op.seat] or op.seat in self._cur_seats:
            _refuse("misere", "{seat} has already played a card", seat=op.seat)
        if any(s == op.seat for s, _ in self._misere):
            _refuse("misere", "{seat} has already declared a misère", seat=op.seat)
        hand = self._hands.get(op.seat)
        if hand is not None:
            bad = [c for c in hand if _spoils_misere(c, op.misere, self.options)]
            if bad:
                _refuse("misere", "{seat} holds {card}: no misère {misere}", seat=op.seat, card=CODE[bad[0]],
                        misere=op.misere)

    def _check_available(self, c: int, seat: int) -> None:
        """Refuse a card that cannot physically be in ``seat``'s hand now."""
        if c in self._played_at:
            t, s = self._played_at[c]
            _refuse("card_seen", "{card} was already played at trick {trick} by {seat}", card=CODE[c], trick=t,
                    seat=s)
        if c in self._cur_cards:
            _refuse("card_seen", "{card} is already on the table in this trick", card=CODE[c])
        why = self._out.get(c)
        if why is not None:
            _refuse("card_seen", "{card} is {where}", card=CODE[c], where=why)
        owner = self._owner.get(c)
        if owner is not None and owner[0] != seat:
            _refuse("card_seen", "{card} is {where}", card=CODE[c], where=owner[1])

    def _check_play(self, op: Play) -> None:
        if self._phase == "done":
            _refuse("phase", "the deal is over: all {n} tricks are played", n=self.hand_size)
        if self._phase != "play":
            _refuse("phase", "no card is played during the {phase} phase", phase=self._phase)
        c = index_of(op.card)
        seat = op.seat
        expected = self.to_play
        if seat != expected:
            if not (self.audit_mode and not self._cur_cards):
                _refuse("turn", "it is {expected_seat}'s turn to play, not {seat}'s", expected_seat=expected, seat=seat)
        self._check_available(c, seat)
        hand = self._hands.get(seat)
        if hand is not None:
            if c not in hand:
                _refuse("not_in_hand", "{card} is not in {seat}'s hand", card=op.card, seat=seat)
            legal = legal_plays(hand, self._cur_cards, self._lead_rule_now())
            if c not in legal:
                k = play_constraint(c, self._cur_cards, self.trick_number, self._lead_rule_now())
                rule = "illegal"
                why = Reason("not allowed here")
                if k is not None:
                    held = [x for x in legal if x in k.forbidden] or sorted(k.forbidden & hand)
                    rule = k.rule_for(held[0]) if held else k.rule_if_suit
                    why = Reason(_REASONS[rule]) if rule in _REASONS else Reason(rule.replace("{", "{{"))
                _refuse(rule, "{seat} may not play {card}: {why} (playable: {cards})", seat=seat, card=op.card,
                        why=why, cards=[CODE[x] for x in sorted(legal)])

    def _lead_rule_now(self) -> LeadRules:
        """Lead restrictions for the next card of the current trick."""
        cards = self._cur_cards
        if cards and (cards[0] != EXCUSE or len(cards) > 1):
            return NO_LEAD_RULES  # the suit is already set
        if self._called is None and not self.options.no_trump_lead_until_broken:
            return NO_LEAD_RULES
        called = None
        if (self._called is not None and not self._tricks
                and (not cards or not self.options.called_suit_after_excuse_lead)):
            called = self._called
        no_trump = self.options.no_trump_lead_until_broken and not self._trumps_broken
        if called is None and not no_trump:
            return NO_LEAD_RULES
        return LeadRules(called, no_trump)

    # -------------------------------------------------------------- applying
    def _do(self, op: Operation) -> None:
        getattr(self, "_do_" + op.kind)(op)

    def _do_petit_sec(self, op: PetitSec) -> None:
        self._petit_sec = op.seat
        self._phase = "redeal"

    def _do_bid(self, op: Bid) -> None:
        self._bids.append((op.seat, op.bid))
        if op.bid != "pass":
            self._contract = op.bid
            self._taker = op.seat
        if len(self._bids) == self.players:
            self._end_bidding()

    def _end_bidding(self) -> None:
        if self._taker is None:
            self._phase = "redeal"
            return
        if self.players == 5:
            self._phase = "calling"
        else:
            self._after_call()

    def _after_call(self) -> None:
        taker = self._taker
        assert taker is not None
        if self._contract in ("prise", "garde"):
            self._phase = "chien"
            return
        # garde sans / contre: the chien stays unseen and out of play
        if self._chien is not None:
            for c in self._chien:
                self._out[c] = Reason("in the chien")
        self._start_play()

    def _do_call(self, op: CallCard) -> None:
        self._called = index_of(op.card)
        self._after_call()

    def _do_chien(self, op: RevealChien) -> None:
        taker = self._taker
        assert taker is not None
        if op.cards is not None:
            self._chien = frozenset(index_of(c) for c in op.cards)
        self._chien_seen = self._chien is not None
        if self._chien is not None:
            for c in self._chien:
                self._owner[c] = (taker, Reason("in the chien, taken by {seat}", {"seat": taker}))
            if self._called is not None and RANK[self._called] < 14:
                self._check_queen_call()
        hand = self._hands.get(taker)
        if hand is not None:
            if self._chien is None:
                del self._hands[taker]
            else:
                hand |= self._chien
        self._phase = "ecart"

    def _do_ecart(self, op: Ecart) -> None:
        taker = self._taker
        assert taker is not None
        shown = frozenset(index_of(c) for c in op.trumps_shown)
        if op.cards is not None:
            ints = frozenset(index_of(c) for c in op.cards)
            self._ecart = ints
            shown = shown | frozenset(c for c in ints if SUIT[c] == TRUMP)
            for c in ints:
                self._out[c] = Reason("in the écart")
                self._owner.pop(c, None)
            hand = self._hands.get(taker)
            if hand is not None:
                hand -= ints
            if self.audit_mode:
                for c in sorted(ints):
                    if c in KINGS or OUDLER[c]:
                        self._violations.append(Violation.proven(
                            BEFORE_PLAY, taker, "ecart",
                            Reason("discarded {card}: Kings and oudlers may never be discarded", {"card": CODE[c]})))
        else:
            for c in shown:
                self._out[c] = Reason("in the écart (shown)")
                self._owner.pop(c, None)
        self._ecart_trumps = shown
        if shown:
            # discarding a trump proves the taker had no other card it could discard
            eligible = frozenset(c for c in range(78) if SUIT[c] < TRUMP and c not in KINGS)
            first = CODE[min(shown)]
            self._evidence.add(taker, Constraint(
                0, eligible, "ecart", "ecart", Reason("discarded {card} in the écart", {"card": first})))
        self._ecart_done = True
        self._start_play()

    def _do_chelem(self, op: AnnounceChelem) -> None:
        self._chelem_announced = True
        if self._phase == "play" and not self._cur_cards and not self._tricks:
            self._cur_leader = self._taker  # type: ignore[assignment]

    def _start_play(self) -> None:
        self._phase = "play"
        self._cur_leader = (self._taker if self._chelem_announced
                            else (self.dealer + 1) % self.players)  # type: ignore[assignment]

    def _do_poignee(self, op: DeclarePoignee) -> None:
        need = POIGNEE_THRESHOLDS[self.players][POIGNEE_LEVELS.index(op.level)]
        shown = _trim([index_of(c) for c in op.shown], need)
        if len(op.shown) > need and self.options.poignee_overfull == "refuse":
            # only in audit mode (a record): counted as the exact poignée, and reported
            self._violations.append(Violation.proven(
                self.trick_number, op.seat, "poignee",
                Reason("showed {count} cards for a {level} poignée of exactly {need}",
                       {"count": len(op.shown), "level": op.level, "need": need})))
        for c in shown:
            if c not in self._ecart_trumps:
                self._owner[c] = (op.seat, Reason("shown in {seat}'s poignée", {"seat": op.seat}))
        trick = self.trick_number
        self._poignees.append(Poignee(op.seat, op.level, tuple(CODE[c] for c in shown), trick))
        if EXCUSE in shown:
            others = frozenset(c for c in range(21) if c not in shown)
            self._evidence.add(op.seat, Constraint(
                trick, others, "poignee", "poignee",
                Reason("showed the Excuse in a poignée (so no other trump)")))

    def _do_misere(self, op: DeclareMisere) -> None:
        self._misere.append((op.seat, op.misere))
        spoil = frozenset(c for c in range(78) if _spoils_misere(c, op.misere, self.options))
        trick = self.trick_number
        self._evidence.add(op.seat, Constraint(
            trick, spoil, "misere", "misere", Reason("declared a misère {misere}", {"misere": op.misere})))

    def _do_play(self, op: Play) -> None:
        c = index_of(op.card)
        seat = op.seat
        n = self.players
        trick_no = len(self._tricks) + 1
        if not self._cur_cards and seat != self._cur_leader:
            self._violations.append(Violation.proven(
                trick_no, seat, "lead_out_of_turn",
                Reason("led {card} at trick {trick} but {leader_seat} was to lead",
                       {"card": op.card, "trick": trick_no, "leader_seat": self._cur_leader})))
            self._cur_leader = seat
        rules = self._lead_rule_now()
        hand = self._hands.get(seat)
        if hand is not None:
            hand.discard(c)
        else:
            self._violations.extend(self._evidence.check(seat, c, trick_no))
            for old, new in self._evidence.corrections:
                self._violations[self._violations.index(old)] = new
            self._evidence.corrections.clear()
            constraint = play_constraint(c, self._cur_cards, trick_no, rules)
            if constraint is not None:
                self._evidence.add(seat, constraint)
                self._check_against_known_cards(seat, c, constraint)
        self._owner.pop(c, None)
        self._cur_seats.append(seat)
        self._cur_cards.append(c)
        self._cur_rules.append(rules)
        self._played_at[c] = (trick_no, seat)
        self._count[seat] += 1
        if (self._called is not None and SUIT[c] < TRUMP and RANK[c] > RANK[self._called]
                and seat != self._taker):
            self._check_queen_call()
        if c == self._called and seat != self._taker:
            self._partner = seat
        if len(self._cur_cards) == n:
            self._finish_trick()

    def _check_against_known_cards(self, seat: int, played: int, k: Constraint) -> None:
        """Report at once a play proven illegal by a card the seat is known to hold
        (shown in its poignée, or the taker's chien card kept out of a known écart)."""
        # a card of the suit led first: holding it, the rule broken is following it
        for c, (owner, why) in sorted(self._owner.items(), key=lambda x: (SUIT[x[0]] == TRUMP, x)):
            if owner != seat or c == played or c not in k.forbidden:
                continue
            if str(why).startswith("in the chien") and self._ecart is None:
                continue  # it may have gone into the unseen écart
            k.reported = True
            k.violation = Violation.proven(
                k.trick, seat, k.rule_for(c),
                Reason("{what} at trick {trick} while holding {card} ({why})",
                       {"what": k.what, "trick": k.trick, "card": CODE[c], "why": why}))
            self._violations.append(k.violation)
            return

    def _finish_trick(self) -> None:
        cards = self._cur_cards
        seats = self._cur_seats
        last = len(self._tricks) + 1 == self.hand_size
        win_pos = -1
        if last and EXCUSE in cards:
            pos = cards.index(EXCUSE)
            if self._side_took_every_trick(seats[pos]):
                win_pos = pos
        if win_pos < 0:
            win_pos = trick_winner_index(cards)
        winner = seats[win_pos]
        self._tricks.append(FinishedTrick(self._cur_leader, tuple(seats), tuple(cards), winner))
        self._lead_rules.append(self._cur_rules)
        if not self._trumps_broken and any(SUIT[c] == TRUMP for c in cards):
            self._trumps_broken = True
        self._cur_leader = winner
        self._cur_seats = []
        self._cur_cards = []
        self._cur_rules = []
        if last:
            self._phase = "done"
            self._end_of_deal_checks()

    def _side_took_every_trick(self, seat: int) -> bool:
        if not self._tricks:
            return False
        attack = self._attack()
        if seat in attack:
            return all(t.winner in attack for t in self._tricks)
        if not self.options.excuse_wins_last_trick_for_defence:
            return False
        return all(t.winner not in attack for t in self._tricks)

    def _attack(self) -> frozenset[int]:
        taker = self._taker
        if taker is None:
            return frozenset()
        return frozenset((taker,) if self._partner is None else (taker, self._partner))

    def _check_queen_call(self) -> None:
        """A Queen (etc.) was called: a higher card seen outside the taker's hand proves it wrong."""
        if any(v.rule == "call" for v in self._violations):
            return
        called = self._called
        taker = self._taker
        assert called is not None and taker is not None
        culprits = []
        for higher in range(RANK[called] + 1, 15):
            for s in range(4):
                x = _suit_card(s, higher)
                if self._chien_seen and self._chien is not None and x in self._chien:
                    culprits.append(Reason("{card} was in the chien", {"card": CODE[x]}))
                elif x in self._played_at and self._played_at[x][1] != taker:
                    culprits.append(Reason("{card} was played by {seat}", {"card": CODE[x], "seat": self._played_at[x][1]}))
        if culprits:
            self._violations.append(Violation.proven(
                BEFORE_PLAY, taker, "call",
                Reason("called {card} without holding every higher card: {why}",
                       {"card": CODE[called], "why": culprits[0]})))

    def _end_of_deal_checks(self) -> None:
        """The unseen cards are now known: audit the écart."""
        if self._contract not in ("prise", "garde") or self._ecart is not None:
            return
        taker = self._taker
        assert taker is not None
        ecart = self._unseen()
        if len(ecart) != self.chien_size:
            return
        for c in sorted(ecart):
            if c in KINGS or OUDLER[c]:
                self._violations.append(Violation.proven(
                    BEFORE_PLAY, taker, "ecart",
                    Reason("discarded {card} (never played, so in the écart): Kings and oudlers "
                           "may never be discarded", {"card": CODE[c]})))
        trumps = [c for c in ecart if SUIT[c] == TRUMP and c not in self._ecart_trumps]
        if trumps and not self._ecart_trumps:
            kept = [c for c, (t, s) in self._played_at.items()
                    if s == taker and SUIT[c] < TRUMP and c not in KINGS]
            if kept:
                self._violations.append(Violation.proven(
                    BEFORE_PLAY, taker, "ecart",
                    Reason("discarded {card} in the écart but played {played_card}, "
                           "which could have been discarded instead",
                           {"card": CODE[min(trumps)], "played_card": CODE[kept[0]]})))

    def _unseen(self) -> frozenset[int]:
        return frozenset(range(78)) - frozenset(self._played_at) - frozenset(self._cur_cards)

    # ---------------------------------------------------------------- results
    def live_target(self) -> LiveTarget | None:
        """Contract, oudlers won so far, points needed, points so far, tricks left."""
        if self._contract is None or self._phase not in ("play", "done"):
            return None
        attack = self._attack()
        known: list[int] = []
        if self._contract in ("prise", "garde") and self._ecart is not None:
            known = list(self._ecart)
        elif self._contract == "garde_sans" and self._chien is not None:
            known = list(self._chien)
        half, oudlers = count_cards(self._tricks, attack, known, True, self.hand_size - 1)
        if self._phase == "done":
            result = self.result()
            half, oudlers = result.attack_half_points, result.attack_oudlers
        return LiveTarget(self._contract, oudlers, TARGETS[oudlers], half / 2,
                          self.hand_size - len(self._tricks))

    def result(self) -> DealResult:
        """The score of the finished deal (raises while the deal is not done)."""
        if self._phase != "done":
            raise TarotmateError(f"the deal is not finished (phase {self._phase})")
        taker = self._taker
        assert taker is not None and self._contract is not None
        return score_deal(
            players=self.players, taker=taker, partner=self._partner, contract=self._contract,
            tricks=self._tricks, unseen=sorted(self._unseen()),
            poignees=[p.level for p in self._poignees],
            chelem_announced=self._chelem_announced, misere=self._misere,
            hand_size=self.hand_size, options=self.options,
        )

    def audit(self) -> list[Violation]:
        """Exact audit of the tricks with the hands rebuilt from the plays."""
        tricks = [(t.leader, t.seats, t.cards) for t in self._tricks]
        return audit_tricks(self.players, tricks, self._lead_rules)

    def inferred_ecart(self) -> tuple[str, ...] | None:
        """The écart (or unseen chien) once every trick is played."""
        if self._phase != "done":
            return self.ecart
        return tuple(CODE[c] for c in sorted(self._unseen()))

    def to_record(self) -> dict[str, Any]:
        """The deal as a ``tarot-deal/1`` record."""
        from engine.tarot.deal_record import deal_to_record
        return deal_to_record(self)

    def __repr__(self) -> str:
        return (f"TarotDeal(players={self.players}, dealer={self.dealer}, phase={self._phase!r}, "
                f"taker={self._taker}, contract={self._contract!r}, tricks={len(self._tricks)})")


_RANK_NAME = {11: "Jack", 12: "Knight", 13: "Queen", 14: "King"}
_REASONS = {
    "follow_suit": "a player holding the suit led must follow it",
    "must_trump": "a player without the suit led must trump",
    "must_overtrump": "a player must play a trump higher than the highest in the trick when able",
    "no_trump_lead": "trumps may not be led until they are broken",
    "called_suit_lead": "the opening lead may not be in the called suit, except the called card",
}


def _suit_card(suit: int, rank: int) -> int:
    return 22 + 14 * suit + rank - 1


def _trim(shown: list[int], need: int) -> list[int]:
    """An over-full poignée cut to ``need`` cards: the highest trumps, the Excuse last."""
    if len(shown) <= need:
        return list(shown)
    trumps = sorted((c for c in shown if c != EXCUSE), reverse=True)
    keep = trumps[:need]
    if len(keep) < need:
        keep.append(EXCUSE)
    return keep


def _best_level(players: int, trumps: int) -> str | None:
    best = None
    for level, need in zip(POIGNEE_LEVELS, POIGNEE_THRESHOLDS[players]):
        if trumps >= need:
            best = level
    return best


def _spoils_misere(c: int, kind: str, options: TarotOptions) -> bool:
    if kind == "atout":
        return SUIT[c] == TRUMP or (c == EXCUSE and options.misere_excuse_is_trump)
    return c in COURTS


__all__ = ["TarotDeal", "IllegalOperation", "Trick", "LiveTarget", "Poignee", "PHASES"]

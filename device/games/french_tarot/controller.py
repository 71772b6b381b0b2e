"""French tarot at the table: the chien, then each card of the play by turn order.

See :mod:`device.app.controller` for what a controller does with table
events and menu decisions. What the camera may see (:meth:`TarotController.possible_cards`):

* while the chien is shown, any card not yet seen in it;
* while the taker shows the trumps of the écart, any trump not yet shown;
* during the play, the cards the seat whose turn it is may hold: no card
  already played, none known elsewhere (the chien taken by another seat, a
  poignée shown by another seat, an écart entered); the écart stays the
  taker's secret, so the chien's cards stay possible for the taker. A suit
  the seat's plays proved it lacks is unlikely (weight 0.05), never
  impossible: playing it is a revoke, and the engine must still see it.

A trick has one card per player: swept short, the card of the seat whose
turn it was is asked for (the possible cards offered); a card seen again
after it was played is "seen again", and cards after the end of the deal
are ignored with a log line, never an alert.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from device.app.controller import ALERT, APPLIED, INFO, MIDDLE, Controller, Notice, PendingCard
from device.app.decisions import decides
from device.app.session import GameSession
from engine.cards import CODES
from engine.tarot.state import Phase
from vision.possible import PossibleCards
from vision.seat_spots import UNKNOWN, SeatSpots
from vision.track_geometry import covered_fraction

UNLIKELY = 0.05  # the weight of a card the seat's plays proved it does not hold
FOLLOW_WEIGHT = 1.0  # the prior of a card that does not follow the trick (1: as likely as one that does)
IMPOSSIBLE_RULES = ("card_seen", "not_in_hand", "phase", "turn")
# an unclear quad where nobody lays a card waits for the next card unless the camera names a card on
# it at this or more (a card it nearly knows is asked at once); and the next card shows it was no card
# only if it covers less than this of the quad (more: it may be the same card, found again)
ASIDE_BELOW = 0.5
SAME_CARD_COVER = 0.5


def suit_of(code: str) -> str | None:
    """``"T"`` for a trump, the suit letter of a plain card, ``None`` for the Excuse."""
    return None if code == "EX" else code[0]


def led_suit(trick_cards) -> str | None:
    """The suit a trick's next card must follow: its first card's other than the Excuse
    (``None`` while no such card is down)."""
    return next((suit_of(c) for c in trick_cards if c != "EX"), None)


def proven_voids(absent) -> frozenset[str]:
    """The suits (``"T"``: the trumps) of which every card is proven absent from a seat
    (``absent``: ``TarotDeal.proven_absent``); a trump cap (no trump above one) is no void."""
    return frozenset(s for s in ("S", "H", "D", "C", "T") if all(c in absent for c in CODES if suit_of(c) == s))


def follow_prior(code: str, led: str | None, voids, weight: float) -> float:
    """The prior of ``code`` as the next card of a trick led in ``led``: a card of the led suit,
    the Excuse, or any card while nothing is led, 1; otherwise ``weight`` for each void the card
    needs that is not among the seat's proven ``voids`` (:func:`proven_voids`): a trump on a
    plain suit needs that suit void, another plain card the trumps void too."""
    suit = suit_of(code)
    if led is None or suit is None or suit == led:
        return 1.0
    needs = [led] if (suit == "T" or led == "T") else [led, "T"]
    prior = 1.0
    for s in needs:
        if s not in voids:
            prior *= weight
    return prior


class TarotController(Controller):
    """French tarot: the chien, then each card of the play by turn order."""

    def __init__(self, session: GameSession):
        super().__init__(session)
        # a card that does not follow the trick needs a void: its weight among the possible cards
        # (follow_prior), each void it needs unproven (1: the rules' help without it)
        self.follow_weight: float = FOLLOW_WEIGHT
        self.chien_seen: list[str] = []
        # a poignée announced from the menu: (seat, level, trumps needed, trumps seen)
        self.poignee_shown: tuple[int, str, int, list[str]] | None = None
        # trumps the taker shows while discarding them (they must be shown to the defence)
        self.ecart_shown: list[str] = []
        # where each seat lays its trick cards (vision.seat_spots), learned from the plays
        self.seat_spots: SeatSpots | None = None
        # the chien, turned face up, still lies in the middle: until it is taken (the middle cleared)
        # or the first card is played, what the camera finds there is the chien's (a quad across its
        # cards, one of them seen again), not a trick's card
        self.chien_lying = False
        # the middle was cleared before the chien or the trick in it was whole: the cards the
        # players name for it then (the answers to the questions the sweep asks) complete what no
        # longer lies there
        self.swept_short = False
        # the last trick's cards, all seen, still lie in the middle: until the middle is cleared, what
        # the camera finds there that it cannot name is a quad on them, not the next trick's lead
        self.trick_lying = False
        # unclear quads found while the chien is being shown, none named at ASIDE_BELOW or more: a
        # quad across the chien's cards or one of them seen badly; the chien shown whole says they
        # were none, taken short they are asked with its missing cards
        self.chien_unclear: list = []
        self.chien_offered: list[tuple[str, float]] = []  # their candidates, once the chien was taken short

    @property
    def deal(self):
        return self.session.state

    def reset_collections(self) -> None:
        self.chien_seen = []
        self.chien_lying = False
        self.swept_short = False
        self.trick_lying = False
        self.chien_unclear = []
        self.chien_offered = []
        self.poignee_shown = None
        self.ecart_shown = []

    @decides("card")
    def _decide_card(self, code: str) -> list[Notice]:
        return self.card_seen(code, MIDDLE)

    # ------------------------------------------------------------ what the camera may see

    def possible_cards(self) -> PossibleCards | None:
        from engine.tarot import Play

        deal = self.deal
        if deal.phase is Phase.CHIEN:
            seen = set(self.chien_seen)
            return PossibleCards.of(c for c in CODES if c not in seen)
        if deal.phase is Phase.ECART:
            return PossibleCards.of(c for c in CODES if c.startswith("T") and c not in self.ecart_shown)
        if deal.phase is not Phase.PLAY:
            return None
        seat = deal.to_play
        shown = self.poignee_shown[3] if self.poignee_shown is not None else ()
        absent = deal.proven_absent(seat)
        weights = {}
        for code in CODES:
            if code in shown:
                continue
            refusal = deal.can(Play(seat, code))
            if refusal is not None and refusal.rule in IMPOSSIBLE_RULES:
                continue
            # a refusal for another rule (a known hand's revoke) or a proven void: unlikely
            weights[code] = UNLIKELY if (refusal is not None or code in absent) else 1.0
        if self.follow_weight < 1.0:
            led, voids = led_suit(deal.current_trick.cards), proven_voids(absent)
            for code in weights:
                weights[code] *= follow_prior(code, led, voids, self.follow_weight)
        return PossibleCards(weights) if weights else None

    def card_seen(self, code: str, zone: str) -> list[Notice]:
        from engine.tarot import Play

        if zone != MIDDLE:
            return [Notice(INFO, f"{code} in {zone}: only the middle counts in French tarot", card=code)]
        deal = self.deal
        if self.chien_lying and code in (deal.chien or ()):
            return [Notice(INFO, f"{code} is a card of the chien, still lying in the middle", card=code)]
        if deal.phase is Phase.CHIEN:
            return self._chien_card(code)
        if deal.phase is Phase.ECART and code.startswith("T"):
            if code not in self.ecart_shown:
                self.ecart_shown.append(code)
            return [Notice(INFO, f"{code} shown with the écart", card=code)]
        if deal.phase is Phase.PLAY and self.poignee_shown is not None:
            if code.startswith("T") or code == "EX":
                return self._poignee_card(code)
            seat, level, need, seen = self.poignee_shown
            self.poignee_shown = None
            notices = [Notice(ALERT, f"{level} poignée of {self._name(seat)}: only {len(seen)} of {need} "
                                     f"trumps shown before {code}; announce it again", seat=seat)]
            return notices + self.card_seen(code, zone)
        if deal.phase is Phase.PLAY:
            if code in deal.current_trick.cards:
                return [Notice(INFO, f"{code} is already in this trick", card=code)]
            if code in deal.played:
                trick, _ = deal.played[code]
                return [Notice(INFO, f"{code} seen again (played in trick {trick})", card=code)]
            seat = deal.to_play
            notices = self.apply(Play(seat, code), f"{self._name(seat)} plays {code}")
            if any(n.kind == APPLIED for n in notices):
                self.chien_lying = False  # play has begun: the chien was taken
                if self.deal.current_trick.cards:
                    self.trick_lying = False
                else:  # that card completed its trick, which lies in the middle unless it was swept short
                    self.trick_lying, self.swept_short = not self.swept_short, False
            return notices
        if self.session.deal_over:
            return [Notice(INFO, f"{code} seen after the end of the deal: ignored", card=code)]
        return [Notice(ALERT, f"{code} seen before the cards are played: not expected now", card=code)]

    def seen_again(self, event):
        """During the play, an unclear card the camera saw as a card of an earlier trick (the rules
        ruled it out, ``event.excluded``): the camera misread one of the two."""
        if event.excluded is None or not self.rules_help:
            return None
        deal = self.deal
        if deal.phase is not Phase.PLAY or self.poignee_shown is not None or self.session.deal_over:
            return None
        code, p = event.excluded
        where = self.seen_again_at(code)
        if where is None:
            return None
        _, seat, words, _ = where
        return code, p, seat, words

    def seen_again_at(self, code: str):
        """The play of ``code`` in an earlier trick of this deal: (operation index, seat, "trick N", N)."""
        from engine.tarot import Play

        trick_seat = self.deal.played.get(code)
        if trick_seat is None:
            return None
        trick, seat = trick_seat
        ops = self.deal.operations
        index = next((k for k in range(len(ops) - 1, -1, -1) if isinstance(ops[k], Play) and ops[k].card == code), None)
        if index is None:
            return None
        return index, seat, f"trick {trick}", trick

    def earlier_choices(self, code: str, index: int) -> tuple[str, ...]:
        """What an earlier card read as ``code`` may have been: the cards nobody has played yet,
        ``code``'s pip neighbours first (the camera's usual misread), then its suit, then the rest."""
        from vision.votes import pip_neighbours

        deal = self.deal
        gone = set(deal.played) | set(deal.current_trick.cards)
        near, suit = pip_neighbours(code), suit_of(code)
        left = [c for c in CODES if c not in gone and c != code]
        return tuple(sorted(left, key=lambda c: (c not in near, suit_of(c) != suit)))

    def seen_before_its_turn(self, event) -> list[Notice] | None:
        """A card in the middle on the side of a player still to play in this trick, while
        another is to play: the card of the player to play was most likely missed (taking this
        one for it would put two wrong cards in the score). Ask for it; this card waits."""
        from vision.events import APPEARED, UNCERTAIN

        deal = self.deal
        if event.type not in (APPEARED, UNCERTAIN) or not self._a_trick_card(event):
            return None
        if event.card is not None and self._played(event.card):
            return None
        seat, expected = self.side_of(event), deal.to_play
        if seat is None:
            return None
        later = [(expected + k) % deal.players for k in range(1, deal.players - len(deal.current_trick.cards))]
        if seat not in later:
            return None
        what = event.card or "a card"
        return self.ask_skipped(event, MIDDLE, expected,
                                f"{what} lies before {self._name(seat)}, and no card of {self._name(expected)} "
                                f"was seen: which card did {self._name(expected)} play?")

    def _uncertain(self, event) -> list[Notice]:
        """An unclear quad in the middle while the chien turned face up still lies there is one
        of the chien's, or a quad across them: nothing to ask. One found while the chien is being
        shown, no card named on it at ``ASIDE_BELOW`` or more, is kept (:attr:`chien_unclear`):
        the chien shown whole says it was none, taken short it is asked with the missing cards,
        its candidates offered first."""
        if self.chien_lying and event.zone == MIDDLE:
            return [Notice(INFO, "an unclear quad on the chien, still lying in the middle: ignored")]
        if (event.zone == MIDDLE and self.deal.phase is Phase.CHIEN
                and max((p for c, p in event.candidates if c is not None), default=0.0) < ASIDE_BELOW):
            self.chien_unclear.append(event)
            seen, size = len(self.chien_seen), self.deal.chien_size
            return [Notice(INFO, f"an unclear quad in the chien ({seen} of {size} cards seen): "
                                 "asked only if the chien is taken short")]
        return super()._uncertain(event)

    def _a_trick_card(self, event) -> bool:
        """Whether what the camera saw is in the middle while a trick is being played (no poignée
        being shown, the chien taken, the deal not over): where whose turn it is, and where each
        seat lays its cards, tell something."""
        return (event.zone == MIDDLE and self.deal.phase is Phase.PLAY and self.poignee_shown is None
                and not self.session.deal_over and not self.chien_lying)

    def _played(self, code: str) -> bool:
        """Whether ``code`` is already in this trick or an earlier one."""
        deal = self.deal
        return code in deal.current_trick.cards or code in deal.played

    def side_of(self, event) -> int | None:
        """The seat (0-based) on whose side of the middle ``event``'s card lies: by the spots
        where each seat laid its trick cards in this game (:class:`vision.seat_spots.SeatSpots`),
        by the zones' directions (``event.toward``) until every seat has laid one; ``None``:
        on nobody's side."""
        side = self.spots().side(event.corners) if event.corners else UNKNOWN
        if side != UNKNOWN:
            return side
        return None if event.toward is None else event.toward - 1

    def sets_aside(self, event) -> bool:
        """An unclear quad in the middle during the play lying between two seats' spots, or at
        the spot of a seat that has played in this trick (every seat's spot known), no card named
        on it at ``ASIDE_BELOW`` or more: a card's own unclear view lies at its seat's spot, a
        false quad found across cards already played between them or on one of them. The next
        card tells which. And any unclear quad while the last trick, every card seen, still lies
        unswept (:meth:`whole_trick_lying`): the sweep shows it was none (a card laid before the
        sweep stays when the others are taken, and is asked then)."""
        from vision.events import UNCERTAIN

        deal = self.deal
        if event.type != UNCERTAIN or not event.corners or not self._a_trick_card(event):
            return False
        if self.whole_trick_lying():
            return True  # the next trick's card, if it was one, is still there when the trick is swept
        if max((p for c, p in event.candidates if c is not None), default=0.0) >= ASIDE_BELOW:
            return False
        side = self.spots().side(event.corners)
        played = [(deal.to_play - k) % deal.players for k in range(1, len(deal.current_trick.cards) + 1)]
        return side is None or side in played

    def whole_trick_lying(self) -> bool:
        """Whether the last trick's cards, every one seen, still lie in the middle (not yet swept)
        and no card of the next trick has been seen: an unclear quad then is most likely one found
        across them, wherever it lies."""
        deal = self.deal
        return self.trick_lying and deal.phase is Phase.PLAY and not deal.current_trick.cards

    def aside_was_no_card(self, aside, event) -> bool:
        """The unclear quad was no card when the next card named lies at the spot of the player
        to play (that player's card was still to come) and not over the quad (covering
        ``SAME_CARD_COVER`` of it, it may be the quad's card found again under another name).
        And the trick swept settles it too: with every card of the trick seen it was none, and
        with one missing the sweep asks for that card anyway (the same question, once)."""
        from vision.events import APPEARED, CLEARED

        deal = self.deal
        if event.zone != MIDDLE:
            return False
        if event.type == CLEARED:
            return True  # the trick swept: a card it was is asked with the trick's missing cards
        if event.type != APPEARED or event.card is None or not event.corners or deal.phase is not Phase.PLAY:
            return False
        if self._played(event.card):
            return False
        if aside.corners and covered_fraction(aside.corners, event.corners) >= SAME_CARD_COVER:
            return False
        return self.spots().side(event.corners) == deal.to_play

    def spots(self):
        """Where each seat of this table laid its trick cards (kept from deal to deal)."""
        if self.seat_spots is None or self.seat_spots.seats != self.deal.players:
            self.seat_spots = SeatSpots(self.deal.players)
        return self.seat_spots

    def card_placed(self, corners, notices: list[Notice]) -> None:
        """A trick's card played at ``corners``: its seat, proven by the order of play, laid it there."""
        from engine.tarot import Play

        if not corners:
            return
        for n in notices:
            if n.kind == APPLIED and isinstance(n.op, Play):
                self.spots().learn(n.op.seat, corners)

    def _chien_card(self, code: str) -> list[Notice]:
        from engine.tarot import RevealChien

        if code in self.chien_seen:
            return [Notice(INFO, f"{code} is already in the chien", card=code)]
        self.chien_seen.append(code)
        size = self.deal.chien_size
        if len(self.chien_seen) < size:
            return [Notice(INFO, f"chien: {len(self.chien_seen)} of {size} cards seen", card=code)]
        cards, self.chien_seen = tuple(self.chien_seen), []
        self.no_card += self.chien_unclear  # the chien shown whole: the unclear quads were none
        self.chien_unclear, self.chien_offered = [], []
        notices = self.apply(RevealChien(cards), f"chien: {' '.join(cards)}")
        # completed from the questions asked once it was taken short, it lies no more: the next
        # unclear quad in the middle is the first trick's card
        self.chien_lying = any(n.kind == APPLIED for n in notices) and not self.swept_short
        self.swept_short = False
        return notices

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
        self.trick_lying = False
        if self.chien_lying:
            self.chien_lying = False
            return [Notice(INFO, "the chien was taken")]
        if deal.phase is Phase.CHIEN or (deal.phase is Phase.PLAY and deal.current_trick.cards):
            self.swept_short = True
        if deal.phase is Phase.CHIEN and (self.chien_seen or self.chien_unclear):
            # taken short: the unclear quads kept while it was shown are asked as its missing cards
            best: dict[str, float] = {}
            for event in self.chien_unclear:
                for code, p in event.candidates:
                    if code is not None:
                        best[code] = max(p, best.get(code, 0.0))
            self.chien_offered, self.chien_unclear = sorted(best.items(), key=lambda x: -x[1]), []
            return self._ask_chien_card()
        if deal.phase is Phase.PLAY and deal.current_trick.cards:
            return self._ask_trick_card()
        return []

    def _ask_chien_card(self) -> list[Notice]:
        deal = self.deal
        seen = len(self.chien_seen)
        offered = [(c, p) for c, p in self.chien_offered if c not in self.chien_seen]
        return self.ask_missing(MIDDLE, None, f"the chien was taken with {seen} of {deal.chien_size} cards seen: "
                                              "which card is missing?", candidates=offered)

    def _ask_trick_card(self) -> list[Notice]:
        deal = self.deal
        seat = deal.to_play
        n = len(deal.current_trick.cards)
        return self.ask_missing(MIDDLE, seat, f"trick {deal.trick_number} swept with {n} of {deal.players} cards: "
                                              f"which card did {self._name(seat)} play?")

    def after_resolved(self, pending: PendingCard) -> list[Notice]:
        """A missing card answered: while the swept trick (or chien) is still short, ask the next."""
        if pending.reason != "missing" or self.pending:
            return []
        deal = self.deal
        if deal.phase is Phase.CHIEN and self.chien_seen:
            return self._ask_chien_card()
        if deal.phase is Phase.PLAY and deal.current_trick.cards:
            return self._ask_trick_card()
        return []

    def card_removed(self, code: str | None, zone: str) -> list[Notice]:
        deal = self.deal
        if zone == MIDDLE and deal.phase is Phase.PLAY and code and code in deal.current_trick.cards:
            return [Notice(INFO, f"{code} was taken back from the trick: use undo if it was not meant", card=code)]
        return []

    def card_renamed(self, was: str, code: str, zone: str) -> list[Notice]:
        """A chien card being shown, renamed by the camera: fixed among the cards seen so far
        (they make no operation until the chien is whole); else as every game does."""
        if zone == MIDDLE and self.deal.phase is Phase.CHIEN and was in self.chien_seen:
            if code in self.chien_seen:
                return [Notice(INFO, f"the camera now sees {code} where it saw {was}, but the chien "
                                     f"already holds {code}: {was} kept", card=was)]
            self.chien_seen[self.chien_seen.index(was)] = code
            return [Notice(INFO, f"chien: {was} is {code}", card=code)]
        return super().card_renamed(was, code, zone)

    # ------------------------------------------------------------ decisions

    def _name(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        return self.session.names[seat] if seat < len(self.session.names) else f"seat {seat}"

    @decides("bid")
    def _decide_bid(self, seat: int, bid: str) -> list[Notice]:
        from engine.tarot import Bid

        return self.apply(Bid(seat, bid), f"{self._name(seat)}: {bid}")

    @decides("misdeal")
    def _decide_misdeal(self, *_: Any) -> list[Notice]:
        """A misdeal: the deal is cancelled and the same dealer deals again."""
        dealer = self.session.deal.setup.get("dealer", 0)
        self.session.misdeal()
        self.reset_collections()
        return [Notice(APPLIED, f"misdeal: {self._name(dealer)} deals again (deal {self.session.deal.number})")]

    @decides("all_passed")
    def _decide_all_passed(self, *_: Any) -> list[Notice]:
        return [Notice(INFO, "everybody passed: redeal")] if self.deal.phase is Phase.REDEAL else []

    @decides("call")
    def _decide_call(self, code: str) -> list[Notice]:
        from engine.tarot import CallCard

        return self.apply(CallCard(code), f"called {code}")

    @decides("chien")
    def _decide_chien(self, cards: Sequence[str]) -> list[Notice]:
        from engine.tarot import RevealChien

        self.chien_seen = []
        return self.apply(RevealChien(tuple(cards)), f"chien: {' '.join(cards)}")

    @decides("ecart")
    def _decide_ecart(self, cards: Sequence[str] | None = None,
                     trumps_shown: Sequence[str] | None = None) -> list[Notice]:
        """The écart is made; its trumps are those given, else those the camera
        saw shown while the taker discarded."""
        from engine.tarot import Ecart

        if trumps_shown is None:
            trumps_shown = tuple(self.ecart_shown)
        self.ecart_shown = []
        op = Ecart(None if cards is None else tuple(cards), tuple(trumps_shown))
        return self.apply(op, "écart made" if cards is None else f"écart: {' '.join(cards)}")

    @decides("chelem")
    def _decide_chelem(self, *_: Any) -> list[Notice]:
        from engine.tarot import AnnounceChelem

        return self.apply(AnnounceChelem(), "chelem announced")

    @decides("poignee")
    def _decide_poignee(self, seat: int, level: str, shown: Sequence[str] | None = None) -> list[Notice]:
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

    @decides("misere")
    def _decide_misere(self, seat: int, kind: str) -> list[Notice]:
        from engine.tarot import DeclareMisere

        return self.apply(DeclareMisere(seat, kind), f"{self._name(seat)}: misère {kind}")

    @decides("petit_sec")
    def _decide_petit_sec(self, seat: int) -> list[Notice]:
        from engine.tarot import PetitSec

        return self.apply(PetitSec(seat), f"{self._name(seat)}: petit sec, redeal")

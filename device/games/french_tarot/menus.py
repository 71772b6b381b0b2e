"""French tarot's menus: the bidding (and the called King), the game menu,
and which of them the buttons drive at each moment of a deal.

The decisions they return are listed in :mod:`device.app.flows`.
"""

from __future__ import annotations

from typing import Sequence

from device.app.deck_learning import known_cards
from device.app.flows import (CardPicker, ChoiceFlow, Decision, FixCardPicker, Flow, Step, deck_memory_item,
                               forget_deck, yes_no)
from device.i18n import N_, translator
from device.screens.labels import BID_NAMES, POIGNEE_NAMES, card_name
from device.screens.views import BIDS, POIGNEE_LEVELS, BiddingView
from engine.cards import CODES, SUITS
from engine.tarot.tables import HAND_SIZE
from engine.errors import TarotmateError
from engine.tarot.state import Phase


class BiddingFlow(Flow):
    """The auction, seat after seat from the dealer's right, then the called King at 5."""

    ORDER = BIDS[1:]

    def __init__(self, players: Sequence[str], dealer: int, lang: str = "en", style: str = "french") -> None:
        super().__init__(lang, style)
        if len(players) not in HAND_SIZE:
            raise TarotmateError(f"French tarot is played by 3 to 5 players, not {len(players)}")
        self.players = list(players)
        self.dealer = dealer
        self.bids: list[str | None] = [None] * len(players)
        self.spoken: list[int] = []  # seats in the order they bid
        self.called: str | None = None
        self._ask()

    def seat_to_bid(self) -> int | None:
        if len(self.spoken) == len(self.players):
            return None
        return (self.dealer + 1 + len(self.spoken)) % len(self.players)

    def best(self) -> tuple[int | None, str | None]:
        seat, best = None, None
        for s in self.spoken:
            bid = self.bids[s]
            if bid != "pass" and (best is None or self.ORDER.index(bid) > self.ORDER.index(best)):
                seat, best = s, bid
        return seat, best

    @classmethod
    def presses(cls, bids: Sequence[str]) -> list[tuple[str, str]]:
        """The button events that enter ``bids`` (in the order they are spoken) with short
        presses: down from "pass" to the bid, then OK (scripted players, tests, benchmarks)."""
        events: list[tuple[str, str]] = []
        best = None
        for bid in bids:
            options = ["pass", *(cls.ORDER[cls.ORDER.index(best) + 1:] if best else cls.ORDER)]
            events += [("down", "press")] * options.index(bid) + [("ok", "press")]
            best = bid if bid != "pass" else best
        return events

    def _ask(self) -> None:
        seat = self.seat_to_bid()
        _, best = self.best()
        higher = self.ORDER[self.ORDER.index(best) + 1 :] if best else self.ORDER
        options = [(self.tr(BID_NAMES["pass"]), "pass")] + [(self.tr(BID_NAMES[b]), b) for b in higher]
        title = self.tr(N_("{name} bids")).format(name=self.players[seat])
        self.steps = [Step(title, options, self._bid, on_back=self._undo)]

    def _bid(self, bid: str) -> list[Decision]:
        seat = self.seat_to_bid()
        self.bids[seat] = bid
        self.spoken.append(seat)
        decisions: list[Decision] = [("bid", seat, bid)]
        if self.seat_to_bid() is not None:
            self._ask()
            return decisions
        taker, _ = self.best()
        if taker is None:
            self.finish()
            return decisions + [("all_passed",)]
        if len(self.players) == 5:
            self._ask_king(taker)
            return decisions
        self.finish()
        return decisions

    def _ask_king(self, taker: int) -> None:
        codes = [s + "K" for s in SUITS] + [s + "Q" for s in SUITS]
        options = [(card_name(c, self.lang, self.style), c) for c in codes]
        title = self.tr(N_("{name} calls")).format(name=self.players[taker])
        self.steps = [Step(title, options, self._call, on_back=self._undo)]

    def _call(self, code: str) -> list[Decision]:
        self.called = code
        self.finish()
        return [("call", code)]

    def _undo(self) -> list[Decision]:
        if not self.spoken:
            return []
        seat = self.spoken.pop()
        self.bids[seat] = None
        self._ask()
        return [("undo",)]

    @classmethod
    def resume(cls, players: Sequence[str], dealer: int, bids, lang: str = "en",
               style: str = "french") -> "BiddingFlow":
        """The bidding menu with the bids already made (after a restart or an undo)."""
        flow = cls(players, dealer, lang, style)
        for seat, bid in bids:
            flow.bids[seat] = bid
            flow.spoken.append(seat)
        if flow.seat_to_bid() is not None:
            flow._ask()
        else:
            taker, _ = flow.best()
            if taker is not None:
                flow._ask_king(taker)
        return flow

    def bidding_view(self) -> BiddingView:
        """The auction so far, for :func:`device.screens.render_bidding`."""
        return BiddingView(tuple(self.players), self.dealer, tuple(self.bids), self.seat_to_bid(), self.called)


class GameMenu(Flow):
    """The menu during a deal: undo, poignée, chelem, card correction, new deal, end of game."""

    def __init__(self, players: Sequence[str], lang: str = "en", style: str = "french",
                 fixable: Sequence[tuple[int, str, int | None]] = (), known_cards: int | None = None,
                 free: Sequence[str] | None = None) -> None:
        super().__init__(lang, style)
        self.players = list(players)
        self.fixable = list(fixable)  # (operation index, card, seat) of the cards read lately, latest first
        self.free = None if free is None else list(free)  # what "Correct a card" offers (None: all 78)
        tr = self.tr
        items = [
            (tr(N_("Undo last event")), "undo"),
            (tr(N_("Announce a poignée")), "poignee"),
            (tr(N_("Announce a chelem")), "chelem"),
            *([(tr(N_("Fix a card read")), "fix")] if self.fixable else []),
            (tr(N_("Correct a card")), "correct"),
            (tr(N_("New deal")), "new_deal"),
            (tr(N_("Misdeal")), "misdeal"),
            (tr(N_("End the game")), "end_game"),
            *deck_memory_item(self, known_cards),
        ]
        self.push(Step(tr(N_("Menu")), items, self._item))

    def _item(self, item: str) -> list[Decision]:
        tr = self.tr
        if item in ("undo", "chelem"):
            self.finish()
            return [(item,)]
        if item == "poignee":
            seats = [(name, i) for i, name in enumerate(self.players)]
            self.push(Step(tr(N_("Who shows it?")), seats, self._poignee_seat))
        elif item == "correct":
            CardPicker(self, tr(N_("Which card?")), self._corrected, self.free).start()
        elif item == "fix":  # a card read wrong: choose it, then name the right one
            FixCardPicker(self, self.fixable, self.players).start()
        elif item == "new_deal":
            self.push(yes_no(self, tr(N_("New deal?")), ("new_deal",)))
        elif item == "deck_memory":
            self.push(forget_deck(self))
        elif item == "misdeal":  # the deal is cancelled, the same dealer deals again
            self.push(yes_no(self, tr(N_("Same dealer again?")), ("misdeal",)))
        else:
            self.push(yes_no(self, tr(N_("End the game?")), ("end_game",)))
        return []

    def _poignee_seat(self, seat: int) -> list[Decision]:
        levels = [(tr_level, level) for level, tr_level in
                  ((lv, self.tr(POIGNEE_NAMES[lv])) for lv in POIGNEE_LEVELS)]
        self.push(Step(self.players[seat], levels, lambda level: self._poignee(seat, level)))
        return []

    def _poignee(self, seat: int, level: str) -> list[Decision]:
        self.finish()
        return [("poignee", seat, level)]

    def _corrected(self, code: str) -> list[Decision]:
        self.finish()
        return [("correct_card", code)]


class TarotMenus:
    """Which menu a French tarot deal asks for (see :class:`device.app.menu_driver.MenuDriver`)."""

    @staticmethod
    def wanted_key(app) -> tuple | None:
        """The bidding while the engine waits for bids (or the called King)."""
        state = app.session.state
        if state.phase in (Phase.BIDDING, Phase.CALLING):
            return ("bidding", len(state.bids), state.phase)
        return None

    @staticmethod
    def make_flow(app, key: tuple) -> Flow:
        deal = app.session.state
        return BiddingFlow.resume(app.session.names, deal.dealer, deal.bids, app.lang, app.style)

    @staticmethod
    def ok_menu(app) -> Flow | tuple:
        """"Écart done" while the taker discards, the end-of-deal choices once it is over, else the game menu."""
        state = app.session.state
        lang, style = app.lang, app.style
        if state.phase is Phase.ECART:
            return ("ecart", None)
        if state.phase in (Phase.DONE, Phase.REDEAL):
            tr = translator(lang)
            return ChoiceFlow(tr(N_("Menu")), [(tr(N_("New deal")), ("new_deal",)),
                                               (tr(N_("End the game")), ("end_game",))], lang, style)
        from device.app.fixes import fixable

        possible = app.controller.possible_cards()  # a card already played is not offered again
        free = None if possible is None else [c for c in CODES if c in possible]
        return GameMenu(app.session.names, lang, style, fixable(app.session.state.operations), known_cards(app),
                        free=free or None)

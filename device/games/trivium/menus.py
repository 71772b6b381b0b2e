"""Trivium's menus: the menu during a game, "who starts", the end of a game,
and which of them the buttons drive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from device.app.deck_learning import known_cards
from device.app import fixes
from device.app.flows import CardPicker, ChoiceFlow, FixCardPicker, Flow, Step, deck_memory_item, forget_deck
from device.i18n import N_, translator
from engine.cards import CODES
from engine.trivium.combinations import completions
from engine.trivium.state import Phase


class TriviumMenu(Flow):
    """The menu during a Trivium game: undo, the exchange from the olla, a card
    the camera did not see, a card it read wrong, a steal by El Loco, a
    declaration, new game, end of the match.

    "Card not seen…" enters a card the camera missed: where it lies (a seat
    laying a tercia, with the cards seen of it, comes first; then the olla, a
    discard; then the other seats), then which card (for a tercia showing two
    cards, the cards that make them 21 first): ``('lay_card', seat, code)`` or
    ``('correct_card', code)``. ``laying``: the cards seen of each tercia being
    laid; ``completing``: per seat, the cards that would complete it; ``free``:
    the cards that may still be entered (None: any).

    "Fix a card read" (with ``fixable``, the cards read lately: see
    :class:`~device.app.flows.FixCardPicker`) names a card of a tercia or a
    discard right where it lies; for a card of a tercia the cards that make
    the other two 21 come first."""

    def __init__(self, game, names, lang: str = "en", style: str = "french", known_cards: int | None = None,
                 laying: Mapping[int, Sequence[str]] | None = None,
                 completing: Mapping[int, Sequence[str]] | None = None, free: Sequence[str] | None = None,
                 fixable: Sequence[tuple[int, str, int | None]] = ()):
        super().__init__(lang, style)
        self.game = game
        self.names = list(names)
        self.laying = {seat: tuple(group) for seat, group in (laying or {}).items() if group}
        self.completing = {seat: tuple(cards) for seat, cards in (completing or {}).items()}
        self.free = None if free is None else tuple(free)
        self.fixable = list(fixable)
        tr = self.tr
        seat = game.to_play
        items = [(tr(N_("Undo last event")), ("undo",)),
                 (tr(N_("From the olla")), ("exchange", "olla")),
                 (tr(N_("Card not seen…")), "unseen"),
                 *([(tr(N_("Fix a card read")), "fix")] if self.fixable else []),
                 (tr(N_("El Loco steals…")), "steal"),
                 (tr(N_("Declare…")), ("declare", seat)),
                 (tr(N_("Declaration shown")), ("declare_done",)),
                 (tr(N_("New deal")), ("new_deal",)),
                 (tr(N_("End the game")), ("end_game",)),
                 *deck_memory_item(self, known_cards)]
        self.push(Step(tr(N_("Menu")), items, self._item))

    def _item(self, item) -> list[tuple]:
        if item == "deck_memory":
            self.push(forget_deck(self))
            return []
        if item == "unseen":
            self.push(Step(self.tr(N_("Where does it lie?")), self._places(), self._place))
            return []
        if item == "fix":
            FixCardPicker(self, self.fixable, self.names, self._right_cards).start()
            return []
        if item == "steal":
            victims = [(name, s) for s, name in enumerate(self.names)
                       if s != self.game.to_play and self.game.seats[s].laid]
            if not victims:
                self.finish()
                return []
            self.push(Step(self.tr(N_("Robbed player?")), victims, self._victim))
            return []
        self.finish()
        return [item]

    def _right_cards(self, index: int, wrong: str) -> tuple[str, ...]:
        """For a card of a tercia read wrong: the cards that make the other two 21."""
        operations = getattr(self.game, "operations", ())
        cards = getattr(operations[index], "cards", ()) if 0 <= index < len(operations) else ()
        if wrong not in cards or len(cards) != 3:
            return ()
        others = [c for c in cards if c != wrong]
        return completions(others, [c for c in CODES if self.free is None or c in self.free])

    def _places(self) -> list[tuple[str, object]]:
        """The seats laying a tercia (with the cards seen of it), the olla, the other seats."""
        laying = [(f"{self.names[s]}: {' '.join(g)}…", s) for s, g in sorted(self.laying.items())
                  if s < len(self.names)]
        others = [(name, s) for s, name in enumerate(self.names) if s not in self.laying]
        return laying + [(self.tr(N_("The olla: a discard")), "olla")] + others

    def _place(self, place) -> list[tuple]:
        if place == "olla":
            CardPicker(self, self.tr(N_("Which card?")), self._discarded, self.free).start()
            return []
        group = self.laying.get(place, ())
        cards = None if self.free is None else [c for c in self.free if c not in group]
        CardPicker(self, self.tr(N_("Which card?")), lambda code: self._laid(place, code), cards,
                   first=self.completing.get(place, ())).start()
        return []

    def _discarded(self, code: str) -> list[tuple]:
        self.finish()
        return [("correct_card", code)]

    def _laid(self, seat: int, code: str) -> list[tuple]:
        self.finish()
        return [("lay_card", seat, code)]

    def _victim(self, victim: int) -> list[tuple]:
        groups = [(" ".join(g.cards), i) for i, g in enumerate(self.game.seats[victim].laid)]
        self.push(Step(self.tr(N_("Which tercia?")), groups, lambda group: self._steal(victim, group)))
        return []

    def _steal(self, victim: int, group: int) -> list[tuple]:
        self.finish()
        return [("steal", self.game.to_play, victim, group)]


class TriviumMenus:
    """Which menu a Trivium game asks for (see :class:`device.app.menu_driver.MenuDriver`)."""

    @staticmethod
    def wanted_key(app) -> tuple | None:
        """"Who starts?" before the deal."""
        if app.session.state.phase is Phase.DEAL:
            return ("deal", app.session.deal.id)
        return None

    @staticmethod
    def make_flow(app, key: tuple) -> Flow:
        names = app.session.names
        return ChoiceFlow(translator(app.lang)(N_("Who starts?")),
                          [(name, ("deal", seat)) for seat, name in enumerate(names)], app.lang, app.style)

    @staticmethod
    def ok_menu(app) -> Flow | tuple:
        """The end-of-game choices once it is finished, else the game menu."""
        state = app.session.state
        lang, style = app.lang, app.style
        if state.phase is Phase.FINISHED:
            tr = translator(lang)
            return ChoiceFlow(tr(N_("Game over")), [(tr(N_("New game")), ("new_deal",)),
                                                    (tr(N_("End the match")), ("end_game",))], lang, style)
        controller = app.controller
        laying = {seat: tuple(group) for seat, group in controller.groups.items() if group}
        return TriviumMenu(state, app.session.names, lang, style, known_cards(app), laying=laying,
                           completing={seat: controller.completing(seat) for seat in laying},
                           free=controller.free_cards(), fixable=fixes.fixable(state.operations))

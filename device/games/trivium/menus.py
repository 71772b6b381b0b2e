"""Trivium's menus: the menu during a game, "who starts", the end of a game,
and which of them the buttons drive.
"""

from __future__ import annotations

from device.app.deck_learning import known_cards
from device.app.flows import ChoiceFlow, Flow, Step, deck_memory_item, forget_deck
from device.i18n import N_, translator
from engine.trivium.state import Phase


class TriviumMenu(Flow):
    """The menu during a Trivium game: undo, the exchange from the olla, a
    steal by El Loco, a declaration, new game, end of the match."""

    def __init__(self, game, names, lang: str = "en", style: str = "french", known_cards: int | None = None):
        super().__init__(lang, style)
        self.game = game
        self.names = list(names)
        tr = self.tr
        seat = game.to_play
        items = [(tr(N_("Undo last event")), ("undo",)),
                 (tr(N_("From the olla")), ("exchange", "olla")),
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
        return TriviumMenu(state, app.session.names, lang, style, known_cards(app))

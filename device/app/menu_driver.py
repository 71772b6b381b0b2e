"""Which menu the buttons drive, from the game's state.

The menus (``device.app.flows``) are pure flows that turn button events into
decisions. This driver opens the one the moment needs: the bidding while the
engine waits for bids, the confirmation of an uncertain card, "who starts"
at the start of a Trivium game, "écart done" while the taker discards, and
the game menu (undo, poignée, chelem, a card by hand, new deal, end) when OK
is pressed with nothing else open. Decisions go to the :class:`TableApp`.
"""

from __future__ import annotations

from device.app.flows import BiddingFlow, ConfirmCardFlow, Flow, GameMenu, Step
from device.i18n import N_, translator


class TriviumMenu(Flow):
    """The menu during a Trivium game: undo, the exchange from the olla, a
    steal by El Loco, a declaration, new game, end of the match."""

    def __init__(self, game, names, lang: str = "en", style: str = "french"):
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
                 (tr(N_("End the game")), ("end_game",))]
        self.push(Step(tr(N_("Menu")), items, self._item))

    def _item(self, item) -> list[tuple]:
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


class ChoiceFlow(Flow):
    """A one-step menu whose pick is one decision."""

    def __init__(self, title: str, options: list[tuple[str, tuple]], lang: str = "en", style: str = "french"):
        super().__init__(lang, style)
        self.push(Step(title, options, self._pick))

    def _pick(self, decision: tuple) -> list[tuple]:
        self.finish()
        return [decision]


class MenuDriver:
    """Keeps the right menu open. Menus the state asks for (the bidding, a
    card to confirm, who starts a Trivium game) open by themselves and follow
    the state: when it moves on by another way (the camera, an undo, a
    restart) they are rebuilt from it. OK with nothing open says "écart
    done", opens the end-of-deal choices, or the game menu; those stay until
    they are done."""

    def __init__(self, app):
        self.app = app
        self.flow: Flow | None = None
        self.flow_key: tuple | None = None  # why a state-driven flow is open; None: opened by the player
        self.sync()

    # ------------------------------------------------------------ flows the state asks for

    def wanted_key(self) -> tuple | None:
        """Why a menu must be open now (a card to confirm, a bid, who starts), or None."""
        app = self.app
        session = app.session
        if app.controller.pending:
            return ("confirm", id(app.controller.pending[0]))
        state = session.state
        if session.rules.kind == "french-tarot":
            if state.phase in ("bidding", "calling"):
                return ("bidding", len(state.bids), state.phase)
        elif state.phase == "deal":
            return ("deal", session.deal.id)
        return None

    def make_flow(self, key: tuple | None) -> Flow | None:
        if key is None:
            return None
        app = self.app
        names = app.session.names
        lang, style = app.lang, app.style
        kind = key[0]
        if kind == "confirm":
            pending = app.controller.pending[0]
            return ConfirmCardFlow(pending.best or "EX", pending.confidence, pending.alternatives[:3],
                                   lang=lang, style=style)
        if kind == "bidding":
            return self._bidding(app.session.state)
        return ChoiceFlow(translator(lang)(N_("Who starts?")), [(name, ("deal", seat)) for seat, name in enumerate(names)],
                          lang, style)

    def ok_menu(self) -> Flow | tuple:
        """What OK does with nothing open: "écart done" while the taker
        discards, the end-of-deal choices once it is over, else the game menu."""
        app = self.app
        session = app.session
        state = session.state
        lang, style = app.lang, app.style
        if session.rules.kind == "french-tarot":
            if state.phase == "ecart":
                return ("ecart", None)
            if state.phase in ("done", "redeal"):
                tr = translator(lang)
                return ChoiceFlow(tr(N_("Menu")), [(tr(N_("New deal")), ("new_deal",)),
                                                   (tr(N_("End the game")), ("end_game",))], lang, style)
            return GameMenu(session.names, lang, style)
        if state.phase == "finished":
            tr = translator(lang)
            return ChoiceFlow(tr(N_("Game over")), [(tr(N_("New game")), ("new_deal",)),
                                                    (tr(N_("End the match")), ("end_game",))], lang, style)
        return TriviumMenu(state, session.names, lang, style)

    def _bidding(self, deal) -> BiddingFlow:
        """The bidding menu with the bids already in the log (after a restart or an undo)."""
        flow = BiddingFlow(self.app.session.names, deal.dealer, self.app.lang, self.app.style)
        for seat, bid in deal.bids:
            flow.bids[seat] = bid
            flow.spoken.append(seat)
        if flow.seat_to_bid() is not None:
            flow._ask()
        else:
            taker, _ = flow.best()
            if taker is not None:
                flow._ask_king(taker)
        return flow

    def sync(self) -> None:
        """Open (or rebuild) the flow the state asks for; keep a menu the player opened."""
        key = self.wanted_key()
        player_menu = self.flow is not None and not self.flow.done and self.flow_key is None
        if not player_menu and (self.flow is None or self.flow.done or self.flow_key != key):
            self.flow = self.make_flow(key)
            self.flow_key = key
        self.app.menu_view = None if self.flow is None else self.flow.view()

    # ------------------------------------------------------------ buttons

    def on_button(self, event: tuple[str, str]) -> None:
        app = self.app
        if self.flow is None:
            if event == ("ok", "press"):
                menu = self.ok_menu()
                if isinstance(menu, tuple):
                    app.on_decision(menu)
                    return
                self.flow, self.flow_key = menu, None
            elif event[0] == "back":
                app.alert = None  # dismiss an alert
            self.app.menu_view = None if self.flow is None else self.flow.view()
            app.refresh()
            return
        flow = self.flow
        decisions = flow.handle(event)
        for decision in decisions:
            if decision and decision[0] != "cancel":
                app.on_decision(decision)
        if self.flow is flow and flow.done:
            self.flow = None
        self.sync()
        app.refresh()

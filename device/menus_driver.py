"""Which menu the buttons drive, from the game's state.

The menus (``device.menus``) are pure flows that turn button events into
decisions. This driver opens the one the moment needs: the bidding while the
engine waits for bids, the confirmation of an uncertain card, "who starts"
at the start of a Trivium game, "écart done" while the taker discards, and
the game menu (undo, poignée, chelem, a card by hand, new deal, end) when OK
is pressed with nothing else open. Decisions go to the :class:`TableApp`.
"""

from __future__ import annotations

from device.menus import BiddingFlow, ConfirmCardFlow, Flow, GameMenu, Step


class ChoiceFlow(Flow):
    """A one-step menu whose pick is one decision."""

    def __init__(self, title: str, options: list[tuple[str, tuple]], lang: str = "en", style: str = "french"):
        super().__init__(lang, style)
        self.push(Step(title, options, self._pick))

    def _pick(self, decision: tuple) -> list[tuple]:
        self.finish()
        return [decision]


class MenuDriver:
    def __init__(self, app):
        self.app = app
        self.flow: Flow | None = None
        self.sync()

    # ------------------------------------------------------------ flows the state asks for

    def wanted_flow(self) -> Flow | None:
        app = self.app
        session = app.session
        names = session.names
        lang, style = app.lang, app.style
        if app.controller.pending:
            pending = app.controller.pending[0]
            return ConfirmCardFlow(pending.best or "EX", pending.confidence, pending.alternatives[:3],
                                   lang=lang, style=style)
        state = session.state
        if session.rules.kind == "french-tarot":
            if state.phase == "bidding":
                return self._bidding(state)
            if state.phase == "calling":
                flow = self._bidding(state)
                return flow
            if state.phase == "ecart":
                return ChoiceFlow("Écart", [("Écart done", ("ecart", None))], lang, style)
            if state.phase in ("done", "redeal"):
                return ChoiceFlow("Deal over", [("New deal", ("new_deal",)), ("End the game", ("end_game",))],
                                  lang, style)
        elif state.phase == "deal":
            return ChoiceFlow("Who starts?", [(name, ("deal", seat)) for seat, name in enumerate(names)], lang, style)
        elif state.phase == "finished":
            return ChoiceFlow("Game over", [("New game", ("new_deal",)), ("End the match", ("end_game",))],
                              lang, style)
        return None

    def _bidding(self, deal) -> BiddingFlow:
        flow = BiddingFlow(self.app.session.names, deal.dealer, self.app.lang, self.app.style)
        for seat, bid in deal.bids:  # the bids already in the log (after a restart)
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
        """Open the flow the state asks for when none is open."""
        if self.flow is None or self.flow.done:
            self.flow = self.wanted_flow()
        self.app.menu_view = None if self.flow is None else self.flow.view()

    # ------------------------------------------------------------ buttons

    def on_button(self, event: tuple[str, str]) -> None:
        app = self.app
        if self.flow is None:
            if event == ("ok", "press"):
                self.flow = GameMenu(app.session.names, app.lang, app.style)
            elif event[0] == "back":
                app.alert = None  # dismiss an alert
            self.app.menu_view = None if self.flow is None else self.flow.view()
            app.refresh()
            return
        decisions = self.flow.handle(event)
        for decision in decisions:
            if decision and decision[0] != "cancel":
                app.on_decision(decision)
        if self.flow is not None and self.flow.done:
            self.flow = None
        self.sync()
        app.refresh()

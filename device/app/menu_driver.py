"""Which menu the buttons drive, from the game's state.

The menus (``device.app.flows``) are pure flows that turn button events into
decisions. This driver opens the one the moment needs: the confirmation of
an uncertain card, or what the game asks for (its ``menus``, see
:mod:`device.games.registry`: the bidding while a French tarot deal waits for
bids, "who starts" at the start of a Trivium game), and the game's menu (or
"écart done", the end-of-deal choices) when OK is pressed with nothing else
open. Decisions go to the :class:`~device.app.table.TableApp`.
"""

from __future__ import annotations

from device.app.flows import ConfirmCardFlow, Flow


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
        """Why a menu must be open now (a card to confirm, or what the game asks for), or None."""
        app = self.app
        if app.controller.pending:
            return ("confirm", id(app.controller.pending[0]))
        return app.session.rules.menus.wanted_key(app)

    def make_flow(self, key: tuple | None) -> Flow | None:
        if key is None:
            return None
        app = self.app
        if key[0] == "confirm":
            pending = app.controller.pending[0]
            return ConfirmCardFlow(pending.best or "EX", pending.confidence, pending.alternatives[:3],
                                   lang=app.lang, style=app.style, others=pending.possible)
        return app.session.rules.menus.make_flow(app, key)

    def ok_menu(self) -> Flow | tuple:
        """What OK does with nothing open: the game says (e.g. "écart done", the end-of-deal choices, its menu)."""
        return self.app.session.rules.menus.ok_menu(self.app)

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

"""Which menu the buttons drive, from the game's state.

The menus (``device.app.flows``) are pure flows that turn button events into
decisions. This driver opens the one the moment needs: the confirmation of
an uncertain card, or what the game asks for (its ``menus``, see
:mod:`device.app.registry`: the bidding while a French tarot deal waits for
bids, "who starts" at the start of a Trivium game), and the game's menu (or
"écart done", the end-of-deal choices) when OK is pressed with nothing else
open. Decisions go to the :class:`~device.app.table.TableApp`.
"""

from __future__ import annotations

from device.app.flows import ChoiceFlow, ConfirmCardFlow, Flow
from device.app.views import pending_place, seat_name
from device.i18n import N_, translator


class MenuDriver:
    """Keeps the right menu open. Menus the state asks for (the bidding, a
    card to confirm, who starts a Trivium game) open by themselves and follow
    the state: when it moves on by another way (the camera, an undo, a
    restart) they are rebuilt from it. OK with nothing open says "écart
    done", opens the end-of-deal choices, or the game menu; those stay until
    they are done."""

    def __init__(self, app, online=None):
        self.app = app
        self.online = online  # device.app.online.Online: the page's QR code, the club (long BACK)
        if online is not None:
            online.show = self._show_later  # e.g. the club refused a deal: the reason is shown
        self.flow: Flow | None = None
        self.flow_key: tuple | None = None  # why a state-driven flow is open; None: opened by the player
        self.camera_check = None  # device.app.camera_check.DeviceCameraCheck: a long UP shows its screen
        self.sync()

    def show_camera_check(self, advice: tuple[str, ...]) -> None:
        """The OLED's "Camera check" screen over the game, until OK or BACK."""
        from device.app.camera_check import CameraCheckFlow

        self.flow, self.flow_key = CameraCheckFlow(advice, self.app.lang, self.app.style), None
        self.app.menu_view = self.flow.view()
        self.app.refresh()

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
            where = pending_place(app, pending)
            seat = where.get("seat")
            return ConfirmCardFlow(pending.best or "EX", pending.confidence, pending.alternatives[:3],
                                   seat=None if seat is None else seat_name(app.session.names, seat),
                                   lang=app.lang, style=app.style, trick=where.get("trick"),
                                   place=where.get("place", "trick"),
                                   others=pending.possible, unread=pending.unread)
        return app.session.rules.menus.make_flow(app, key)

    def ok_menu(self) -> Flow | tuple:
        """What OK does with nothing open: once the game's target is reached and its
        last deal closed, the end-of-game choice; else the game says (e.g. "écart
        done", the end-of-deal choices, its menu: its "New deal" then closes the
        last deal and shows the end of the game)."""
        app = self.app
        if app.session.match_over and app.session.deal.finished is not None:
            tr = translator(app.lang)
            return ChoiceFlow(tr(N_("Game over")), [(tr(N_("New game")), ("end_game",))], app.lang, app.style)
        return app.session.rules.menus.ok_menu(app)

    def sync(self) -> None:
        """Open (or rebuild) the flow the state asks for; keep a menu the player opened."""
        key = self.wanted_key()
        player_menu = self.flow is not None and not self.flow.done and self.flow_key is None
        if not player_menu and (self.flow is None or self.flow.done or self.flow_key != key):
            self.flow = self.make_flow(key)
            self.flow_key = key
        self.app.menu_view = None if self.flow is None else self.flow.view()

    def _show_later(self, view) -> None:
        """A screen that arrives from another thread (the club's pairing code): shown at the next redraw."""
        self.app.alert = view

    # ------------------------------------------------------------ buttons

    def on_button(self, event: tuple[str, str]) -> None:
        app = self.app
        if (event == ("up", "long") and self.camera_check is not None
                and (self.flow is None or self.flow_key is not None)):  # also over the bidding: it comes back after
            self.show_camera_check(self.camera_check.check_now())
            return
        if (event == ("back", "long") and self.online is not None and self.online.enabled
                and (self.flow is None or self.flow_key is not None)):
            # the online menu, also over a menu the state opened (the bidding comes back after it)
            self.flow, self.flow_key = self.online.menu(app.lang, app.style, len(app.session.names)), None
            app.menu_view = self.flow.view()
            app.refresh()
            return
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
        follow_up = None
        for decision in decisions:
            if decision and decision[0] == "online" and self.online is not None:
                shown = self.online.decide(app, decision, self._show_later)
                if isinstance(shown, Flow):
                    follow_up = shown  # a further menu (the club's players, seat by seat)
                else:
                    app.alert = shown
            elif decision and decision[0] != "cancel":
                app.on_decision(decision)
        if self.flow is flow and flow.done:
            self.flow = None
        if follow_up is not None:
            self.flow, self.flow_key = follow_up, None
        self.sync()
        app.refresh()

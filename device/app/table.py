"""The table app: source → tracker → controller → deal log → engine → screens.

:class:`TableApp` is the part shared by ``tarotmate run`` (camera, OLED,
buttons; its main loop is :mod:`device.app.loop`) and ``tarotmate demo``
(simulated table, emulated OLED, a scripted player): it feeds table events
and menu decisions to the controller, keeps the alert and announcement
screens, sounds the buzzer, and redraws the screen after every change. What
it shows of the game itself is the game's (``session.rules.screens``).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from device.app.controller import ALERT, APPLIED, CONFIRM, Controller, Notice, controller_for
from device.app import views
from device.app.session import GameSession
from device.hardware.outputs import Outputs


class TableApp:
    """One game at the table, from events and decisions to what the screen shows."""

    def __init__(
        self,
        session: GameSession,
        outputs: Outputs | None = None,
        *,
        lang: str = "en",
        style: str = "french",
        report: Callable[[str], None] | None = None,
    ):
        self.session = session
        self.controller: Controller = controller_for(session)
        self.outputs = outputs or Outputs()
        self.lang = lang
        self.style = style
        self.report = report or (lambda text: None)
        self.alert: Any = None  # a view shown until the next applied operation
        self.menu_view: Any = None  # a menu the buttons opened, shown over the game
        self.tick = 0
        self.swept = False
        self.hooks: list[Callable[[], None]] = []  # called after each change, before the redraw
        self._violations_seen = (id(session.state), self._violation_count())
        self.last_image = None

    # ------------------------------------------------------------ inputs

    def on_events(self, events: Iterable[Any]) -> list[Notice]:
        notices: list[Notice] = []
        refresh = False
        for event in events:
            notices += self.controller.on_event(event)
            if event.type == "cleared" and event.zone == "middle":
                self.swept = True  # the trick was gathered: the live target replaces it
                refresh = True
        if notices or refresh:
            self._after(notices)
        return notices

    def on_decision(self, decision: tuple) -> list[Notice]:
        notices = self.controller.on_decision(decision)
        self._after(notices)
        return notices

    def _after(self, notices: list[Notice]) -> None:
        for notice in notices:
            self.report(f"{notice.kind}: {notice.text}")
            if notice.kind == ALERT:
                self.alert = self._alert_view(notice)
                self.outputs.alert("violation")
            elif notice.kind == APPLIED:
                self.alert = None
                self.swept = False
            elif notice.kind == CONFIRM:
                self.outputs.alert("confirm")
        self._check_violations()
        self._check_announcements(notices)
        for hook in self.hooks:
            hook()
        self.refresh()

    def _violation_count(self) -> int:
        return len(self.session.rules.screens.violations(self.session.state))

    def _check_violations(self) -> None:
        """A violation the engine found (a revoke proven by a later card) is shown with the buzzer."""
        state = self.session.state
        screens = self.session.rules.screens
        found = list(screens.violations(state))
        seen_state, seen = self._violations_seen
        if seen_state != id(state):
            seen = 0  # a new deal starts with none
        if len(found) > seen:
            violation = found[-1]
            self.alert = screens.violation_view(violation, self.session.names, state)
            self.report(f"violation: {violation}")
            self.outputs.alert("violation")
        self._violations_seen = (id(state), len(found))

    def _check_announcements(self, notices: list[Notice]) -> None:
        """An announcement of the game (a Trivium win...) is shown over the game with the buzzer."""
        for notice in notices:
            view = self.session.rules.screens.announcement_alert(notice, self.session.names) \
                if notice.kind == APPLIED else None
            if view is not None:
                self.alert = view
                self.outputs.alert("announcement")

    def _alert_view(self, notice: Notice):
        return views.alert_view(notice.detail or notice.text, self.session.state, self.session.names, notice.seat,
                                notice.card)

    # ------------------------------------------------------------ screens

    def current_view(self):
        """What the OLED shows now: a menu, a card to confirm, an alert, or the game."""
        if self.menu_view is not None:
            return self.menu_view
        if self.controller.pending:
            return views.confirm_view(self.controller.pending[0], self.session.names)
        if self.alert is not None:
            return self.alert
        return self.game_view()

    def game_view(self):
        """The game's own screen for its state (see the game's ``screens``)."""
        return self.session.rules.screens.game_view(self)

    def score_view(self):
        totals = self.session.totals()
        deals = self.session.log.deals(self.session.game.id)
        scored = [d for d in deals if d.scores is not None]
        last = scored[-1].scores if scored else [0] * len(self.session.names)
        return views.score_table_view(self.session.names, last, totals, len(scored))

    def render(self, view):
        from device.screens import render

        return render(view, self.lang, self.style)

    def refresh(self, view=None) -> Any:
        image = self.render(view if view is not None else self.current_view())
        self.last_image = image
        self.outputs.show(image)
        return image

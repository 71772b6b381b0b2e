"""The table app: source → tracker → controller → deal log → engine → screens.

:class:`TableApp` is the part shared by ``tarotmate run`` (camera, OLED,
buttons) and ``tarotmate demo`` (simulated table, emulated OLED, a scripted
player): it feeds table events and menu decisions to the controller, keeps
the alert and announcement screens, sounds the buzzer, and redraws the
screen after every change. :func:`run_device` is the device's main loop,
with sd_notify (READY after the first frame, WATCHDOG from the loop) and a
clean shutdown on SIGTERM.
"""

from __future__ import annotations

import signal as signals
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from device.app.controller import ALERT, APPLIED, CONFIRM, Controller, Notice, controller_for
from device.app.session import GameSession
from device.app import views


@dataclass
class Outputs:
    """Where screens and alerts go: displays (OLED, emulator, recorder) and a buzzer."""

    displays: list[Any] = field(default_factory=list)
    signal: Any = None
    keep_alive: Callable[[], None] | None = None  # e.g. pump a window's events between screens

    def show(self, image) -> None:
        for display in self.displays:
            display.show(image)

    def idle(self) -> None:
        if self.keep_alive is not None:
            self.keep_alive()

    def alert(self, kind: str) -> None:
        if self.signal is not None:
            self.signal.alert(kind)

    def close(self) -> None:
        for display in self.displays:
            close = getattr(display, "close", None)
            if close is not None:
                close()
        if self.signal is not None:
            self.signal.close()


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
        return len(getattr(self.session.state, "violations", ()) or ())

    def _check_violations(self) -> None:
        """A violation the engine found (a revoke proven by a later card) is shown with the buzzer."""
        state = self.session.state
        found = list(getattr(state, "violations", ()) or ())
        seen_state, seen = self._violations_seen
        if seen_state != id(state):
            seen = 0  # a new deal starts with none
        if len(found) > seen and self.session.rules.kind == "french-tarot":
            violation = found[-1]
            self.alert = views.violation_view(violation, self.session.names, state)
            self.report(f"violation: {violation}")
            self.outputs.alert("violation")
        self._violations_seen = (id(state), len(found))

    def _check_announcements(self, notices: list[Notice]) -> None:
        if self.session.rules.kind != "trivium":
            return
        for notice in notices:
            announcement = getattr(notice, "announcement", None)
            if notice.kind == APPLIED and announcement is not None and announcement.kind in ("win", "not_tercia"):
                self.alert = views.announcement_view(announcement, self.session.names)
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
        session = self.session
        names = session.names
        if session.rules.kind == "trivium":
            return views.trivium_view(session.state, names)
        deal = session.state
        if deal.phase == "done":
            return views.deal_end_view(deal, names)
        if deal.phase == "play" and (self.swept or not deal.tricks) and not deal.current_trick.cards:
            return views.target_view(deal, names)
        return views.tarot_view(deal, names, getattr(self.controller, "chien_seen", []), self.lang, self.style)

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


# ---------------------------------------------------------------- the device


class StopFlag:
    """Set by SIGTERM/SIGINT; the main loop checks it between frames."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = ""

    def set(self, reason: str = "") -> None:
        self.reason = reason
        self._event.set()

    def __bool__(self) -> bool:
        return self._event.is_set()

    def install(self) -> None:
        def handler(signum, _frame):
            self.set(signals.Signals(signum).name)

        signals.signal(signals.SIGTERM, handler)
        signals.signal(signals.SIGINT, handler)


def run_device(config, *, stop: StopFlag | None = None, max_frames: int | None = None,
               report: Callable[[str], None] | None = None, source=None, tracker=None, buttons=None,
               outputs: Outputs | None = None, notifier=None) -> int:
    """``tarotmate run``: the device's main loop until SIGTERM (or ``max_frames``).

    The keyword arguments replace the parts the configuration would open
    (tests pass a simulated source, a ground-truth tracker, mock buttons)."""
    from device.hardware.from_config import open_buttons, open_outputs, open_frame_source, open_tracker
    from device.app.menu_driver import MenuDriver
    from device.app.notify import Notifier
    from device.games.registry import rules_for
    from device.storage.deal_log import DealLog

    if report is None:
        report = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    stop = StopFlag() if stop is None else stop
    notifier = Notifier() if notifier is None else notifier
    started = time.monotonic()
    notifier.status("starting")
    outputs = open_outputs(config, report) if outputs is None else outputs
    show_camera_status(outputs, config, "starting")
    log = DealLog.open(config.store.resolved())
    rules = rules_for(config.game.kind, config.game.options)
    names = config.game.seat_names()
    close_other_game(log, rules.kind, names, config.game.options, report)
    session = GameSession.resume_or_start(
        log, rules, names, config.game.options, label="device", first_setup={"dealer": config.game.dealer},
    )
    if session.replayed:
        report(f"resumed deal {session.deal.number}: {session.replayed} operations replayed from {log.path}")
    app = TableApp(session, outputs, lang=config.ui.language, style=config.ui.card_style, report=report)
    buttons = open_buttons(config, report) if buttons is None else buttons
    menus = MenuDriver(app)
    app.hooks.append(menus.sync)
    tracker = open_tracker(config) if tracker is None else tracker
    source = open_frame_source(config) if source is None else source
    frames = 0
    try:
        for frame in source:
            if stop:
                break
            app.on_events(tracker.process(frame))
            for event in buttons.drain():
                menus.on_button(event)
            if frames == 0:
                app.refresh()  # the camera works: the game's screen replaces the start screen
                notifier.ready(f"camera ok after {time.monotonic() - started:.1f} s")
                report(f"ready after {time.monotonic() - started:.2f} s")
            notifier.ping()
            frames += 1
            if frames % 30 == 0:
                notifier.status(status_line(session))
            if max_frames is not None and frames >= max_frames:
                break
    finally:
        notifier.stopping()
        for close in (source.close, buttons.close, outputs.close, log.close):
            try:
                close()
            except Exception as exc:  # closing must not hide the real error
                report(f"while closing: {exc}")
    reason = stop.reason or ("frame limit" if max_frames is not None and frames >= max_frames else "end of frames")
    report(f"stopped ({reason}) after {frames} frames")
    return 0


def show_camera_status(outputs: Outputs, config, camera: str) -> None:
    """The camera and recognition screen (while the camera and the model start)."""
    from device.screens import render
    from device.screens.views import CameraStatusView

    view = CameraStatusView(camera=camera, model=config.camera.deck or "default")
    outputs.show(render(view, config.ui.language, config.ui.card_style))


def close_other_game(log, kind: str, names: list[str], options: dict, report: Callable[[str], None]) -> None:
    """The configuration changed the game, the players or the variant: the
    open game is closed (its deals stay in the log) and a new one starts."""
    game = log.open_game("device")
    if game is None or (game.kind, game.names, game.options) == (kind, list(names), dict(options)):
        return
    deal = log.open_deal(game.id)
    if deal is not None:
        log.finish_deal(deal.id, None, None)
    log.finish_game(game.id)
    report(f"the configuration changed ({game.kind}, {', '.join(game.names)} → {kind}, {', '.join(names)}): "
           f"game {game.id} closed, a new game starts")


def status_line(session: GameSession) -> str:
    """The STATUS= line systemd shows: game, deal, phase."""
    state = session.state
    phase = getattr(state, "phase", "")
    return f"{session.rules.kind} · game {session.game.id} · deal {session.deal.number} · {phase}"

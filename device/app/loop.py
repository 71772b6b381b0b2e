"""The device's main loop (``tarotmate run``): frames → tracker → table app → screens.

:func:`run_device` opens what the configuration names (camera, display,
buttons), resumes the open game from the deal log, and runs until SIGTERM,
with sd_notify (READY after the first frame, WATCHDOG from the loop) and a
clean shutdown.
"""

from __future__ import annotations

import signal as signals
import sys
import threading
import time
from typing import Callable

from device.app.menu_driver import MenuDriver
from device.app.notify import Notifier
from device.app.session import GameSession
from device.app.table import TableApp
from device.games.registry import game_for
from device.hardware.from_config import open_buttons, open_frame_source, open_outputs, open_tracker
from device.hardware.outputs import Outputs
from device.storage.deal_log import DealLog


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

    if report is None:
        report = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    stop = StopFlag() if stop is None else stop
    notifier = Notifier() if notifier is None else notifier
    started = time.monotonic()
    notifier.status("starting")
    outputs = open_outputs(config, report) if outputs is None else outputs
    show_camera_status(outputs, config, "starting")
    log = DealLog.open(config.store.resolved())
    rules = game_for(config.game.kind)
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

    def tell_tracker() -> None:
        """The cards the player named, and those the rules say the camera may see now
        (see ``Controller.possible_cards``)."""
        controller = app.controller
        while controller.answered:
            tracker.identify(*controller.answered.pop(0))
        tracker.possible = controller.possible_cards()

    tell_tracker()
    app.hooks.append(tell_tracker)
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

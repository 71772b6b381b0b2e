"""The device's main loop (``tarotmate run``): frames → tracker → table app → screens.

:func:`run_device` opens what the configuration names (camera, display,
buttons), resumes the open game from the deal log, and runs until SIGTERM,
with sd_notify and a clean shutdown. The loop never waits on the camera for
more than :data:`LOOP_TICK_S`: the camera is read through its supervisor
(:mod:`device.app.camera`), so a camera that fails, stalls or stops is
retried while the loop goes on reading the buttons (the game goes on by
hand, the OLED says "camera lost"), pinging the watchdog (it pings while the
loop is alive, not while frames arrive) and saying what is wrong on the
``STATUS=`` line. SIGTERM ends it within a tick, whatever the camera does.
``READY=1`` is sent after the first frame, or as soon as the camera is known
to be lost (the device is usable from the buttons). With
``camera.give_up_after_s`` set, a camera lost that long ends the loop with
:data:`EXIT_CAMERA_LOST`, so that systemd restarts the service.
"""

from __future__ import annotations

import signal as signals
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable

from device.app.camera import PlainFrames, as_camera, camera_status, gives_up, lost_view, open_camera
from device.app.camera import is_live as camera_is_live
from device.app.menu_driver import MenuDriver
from device.app.notify import Notifier
from device.app.online import Online
from device.app.session import GameSession
from device.app.table import TableApp
from device.app.registry import game_for
from device.paths import ensure_file_folder
from device.hardware.from_config import open_buttons, open_outputs, open_tracker
from device.hardware.outputs import Outputs
from device.storage.deal_log import DealLog, check_not_in_use
from engine.errors import TarotmateError
from vision.deck_reading import ReadingNews

LOOP_TICK_S = 0.2  # the longest the loop waits for a frame before it reads the buttons again
STATUS_EVERY_S = 2.0
UNREAD_STATUS = "deck not read: cards asked unless known by sight (enrol it)"  # the STATUS= line's word on such a deck
CAMERA_TURN_S = 4.0  # while the camera is lost: its screen, then the game's, in turns
EXIT_CAMERA_LOST = 3  # camera.give_up_after_s reached: systemd's Restart=on-failure starts it again


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
    # The deal log is checked first (its place, and that no other `run` writes
    # it: a second one stops here, before touching the display) but created
    # only once the camera is up: a machine without its camera keeps no game
    # "in progress".
    store = ensure_file_folder(config.store.resolved(), "store.path", create=False)
    check_not_in_use(store)
    outputs = open_outputs(config, report) if outputs is None else outputs
    show_camera_status(outputs, config, "starting")
    rules = game_for(config.game.kind)
    log = app = menus = camera = session = online = None
    frames = 0
    ready = False
    status_due = 0.0
    said: tuple = ()
    deck = ReadingNews()  # whether the tracker finds the card model cannot read the deck in play (every card asked)
    exit_code = 0
    reason = ""
    try:
        buttons = open_buttons(config, report) if buttons is None else buttons
        tracker = open_tracker(config) if tracker is None else tracker
        wrap = None
        if config.camera.source == "simulator":  # the simulated table waits for the players' decisions
            wrap = lambda frames: WaitingTable(frames, lambda: table_waits(menus), fps=config.camera.fps,  # noqa: E731
                                                stop=stop)
        if source is None:
            camera = open_camera(config, report, wrap=wrap, game=rules)
        else:
            camera = as_camera(source if wrap is None else wrap(source))
        stop_at_end = isinstance(camera, PlainFrames)  # frames handed in (tests, benchmarks) end the loop
        early: list = []  # presses while the camera starts, acted on once the game is up
        first = first_frame(camera, config, stop, notifier, buttons, early)  # the camera delivers: the hardware is up
        if first is None:
            if camera.ended and not stop:  # a video or folder without a single frame
                raise TarotmateError(f"camera.source {config.camera.source}: no frame came from it")
            return 0  # stopped while the camera started: nothing was written
        if first is OPENED_BUT_LOST:
            first = None
        check = device_camera_check(config, tracker)
        game = start_game(config, store, rules, outputs, tracker, report, camera_check=check)
        log, online, session, app, menus = game.log, game.online, game.session, game.app, game.menus
        menus.camera_check = check
        if first is not None and source is None and config.camera.check_at_start and camera_is_live(config):
            camera_check_at_start(check, first.image, menus, report)
        for event in early:
            menus.on_button(event)
        while not stop:
            frame, first = (first, None) if first is not None else (camera.next_frame(LOOP_TICK_S), None)
            if frame is not None:
                app.on_events(tracker.process(frame))
                check.on_frame(frame.image, lambda: tracker.cards)
                frames += 1
                if (news := deck.news(tracker)) is not None:
                    report(news)
                    status_due = 0.0
            elif camera.ended and stop_at_end:
                reason = "end of frames"
                break
            if stop:
                break
            for event in buttons.drain():
                menus.on_button(event)
            now = time.monotonic()
            health = camera.health
            app.show_camera(camera_screen(health, now))
            if not ready and (frame is not None or lost_view(health, now) is not None):
                ready = True
                if frame is not None:
                    app.refresh()  # the camera works: the game's screen replaces the start screen
                    notifier.ready(f"camera ok after {now - started:.1f} s")
                else:
                    notifier.ready(camera_status(health, now))
                report(f"ready after {now - started:.2f} s")
            notifier.ping()
            if now >= status_due or (health.state, health.reason) != said:  # at once when the camera changes
                notifier.status(status_line(session, camera_status(health, now), UNREAD_STATUS if deck.unread else ""))
                status_due, said = now + STATUS_EVERY_S, (health.state, health.reason)
            if gives_up(health, now, config.camera.give_up_after_s):
                report(f"camera lost for {health.lost_for(now):.0f} s ({health.reason}): giving up "
                       f"(camera.give_up_after_s = {config.camera.give_up_after_s:g}); systemd restarts the service")
                notifier.status(f"giving up: {camera_status(health, now)}")
                reason, exit_code = "camera lost", EXIT_CAMERA_LOST
                break
            if max_frames is not None and frames >= max_frames:
                reason = "frame limit"
                break
    finally:
        notifier.stopping()
        closers = [getattr(camera, "close", None), getattr(buttons, "close", None), outputs.close,
                   getattr(online, "close", None), log.close if log is not None else None]
        for close in closers:
            if close is None:
                continue
            try:
                close()
            except Exception as exc:  # closing must not hide the real error
                report(f"while closing: {exc}")
        if sys.exc_info()[0] is None:  # an error is reported by the command, once
            report(f"stopped ({stop.reason or reason or 'stopped'}) after {frames} frames")
    return exit_code


@dataclass
class StartedGame:
    """What the loop plays once the camera delivers: the deal log, the club link,
    the game resumed or started, the table app and its menus."""

    log: DealLog
    online: Online
    session: GameSession
    app: TableApp
    menus: MenuDriver


def device_camera_check(config, tracker):
    """The camera check of the OLED and the live view, with the tracker's zones."""
    from device.app.camera_check import DeviceCameraCheck

    return DeviceCameraCheck(zones=getattr(tracker, "zones", None), lang=config.ui.language,
                             hfov_deg=config.camera.hfov_deg)


def camera_check_at_start(check, image, menus, report: Callable[[str], None]) -> None:
    """Check the first frame; with advice, the OLED shows the "Camera check" screen over the game."""
    try:
        advice = check.check(image)
    except Exception as exc:  # the check never stops the table
        report(f"camera check: {exc}")
        return
    report("camera check: " + ", ".join(advice))
    if advice != ("ok",):
        menus.show_camera_check(advice)


def start_game(config, store, rules, outputs: Outputs, tracker, report: Callable[[str], None],
               camera_check=None) -> StartedGame:
    """Open the deal log, resume its open game or start one, and wire the table
    app, its menus, the club link and the tracker's hints together. What was
    opened is closed again when a later step fails."""
    log = open_deal_log(store)
    online = None
    try:
        online = Online.from_config(config, log, report, camera=camera_check)
        names = online.seating(config.game.seat_names())  # the club players chosen on the OLED, if any
        close_other_game(log, rules.kind, names, config.game.options, report)
        session = GameSession.resume_or_start(
            log, rules, names, config.game.options, label="device", first_setup=first_setup(config),
        )
        if session.replayed:
            report(f"resumed deal {session.deal.number}: {session.replayed} operations replayed from {log.path}")
        app = TableApp(session, outputs, lang=config.ui.language, style=config.ui.card_style, report=report)
        app.controller.seat_sides = config.game.played_in_front
        if config.camera.learn_deck and tracker is not None:
            from device.app.deck_learning import MEMORY_FAILURES, attach

            try:
                namer = getattr(tracker, "namer", None)  # a stand-in tracker may have none: attach leaves it be
                learning = attach(app.controller, namer, log.path, report)  # the table learns its deck
            except MEMORY_FAILURES as exc:  # no card model, a damaged or unwritable memory: the game goes on without
                report(f"the table does not learn its deck: {exc}")
            else:
                if learning is not namer:  # its namings weighed by the memory: the bars that go with it
                    from vision.deck_memory import LEARNING_BARS
                    from vision.tracker_settings import with_bars

                    tracker.namer, tracker.settings = learning, with_bars(tracker.settings, LEARNING_BARS)
        menus = MenuDriver(app, online)
        app.hooks.append(menus.sync)
        app.hooks.append(lambda: online.update(app.session))
        online.update(session)

        def tell_tracker() -> None:
            """The cards the player named or fixed, and those the rules say the camera may see
            now (see ``Controller.possible_cards``)."""
            controller = app.controller
            while controller.answered:
                tracker.identify(*controller.answered.pop(0))
            while controller.fixed:
                tracker.fixed(*controller.fixed.pop(0))
            tracker.possible = controller.possible_cards()

        tell_tracker()
        app.hooks.append(tell_tracker)
    except BaseException:
        for close in (getattr(online, "close", None), log.close):
            if close is not None:
                close()
        raise
    return StartedGame(log, online, session, app, menus)


OPENED_BUT_LOST = object()  # the camera opened but fails to deliver: the game starts, played from the buttons


def first_frame(camera, config, stop: StopFlag, notifier, buttons, early: list):
    """Wait for the camera's first frame (``None``: stopped, or frames handed in that
    were empty; :data:`OPENED_BUT_LOST`: it opened, then failed). A camera that
    cannot be opened at all before it ever delivered is a start-up error (one
    line; systemd starts the service again) and nothing is written. A camera
    that opened is supervised from then on (retried; the game goes on from the
    buttons)."""
    from engine.errors import TarotmateError
    from vision.supervised_source import CameraProblem

    while not stop:
        frame = camera.next_frame(LOOP_TICK_S)
        if frame is not None:
            return frame
        if camera.ended:
            return None
        health = camera.health
        if health.frames == 0 and health.problem == CameraProblem.CANNOT_OPEN:
            raise TarotmateError(f"camera.source = {config.camera.source!r}: {health.reason}; "
                                 "nothing was written to the deal log")
        if health.lost:
            return OPENED_BUT_LOST
        early.extend(buttons.drain())
        notifier.ping()
    return None


class WaitingTable:
    """A frame source whose frames hold still while ``waits()`` (see :func:`waiting_table`)."""

    def __init__(self, frames, waits: Callable[[], bool], *, fps: float = 10.0, stop=None):
        self.frames, self.waits, self.fps, self.stop = frames, waits, fps, stop

    def __iter__(self):
        return waiting_table(iter(self.frames), self.waits, fps=self.fps, stop=self.stop)

    def close(self) -> None:
        close = getattr(self.frames, "close", None)
        if close is not None:
            close()


def camera_screen(health, now: float):
    """While the camera is lost: its screen for CAMERA_TURN_S, then the game's, in turns."""
    view = lost_view(health, now)
    if view is None:
        return None
    return view if int((now - health.since) // CAMERA_TURN_S) % 2 == 0 else None


def table_waits(menus) -> bool:
    """Whether the players have a decision to take before the table goes on:
    a menu the game opened (the bidding, the called King, who starts, a card to
    confirm) or the écart to confirm with OK."""
    if menus is None:
        return False
    flow = menus.flow
    if flow is not None and not flow.done and menus.flow_key is not None:
        return True
    return str(getattr(menus.app.session.state, "phase", "")) == "ecart"


def waiting_table(frames, waits: Callable[[], bool], *, fps: float = 10.0, stop=None):
    """The simulated table's frames, holding still while ``waits()``: the last
    frame again, paced at ``fps``, later frames shifted in time (a real table
    waits for its players too)."""
    from vision.sources import Frame

    shift, last, pause = 0.0, None, 1.0 / max(1.0, float(fps or 10.0))
    for frame in frames:
        while last is not None and waits() and not stop:
            shift += pause
            time.sleep(pause)
            yield Frame(last.image, last.timestamp + shift, last.index)
        last = Frame(frame.image, frame.timestamp + shift, frame.index)
        yield last


def open_deal_log(path) -> DealLog:
    """The deal log at ``path`` (created if new), or one line saying why not."""
    import sqlite3

    ensure_file_folder(path, "store.path")  # its folder, created now; or why it cannot be
    try:
        return DealLog.open(path)
    except (OSError, sqlite3.Error) as exc:
        raise TarotmateError(f"store.path {path}: cannot open the deal log: {exc}") from None


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
        # its operations must still replay: nothing is written into a damaged deal
        old = game_for(game.kind)
        GameSession(log, old, game, deal, None).check_replay()
        log.finish_deal(deal.id, None, None)
    log.finish_game(game.id)
    report(f"the configuration changed ({game.kind}, {', '.join(game.names)} → {kind}, {', '.join(names)}): "
           f"game {game.id} closed, a new game starts")


def status_line(session: GameSession, camera: str = "", deck: str = "") -> str:
    """The STATUS= line systemd shows: what is wrong with the camera (if anything), with the deck
    (``deck``: :data:`UNREAD_STATUS`), game, deal, phase."""
    state = session.state
    phase = getattr(state, "phase", "")
    game = f"{session.rules.kind} · game {session.game.id} · deal {session.deal.number} · {phase}"
    return " · ".join(part for part in (camera, deck, game) if part)


def first_setup(config) -> dict:
    """The first deal's setup: the first dealer and, when configured, the game's target."""
    setup: dict = {"dealer": config.game.dealer}
    if config.game.target is not None:
        setup["target"] = config.game.target
    return setup

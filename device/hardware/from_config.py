"""The device's edges, chosen by configuration: camera, display, buttons, buzzer.

Real hardware on the Pi (picamera2, ssd1306/sh1106 over I2C, GPIO through
lgpio) and emulators elsewhere (a video file, an image folder or the table
simulator; a pygame window, PNG/GIF capture or the terminal; gpiozero's mock
pins or the keyboard), behind the same interfaces. Nothing here tests
``if on_pi``: the configuration says what is attached.
"""

from __future__ import annotations

import queue
import sys
from typing import Any

from device.hardware.outputs import Outputs
from engine.errors import TarotmateError


def open_frame_source(config, game=None, report=None):
    """The camera (or its stand-in) named by ``camera.source``; the simulated
    table plays ``game``'s script (a :class:`device.app.registry.Game`)."""
    from vision import sources

    cam = config.camera
    size = (cam.width, cam.height)
    if cam.source == "picamera2":
        from vision.camera_controls import CameraSetup

        return sources.Picamera2Source(size=size, fps=cam.fps, setup=CameraSetup.from_config(cam), report=report)
    if cam.source == "opencv":
        return sources.OpenCVSource(cam.path or cam.device, fps=cam.fps, size=size)
    if cam.source == "folder":
        return sources.FolderSource(cam.path, fps=cam.fps)
    if cam.source == "simulator":
        if game is None:
            raise TarotmateError("camera.source: the simulated table needs the game it plays")
        return simulated_table(config, game, report=report)
    raise TarotmateError(f"camera.source: unknown source {cam.source!r}")


def simulated_table(config, game, seed: int = 1, report=None):
    """``game``'s random deal (or game): its visible part on the simulated table
    (for trying ``run`` on a desktop), and what to enter to follow it."""
    from vision.simulator import TableSimulator
    from vision.sources import SimulatorSource

    script = game.simulated_script(config.game, seed)
    if game.simulated_hint is not None:
        (report or _stderr)(game.simulated_hint(config.game, seed))
    simulator = TableSimulator(script, players=config.game.players, size=(config.camera.width, config.camera.height),
                               fps=config.camera.fps, seed=seed, deck=config.camera.deck or None)
    return SimulatorSource(simulator)


def open_tracker(config):
    """The tracker with the configured zones and card model (deck profile)."""
    from vision.decks import load_namer
    from vision.tracker import Tracker
    from vision.zones import load_zones

    zones = load_zones(config.camera.zones or None)
    if config.camera.source == "simulator" and not config.camera.zones:
        from vision.simulator import TableLayout

        zones = TableLayout(config.game.players, (config.camera.width, config.camera.height)).zones
    from device.app.registry import game_for
    from vision.tracker import settings_for
    from vision.tracker_settings import with_bars

    namer = load_namer(deck=config.camera.deck or None, at_table=True)
    return Tracker(zones, namer=namer, settings=with_bars(settings_for(namer), game_for(config.game.kind).tracker_changes()))


def open_outputs(config, report=None) -> Outputs:
    """The OLED (or emulator) and the buzzer/LED."""
    from device.hardware.display import open_display

    d = config.display
    try:
        display = open_display(d.kind, width=d.width, height=d.height, rotate=d.rotate, i2c_port=d.i2c_port,
                               i2c_address=d.i2c_address, out=d.out or None, scale=d.scale)
    except TarotmateError as exc:
        if d.kind not in ("ssd1306", "sh1106"):
            raise
        # the game (and its log) goes on without the screen; the journal says why
        (report or _stderr)(f"no display: {exc}; running without it")
        display = open_display("dummy", width=d.width, height=d.height)
    signal = None
    pins = config.pins
    if config.ui.buzzer and (pins.buzzer is not None or pins.led is not None):
        try:
            import warnings

            from device.hardware.buzzer import Signal

            with warnings.catch_warnings():  # gpiozero warns about every pin factory it tries
                warnings.simplefilter("ignore")
                signal = Signal(pins.buzzer, pins.led)
        except Exception as exc:  # no GPIO here: the screens still work
            (report or _stderr)(f"no buzzer/LED ({exc})")
    return Outputs([display], signal)


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class ButtonEvents:
    """Button events from the GPIO panel (or the terminal keyboard), read
    without blocking from the main loop."""

    def __init__(self, source: Any):
        self.source = source

    def drain(self) -> list[tuple[str, str]]:
        events = []
        q = getattr(self.source, "queue", None)
        while q is not None:
            try:
                events.append(q.get_nowait())
            except queue.Empty:
                break
        return events

    def close(self) -> None:
        close = getattr(self.source, "close", None)
        if close is not None:
            close()


class NoButtons(ButtonEvents):
    def __init__(self) -> None:
        super().__init__(None)


class PygameButtons(ButtonEvents):
    """The keyboard of the emulated OLED's window: arrows, Enter (OK),
    Backspace (back); a key held down is a long press."""

    def __init__(self, hold_time: float):
        from device.hardware.buttons import PygameKeys

        super().__init__(None)
        self.keys = PygameKeys(hold_time=hold_time)

    def drain(self) -> list[tuple[str, str]]:
        pygame = self.keys.pygame
        events: list[tuple[str, str]] = []
        if pygame.display.get_init():
            for event in pygame.event.get((pygame.KEYDOWN, pygame.KEYUP)):
                events += self.keys.feed(event)
        return events + self.keys.tick()


def open_buttons(config, report=None) -> ButtonEvents:
    """The four buttons on their GPIO pins; the keyboard with the terminal or
    pygame display (an emulated device on a desktop)."""
    if config.display.kind == "terminal" and sys.stdin.isatty():
        from device.hardware.buttons import KeyboardButtons

        return ButtonEvents(KeyboardButtons().start())
    if config.display.kind == "pygame":
        return PygameButtons(config.ui.long_press_s)
    pins = {name: getattr(config.pins, name) for name in ("up", "down", "ok", "back")}
    try:
        import warnings

        from device.hardware.buttons import ButtonPanel

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ButtonEvents(ButtonPanel(pins, hold_time=config.ui.long_press_s))
    except Exception as exc:  # e.g. BadPinFactory off the Pi without GPIOZERO_PIN_FACTORY=mock
        (report or _stderr)(f"no buttons ({exc}); set GPIOZERO_PIN_FACTORY=mock to emulate them")
        return NoButtons()

"""Buttons: four push buttons (up, down, OK, back) with long press, an optional
rotary encoder, and the keyboard on a desktop.

Events are tuples ``(button, kind)`` with button ``"up" | "down" | "ok" |
"back"`` and kind ``"press"`` (released before ``hold_time``) or ``"long"``
(held for ``hold_time``; sent once while still held, nothing on release).

Debouncing is done here, not by the pin factory (gpiozero's mock pins ignore
``bounce_time``): after an accepted edge, edges during ``debounce_ms`` are
ignored, and the pin level is read again when that window closes, so a burst
of contact chatter gives exactly one press.

Wiring: each button between its GPIO (BCM numbering) and ground; the internal
pull-up is used. A rotary encoder's A/B pins turn into ``down`` (clockwise)
and ``up`` (anticlockwise) presses.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable, Mapping

Event = tuple[str, str]
BUTTON_NAMES = ("up", "down", "ok", "back")


class _EventSource:
    """Where button events go: to ``callback(event)`` when one is given, else
    into ``self.queue``, read with :meth:`get` or :meth:`drain`."""

    def __init__(self, callback: Callable[[Event], None] | None) -> None:
        self.callback = callback
        self.queue: "queue.Queue[Event]" = queue.Queue()

    def emit(self, event: Event) -> None:
        if self.callback is not None:
            self.callback(event)
        else:
            self.queue.put(event)

    def get(self, timeout: float | None = None) -> Event | None:
        """The next event, or None after ``timeout`` seconds."""
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def drain(self) -> list[Event]:
        """Every event waiting in the queue, oldest first (no waiting)."""
        out: list[Event] = []
        while (event := self.get(0)) is not None:
            out.append(event)
        return out


class _DebouncedButton:
    """One gpiozero Button, debounced in software, with our own long-press timer."""

    def __init__(self, name: str, pin: Any, panel: "ButtonPanel", factory: Any) -> None:
        from gpiozero import Button

        self.name = name
        self.panel = panel
        self.button = Button(pin, pull_up=True, bounce_time=None, pin_factory=factory)
        self.pressed = False  # debounced state
        self.last_edge = -1e9  # time of the last accepted edge
        self.press_id = 0
        self.long_sent = False
        self.lock = threading.RLock()
        self.resample: threading.Timer | None = None
        self.hold: threading.Timer | None = None
        self.button.when_pressed = self._edge
        self.button.when_released = self._edge

    def _edge(self, *_: Any) -> None:
        with self.lock:
            now = time.monotonic()
            quiet = self.last_edge + self.panel.debounce_s - now
            if quiet > 0:
                if self.resample is None:  # read the level again when the chatter window closes
                    self.resample = threading.Timer(quiet, self._settle)
                    self.resample.daemon = True
                    self.resample.start()
                return
            self._apply(self.button.is_pressed, now)

    def _settle(self) -> None:
        with self.lock:
            self.resample = None
            self._apply(self.button.is_pressed, time.monotonic())

    def _apply(self, level: bool, now: float) -> None:
        if level == self.pressed:
            return
        self.pressed = level
        self.last_edge = now
        if level:
            self.press_id += 1
            self.long_sent = False
            self.hold = threading.Timer(self.panel.hold_time, self._held, args=(self.press_id,))
            self.hold.daemon = True
            self.hold.start()
        else:
            if self.hold is not None:
                self.hold.cancel()
                self.hold = None
            if not self.long_sent:
                self.panel.emit((self.name, "press"))

    def _held(self, press_id: int) -> None:
        with self.lock:
            if self.pressed and press_id == self.press_id and not self.long_sent:
                self.long_sent = True
                self.panel.emit((self.name, "long"))

    def close(self) -> None:
        with self.lock:
            for timer in (self.resample, self.hold):
                if timer is not None:
                    timer.cancel()
        self.button.close()


class ButtonPanel(_EventSource):
    """The device's buttons.

    ``pins`` maps ``up/down/ok/back`` to GPIO numbers (BCM); a button left
    out simply sends nothing.
    ``encoder`` is ``{"a": pin, "b": pin}`` for an optional rotary encoder.
    Events go to ``callback(event)`` when given (called from gpiozero's
    threads), else to ``self.queue`` (read them with :meth:`get`).
    ``pin_factory`` is passed to gpiozero (``None``: its default, which
    ``GPIOZERO_PIN_FACTORY=mock`` turns into the mock factory).
    """

    def __init__(self, pins: Mapping[str, int], hold_time: float = 0.8, debounce_ms: float = 30,
                 pin_factory: Any = None, encoder: Mapping[str, int] | None = None,
                 callback: Callable[[Event], None] | None = None) -> None:
        unknown = set(pins) - set(BUTTON_NAMES)
        if unknown:
            raise ValueError(f"unknown button(s) {', '.join(sorted(unknown))}: expected {', '.join(BUTTON_NAMES)}")
        if hold_time <= 0 or debounce_ms < 0:
            raise ValueError("hold_time must be > 0 and debounce_ms >= 0")
        self.hold_time = hold_time
        self.debounce_s = debounce_ms / 1000
        super().__init__(callback)
        self.buttons = {name: _DebouncedButton(name, pin, self, pin_factory) for name, pin in pins.items()}
        self.encoder = None
        if encoder:
            from gpiozero import RotaryEncoder

            self.encoder = RotaryEncoder(encoder["a"], encoder["b"], max_steps=0, pin_factory=pin_factory)
            self.encoder.when_rotated_clockwise = lambda *_: self.emit(("down", "press"))
            self.encoder.when_rotated_counter_clockwise = lambda *_: self.emit(("up", "press"))

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        if self.encoder is not None:
            self.encoder.close()

    def __enter__(self) -> "ButtonPanel":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# --- Keyboard on a desktop ---------------------------------------------------

# Terminal keys: arrows, Enter, Backspace; a capital letter (U D O B), Tab
# (long OK) or Escape alone (long back) stand for long presses, since a
# terminal does not report how long a key is held.
TERMINAL_KEYS: dict[str, Event] = {
    "\x1b[A": ("up", "press"),
    "\x1b[B": ("down", "press"),
    "\x1b[C": ("ok", "press"),
    "\x1b[D": ("back", "press"),
    "\r": ("ok", "press"),
    "\n": ("ok", "press"),
    "\x7f": ("back", "press"),
    "\x08": ("back", "press"),
    "u": ("up", "press"),
    "d": ("down", "press"),
    "o": ("ok", "press"),
    "b": ("back", "press"),
    "U": ("up", "long"),
    "D": ("down", "long"),
    "O": ("ok", "long"),
    "B": ("back", "long"),
    "\t": ("ok", "long"),
    "\x1b": ("back", "long"),
}


def parse_keys(text: str) -> list[Event]:
    """Button events from characters typed in a terminal (unknown keys are skipped)."""
    events: list[Event] = []
    i = 0
    while i < len(text):
        if text.startswith("\x1b[", i) and i + 2 < len(text):
            event = TERMINAL_KEYS.get(text[i : i + 3])
            if event:
                events.append(event)
            i += 3
            continue
        event = TERMINAL_KEYS.get(text[i])
        if event:
            events.append(event)
        i += 1
    return events


class PygameKeys:
    """Button events from pygame key events, with real long presses.

    Feed it ``pygame.event`` objects (``KEYDOWN``/``KEYUP`` with ``.key``);
    call :meth:`tick` regularly so a held key turns into a long press.
    """

    def __init__(self, hold_time: float = 0.8, clock: Callable[[], float] = time.monotonic) -> None:
        import pygame

        self.pygame = pygame
        self.keys = {pygame.K_UP: "up", pygame.K_DOWN: "down", pygame.K_RETURN: "ok",
                     pygame.K_RIGHT: "ok", pygame.K_BACKSPACE: "back", pygame.K_LEFT: "back",
                     pygame.K_ESCAPE: "back"}
        self.hold_time = hold_time
        self.clock = clock
        self.down: dict[str, float] = {}
        self.long_sent: set[str] = set()

    def feed(self, event: Any) -> list[Event]:
        name = self.keys.get(getattr(event, "key", None))
        if name is None:
            return []
        if event.type == self.pygame.KEYDOWN:
            self.down.setdefault(name, self.clock())
            return []
        if event.type == self.pygame.KEYUP and name in self.down:
            self.down.pop(name)
            if name in self.long_sent:
                self.long_sent.discard(name)
                return []
            return [(name, "press")]
        return []

    def tick(self) -> list[Event]:
        now = self.clock()
        events = []
        for name, since in self.down.items():
            if name not in self.long_sent and now - since >= self.hold_time:
                self.long_sent.add(name)
                events.append((name, "long"))
        return events


class KeyboardButtons(_EventSource):
    """The terminal keyboard as a button panel (for ``--display terminal`` runs).

    Puts the terminal in cbreak mode and reads keys on a thread; events go to
    ``callback`` or ``self.queue`` like :class:`ButtonPanel`.
    """

    def __init__(self, stream: Any = None, callback: Callable[[Event], None] | None = None) -> None:
        import sys

        self.stream = stream or sys.stdin
        super().__init__(callback)
        self._saved = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)

    def start(self) -> "KeyboardButtons":
        import os

        try:
            fd = self.stream.fileno()
        except (OSError, ValueError, AttributeError):
            fd = None
        if fd is not None and os.isatty(fd):  # a terminal: keys without waiting for Enter
            import termios
            import tty

            self._saved = termios.tcgetattr(fd)
            tty.setcbreak(fd)
        self._thread.start()
        return self

    def _read(self) -> None:
        import os

        while not self._stop.is_set():
            try:
                chunk = os.read(self.stream.fileno(), 16).decode("utf-8", "ignore")
            except (OSError, ValueError, AttributeError):  # no file descriptor (e.g. io.StringIO)
                chunk = self.stream.read(1)
                if isinstance(chunk, bytes):
                    chunk = chunk.decode("utf-8", "ignore")
            if not chunk:
                return
            for event in parse_keys(chunk):
                self.emit(event)

    def close(self) -> None:
        self._stop.set()
        if self._saved is not None:
            import termios

            termios.tcsetattr(self.stream.fileno(), termios.TCSADRAIN, self._saved)
            self._saved = None

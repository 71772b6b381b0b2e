"""An optional buzzer and LED to draw attention to an alert (a violation, an announcement).

``Signal(buzzer_pin=..., led_pin=..., pin_factory=None)``; either pin may be
``None`` (not fitted). ``alert(kind)`` plays a short pattern without blocking:
``"violation"`` (three short beeps, LED blinking), ``"announcement"`` (one
long beep), ``"confirm"`` (LED blink only, for an uncertain card).
"""

from __future__ import annotations

from typing import Any

# kind -> (on seconds, off seconds, repetitions)
PATTERNS = {
    "violation": (0.12, 0.08, 3),
    "announcement": (0.5, 0.1, 1),
    "confirm": (0.1, 0.1, 2),
}


class Signal:
    def __init__(self, buzzer_pin: int | None = None, led_pin: int | None = None, pin_factory: Any = None) -> None:
        from gpiozero import LED, Buzzer

        self.buzzer = Buzzer(buzzer_pin, pin_factory=pin_factory) if buzzer_pin is not None else None
        self.led = LED(led_pin, pin_factory=pin_factory) if led_pin is not None else None

    def alert(self, kind: str) -> None:
        """Start the pattern of ``kind`` in the background (unknown kinds raise ValueError)."""
        try:
            on, off, n = PATTERNS[kind]
        except KeyError:
            raise ValueError(f"unknown alert {kind!r}: expected one of {', '.join(PATTERNS)}") from None
        if self.buzzer is not None and kind != "confirm":
            self.buzzer.blink(on_time=on, off_time=off, n=n, background=True)
        if self.led is not None:
            self.led.blink(on_time=on, off_time=off, n=n, background=True)

    def close(self) -> None:
        for device in (self.buzzer, self.led):
            if device is not None:
                device.close()

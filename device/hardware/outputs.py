"""Where screens and alerts go: the displays (OLED, emulator, recorder) and the buzzer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


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

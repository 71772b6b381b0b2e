"""Where the screens go: a real OLED over I2C, or an emulated one on a desktop.

``open_display(kind, ...)`` returns an object with ``show(image)`` and
``close()`` (and ``frames``, the images shown, for ``dummy``). Kinds:

* ``ssd1306``, ``sh1106``: the real module over I2C (luma.oled); a missing
  device raises :class:`~engine.errors.TarotmateError` with what to check.
* ``capture``: one PNG per frame in ``out`` (a folder), ``frame_0001.png``...,
  plus ``frame_0001@4x.png`` when ``scale`` > 1.
* ``gif``: an animated GIF written to ``out`` on ``close()``, scaled by ``scale``.
* ``pygame``: a desktop window (luma.emulator), scaled by ``scale``.
* ``terminal``: drawn in the terminal with block characters (luma.emulator).
* ``dummy``: kept in memory (``display.frames``, ``display.image``).

A display that fails while showing (an ``OSError``, e.g. the I2C bus or the
module is unplugged) is reported once in the log; later frames are tried
quietly, and a recovery is logged. The game goes on either way.

``rotate`` turns the picture upside down for a module mounted the other way:
0 or 180 (degrees; luma's quarter-turn value 2 is accepted too). The screens
are landscape, so 90/270 are refused.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PIL import Image

from engine.errors import TarotmateError

log = logging.getLogger("tarotmate.display")

KINDS = ("ssd1306", "sh1106", "capture", "gif", "pygame", "terminal", "dummy")
GIF_FRAME_MS = 500


def quarter_turns(rotate: int) -> int:
    """luma's rotation (0 or 2 quarter turns) from 0/180 degrees (or 0/2)."""
    if rotate in (0, 2):
        return rotate
    if rotate == 180:
        return 2
    raise TarotmateError(f"display rotation {rotate!r} is not 0 or 180 (the screens are landscape)")


class Display:
    """Common behaviour: fit the image, survive a failing device."""

    def __init__(self, width: int, height: int) -> None:
        self.size = (width, height)
        self.failing = False
        self.failures = 0
        self.shown = 0

    def prepare(self, image: Image.Image) -> Image.Image:
        if image.mode != "1":
            image = image.convert("1")
        if image.size != self.size:
            raise ValueError(f"image of {image.size[0]}x{image.size[1]}, the display is {self.size[0]}x{self.size[1]}")
        return image

    def show(self, image: Image.Image) -> bool:
        """Show one frame; False when the device failed (reported once)."""
        image = self.prepare(image)
        try:
            self._show(image)
        except OSError as exc:
            self.failures += 1
            if not self.failing:
                log.error("the display stopped answering (%s); the game goes on without it", exc)
            self.failing = True
            return False
        if self.failing:
            log.warning("the display answers again")
            self.failing = False
        self.shown += 1
        return True

    def _show(self, image: Image.Image) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class LumaDisplay(Display):
    """Any luma device: the real OLED drivers and the luma.emulator devices."""

    def __init__(self, device: Any) -> None:
        super().__init__(device.width, device.height)
        self.device = device

    def _show(self, image: Image.Image) -> None:
        self.device.display(image.convert(self.device.mode))

    def close(self) -> None:
        try:
            self.device.cleanup()
        except (OSError, AttributeError):  # already gone, or nothing to clean
            pass


class MemoryDisplay(Display):
    """Keeps every frame in memory: ``frames`` and the last one as ``image``."""

    def __init__(self, width: int = 128, height: int = 64) -> None:
        super().__init__(width, height)
        self.frames: list[Image.Image] = []

    @property
    def image(self) -> Image.Image | None:
        return self.frames[-1] if self.frames else None

    def _show(self, image: Image.Image) -> None:
        self.frames.append(image.copy())


class CaptureDisplay(Display):
    """One PNG per frame in a folder (and a scaled copy when ``scale`` > 1)."""

    def __init__(self, out: Path, width: int = 128, height: int = 64, scale: int = 4) -> None:
        super().__init__(width, height)
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.scale = scale

    def _show(self, image: Image.Image) -> None:
        number = self.shown + 1
        image.save(self.out / f"frame_{number:04d}.png")
        if self.scale > 1:
            big = image.convert("L").resize((image.width * self.scale, image.height * self.scale), Image.NEAREST)
            big.save(self.out / f"frame_{number:04d}@{self.scale}x.png")


class GifDisplay(Display):
    """Collects the frames and writes one animated GIF on ``close()``."""

    def __init__(self, out: Path, width: int = 128, height: int = 64, scale: int = 4,
                 frame_ms: int = GIF_FRAME_MS) -> None:
        super().__init__(width, height)
        self.out = Path(out)
        self.scale = max(1, scale)
        self.frame_ms = frame_ms
        self.frames: list[Image.Image] = []
        self.closed = False

    def _show(self, image: Image.Image) -> None:
        self.frames.append(image.convert("L").resize(
            (image.width * self.scale, image.height * self.scale), Image.NEAREST))

    def close(self) -> None:
        if self.closed or not self.frames:
            self.closed = True
            return
        self.closed = True
        self.out.parent.mkdir(parents=True, exist_ok=True)
        first, *rest = self.frames
        first.save(self.out, save_all=True, append_images=rest, duration=self.frame_ms, loop=0)


def _luma_oled(kind: str, width: int, height: int, rotate: int, i2c_port: int, i2c_address: int,
               serial: Any) -> Any:
    from luma.core import error as luma_error
    from luma.oled import device as oled

    if serial is None:
        from luma.core.interface.serial import i2c

        try:
            serial = i2c(port=i2c_port, address=i2c_address)
        except (luma_error.DeviceNotFoundError, luma_error.DevicePermissionError,
                luma_error.DeviceAddressError, OSError) as exc:
            raise TarotmateError(
                f"no {kind} OLED on I2C bus {i2c_port} at address {i2c_address:#04x} ({exc}); "
                "check the wiring, that I2C is enabled (raspi-config) and the address "
                "(i2cdetect -y 1), or set display kind = \"dummy\" in the config"
            ) from exc
    driver = oled.ssd1306 if kind == "ssd1306" else oled.sh1106
    try:
        return driver(serial, width=width, height=height, rotate=rotate)
    except (luma_error.Error, OSError) as exc:
        raise TarotmateError(f"the {kind} OLED at {i2c_address:#04x} does not answer: {exc}") from exc


def open_display(kind: str, *, width: int = 128, height: int = 64, rotate: int = 0, i2c_port: int = 1,
                 i2c_address: int = 0x3C, out: str | Path | None = None, scale: int = 4,
                 serial: Any = None) -> Display:
    """Open the display named ``kind`` (see the module docstring).

    ``out`` is the folder for ``capture`` and the file for ``gif``.
    ``serial`` replaces the I2C interface of ``ssd1306``/``sh1106`` (e.g.
    ``luma.core.interface.serial.noop()`` to run the real driver without
    hardware).
    """
    turns = quarter_turns(rotate)
    if kind in ("ssd1306", "sh1106"):
        return LumaDisplay(_luma_oled(kind, width, height, turns, i2c_port, i2c_address, serial))
    if kind == "dummy":
        return MemoryDisplay(width, height)
    if kind == "capture":
        return CaptureDisplay(Path(out or "screens-capture"), width, height, scale)
    if kind == "gif":
        return GifDisplay(Path(out or "screens.gif"), width, height, scale)
    if kind in ("pygame", "terminal"):
        import os

        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        try:
            from luma.emulator import device as emulator
        except ImportError as exc:
            raise TarotmateError(f"the {kind} display needs luma.emulator (pip install luma.emulator): {exc}") from exc
        if kind == "pygame":
            dev = emulator.pygame(width=width, height=height, rotate=turns, mode="1", transform="identity",
                                  scale=scale)
        else:
            dev = emulator.asciiblock(width=width, height=height, rotate=turns, mode="1")
        return LumaDisplay(dev)
    raise TarotmateError(f"unknown display kind {kind!r}: expected one of {', '.join(KINDS)}")

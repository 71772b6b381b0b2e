"""Guided deck enrollment on the device: the OLED names the card, the buttons drive the flow.

:class:`EnrollDevice` connects the enrollment state machine
(:class:`~device.enroll.flow.EnrollFlow` and its
:class:`~device.enroll.flow.Capturer`) to the screens
(:mod:`device.screens.enroll`), a display and the button panel. The
display, the buttons and the buzzer/LED are the ones ``tarotmate run``
uses, opened from the configuration by :mod:`device.hardware.from_config`
(``display.kind``: the OLED, or ``pygame``/``terminal``/``capture``/``gif``/
``dummy`` on a desktop; GPIO buttons, gpiozero's mock pins, or the keyboard).

Buttons (events ``(button, "press" | "long")`` of :mod:`device.hardware.buttons`):

=====================  ==============================================
while a card is shown   OK keeps it (once captured), BACK redoes its
                        captures, a long OK skips it (a missing card),
                        UP shows the previous card again
two cards too alike     OK keeps them, BACK shows both again, a long
                        OK keeps every remaining pair
any time                a long BACK stops; the progress is saved and
                        the same command goes on from there
the end                 OK leaves the end screen
=====================  ==============================================

:func:`enroll_with_display` is ``tarotmate enroll NAME --camera SOURCE
--display KIND``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from device.enroll.flow import (
    CAPTURED,
    CONFIRM,
    DONE,
    MOVING,
    REMOVE,
    REVIEW,
    SHOW,
    WAITING,
    Capturer,
    EnrollFlow,
    EnrollFlowError,
    ProgressFile,
)
from device.screens.views import EnrollCardView, EnrollConfirmView, EnrollDoneView, EnrollReviewView

# what the card screen says, from what the Capturer did with the last frame
_CAPTURE_STATE = {CAPTURED: "captured", WAITING: "captured", MOVING: "moving", REMOVE: "remove"}


class EnrollDevice:
    """One enrollment driven by the buttons and shown on a display.

    ``outputs`` is a :class:`device.hardware.outputs.Outputs` (``show(image)``,
    ``alert(kind)``, ``idle()``); ``buttons`` anything with ``drain()`` that
    returns the button events waiting (:class:`device.hardware.from_config.ButtonEvents`).
    ``auto`` keeps every card and every pair without asking.
    """

    def __init__(self, flow: EnrollFlow, capturer: Capturer, outputs: Any, buttons: Any, *, lang: str = "en",
                 style: str = "french", auto: bool = False, report: Callable[[str], None] | None = None):
        self.flow = flow
        self.capturer = capturer
        self.outputs = outputs
        self.buttons = buttons
        self.lang = lang
        self.style = style
        self.auto = auto
        self.report = report or (lambda text: None)
        self.stopped = False
        self.status: str | None = None  # what the capturer did with the last frame
        self._status_card: str | None = None  # the card that status is about
        self.shown: Any = None  # the view on the display now
        self.history: list[Any] = []  # every view shown, in order

    # ------------------------------------------------------------ what the screen shows

    def view(self):
        """The view model of the flow's current step."""
        p = self.flow.prompt()
        number = min(p.enrolled + p.skipped + 1, p.total)
        if p.step == SHOW:
            per = max(1, self.capturer.views_per_capture)
            status = self.status if self._status_card == p.card else None
            return EnrollCardView(p.card, number, p.total, _CAPTURE_STATE.get(status, "waiting"),
                                  captures=math.ceil(p.views / per), captures_needed=math.ceil(p.views_needed / per))
        if p.step == CONFIRM:
            return EnrollConfirmView(p.card, number, p.total)
        if p.step == REVIEW:
            return EnrollReviewView(p.pair.first, p.pair.second, p.pair.similarity)
        return self.end_view("building")

    def end_view(self, state: str, pairs: int = 0) -> EnrollDoneView:
        p = self.flow.prompt()
        return EnrollDoneView(self.flow.deck, p.enrolled, p.skipped, p.total, pairs, state)

    def show(self, view) -> None:
        """Draw ``view`` unless it is already on the display (an OLED frame costs tens of ms over I2C)."""
        if view == self.shown:
            return
        from device.screens import render

        self.outputs.show(render(view, self.lang, self.style))
        self.shown = view
        self.history.append(view)

    def refresh(self) -> None:
        self.show(self.view())

    # ------------------------------------------------------------ inputs

    def on_button(self, event: tuple[str, str]) -> None:
        """Apply one button event to the flow (a button that means nothing now is ignored)."""
        button, kind = event
        flow = self.flow
        step = flow.step
        if (button, kind) == ("back", "long"):
            self.stopped = True
            return
        try:
            if step in (SHOW, CONFIRM):
                if button == "ok" and kind == "long":
                    flow.skip()
                elif button == "ok" and step == CONFIRM:
                    flow.confirm()
                elif button == "back":
                    flow.redo()
                elif button == "up":
                    flow.back()
            elif step == REVIEW:
                if button == "ok" and kind == "long":
                    flow.accept_all()
                elif button == "ok":
                    flow.accept()
                elif button == "back":
                    flow.show_again()
        except EnrollFlowError as exc:  # e.g. UP on the first card: nothing to go back to
            self.report(str(exc))

    def on_frame(self, frame) -> None:
        """Offer one camera frame to the capturer when the flow waits for views."""
        if self.flow.step != SHOW:
            return
        self.status = self.capturer.offer(frame.image, frame.timestamp)
        self._status_card = self.flow.current
        if self.flow.step == CONFIRM:
            self.outputs.alert("confirm")  # the LED: the card may be taken away

    def run(self, frames: Iterable[Any], stop: Any = None) -> bool:
        """Go through camera ``frames`` until every card is done (True), a long BACK,
        ``stop`` becoming true, or the end of the frames (False; the progress is saved)."""
        self.refresh()
        for frame in frames:
            if stop:
                self.stopped = True
            for event in self.buttons.drain():
                self.on_button(event)
                if self.stopped:
                    break
            if self.stopped:
                break
            self.on_frame(frame)
            if self.auto:
                if self.flow.step == CONFIRM:
                    self.flow.confirm()
                elif self.flow.step == REVIEW:
                    self.flow.accept()
            self.refresh()
            self.outputs.idle()
            if self.flow.step == DONE:
                return True
        return self.flow.step == DONE

    # ------------------------------------------------------------ the end

    def finish(self, embedder, target: Path | str | None, progress: ProgressFile | None = None,
               source: str = "device"):
        """Build and save the profile (every card done); the end screen. Returns (profile, path)."""
        from vision.deck_profiles import save_profile

        self.show(self.end_view("building"))
        profile = self.flow.build_profile(embedder, source=source)
        path = save_profile(profile, target)
        if progress is not None:
            progress.remove()
        self.show(self.end_view("saved", len(profile.similar_pairs)))
        return profile, path

    def show_stopped(self) -> None:
        self.show(self.end_view("stopped"))

    def wait_for_ok(self, timeout_s: float, stop: Any = None, poll_s: float = 0.05) -> bool:
        """Keep the end screen until OK is pressed, ``timeout_s`` passes or ``stop``; True if OK was pressed."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and not stop:
            if any(button == "ok" for button, _ in self.buttons.drain()):
                return True
            self.outputs.idle()
            time.sleep(poll_s)
        return False


# ---------------------------------------------------------------- the command


@dataclass
class EnrollResult:
    finished: bool
    flow: EnrollFlow
    progress: ProgressFile
    profile: Any = None
    path: Path | None = None


# display kinds that stay on screen for the player to read (the others write files or keep frames)
INTERACTIVE_DISPLAYS = ("ssd1306", "sh1106", "pygame", "terminal")


def enroll_with_display(config, name: str, camera: str, target: Path, *, embedder=None, order=None, views=None,
                        strategy: str | None = None, seed: int = 0, auto: bool = False, lang: str | None = None,
                        style: str | None = None, end_wait_s: float | None = None, outputs=None, buttons=None,
                        source=None, stop=None, report: Callable[[str], None] | None = None) -> EnrollResult:
    """Guided enrollment of deck ``name`` from ``camera`` with the display and buttons of ``config``.

    The keyword arguments replace what the configuration or the defaults
    would open or choose (tests pass mock buttons, a memory display, frames).
    ``lang``/``style`` default to the configuration's ``ui.language`` and
    ``ui.card_style``; ``end_wait_s`` is how long the end screen waits for OK
    (default: 60 s on an OLED or a window, none for the file displays).
    """
    from engine.cards import CODES
    from device.enroll.flow import DEFAULT_VIEWS_NEEDED
    from device.hardware.from_config import open_buttons, open_outputs
    from vision.enroll import DEFAULT_STRATEGY, default_embedder, model_id

    report = report or (lambda text: None)
    embedder = embedder or default_embedder()
    progress = ProgressFile.for_deck(name, target)
    flow = progress.resume_or_start(name, model_id(embedder), views or DEFAULT_VIEWS_NEEDED, order or CODES,
                                    strategy or DEFAULT_STRATEGY)
    p = flow.prompt()
    if p.enrolled or p.skipped:
        report(f"resuming deck {name}: {p.enrolled} cards enrolled, {p.skipped} skipped")
    if end_wait_s is None:
        end_wait_s = 60.0 if config.display.kind in INTERACTIVE_DISPLAYS else 0.0
    outputs = open_outputs(config, report) if outputs is None else outputs
    try:
        buttons = open_buttons(config, report) if buttons is None else buttons
        try:
            device = EnrollDevice(flow, Capturer(flow, embedder, seed=seed), outputs, buttons,
                                  lang=lang or config.ui.language, style=style or config.ui.card_style, auto=auto,
                                  report=report)
            if source is None:
                from vision.sources import open_source

                source = open_source(camera)
            try:
                finished = device.run(source, stop)
            finally:
                close = getattr(source, "close", None)
                if close is not None:
                    close()
            result = EnrollResult(finished, flow, progress)
            if finished:
                result.profile, result.path = device.finish(embedder, target, progress, source=f"camera {camera}")
            else:
                device.show_stopped()
            if end_wait_s > 0:
                device.wait_for_ok(end_wait_s, stop)
            return result
        finally:
            buttons.close()
    finally:
        outputs.close()

"""The camera check on the device: at start and on a long press of UP, and the live view's data.

:class:`DeviceCameraCheck` is fed the frames of the main loop. It checks the
picture (:func:`vision.camera_check.check_frame`) on the first frame and then
every ``CHECK_EVERY_S`` while someone looks (the OLED's screen or the web
page's live view), and keeps, at most once a second while the live view is
watched, a small JPEG snapshot with what the tracker sees (its cards'
corners and names) and the zones, for ``/live`` (:mod:`device.web.live_view`).
Nothing is done for a view nobody watches: the main loop pays only a clock
read per frame.

:class:`CameraCheckFlow` is the OLED's "Camera check" screen as a menu: the
worst problem first, DOWN / UP for the others, OK or BACK to play.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from device.app.flows import Flow
from device.screens.camera_check import CameraCheckView, advice_texts

SNAPSHOT_EVERY_S = 1.0
CHECK_EVERY_S = 10.0
WATCHED_FOR_S = 5.0  # the live view counts as watched this long after its last request
SNAPSHOT_WIDTH = 640


class CameraCheckFlow(Flow):
    """The advice, one problem at a time: DOWN / UP the next / previous one, OK or BACK: done."""

    def __init__(self, advice: tuple[str, ...], lang: str = "en", style: str = "french") -> None:
        super().__init__(lang, style)
        self.advice = tuple(advice) or ("ok",)
        self.shown = 0

    def handle(self, event) -> list:
        button, kind = event
        if self.done:
            return []
        if button in ("up", "down"):
            step = 1 if button == "down" else -1
            self.shown = (self.shown + step) % len(self.advice)
            return []
        if button in ("ok", "back"):
            self.finish()
            return [("cancel",)]
        return []

    def view(self) -> CameraCheckView:
        return CameraCheckView(self.advice, self.shown)


class DeviceCameraCheck:
    """The latest check and snapshot of the table's camera (thread-safe for the page)."""

    def __init__(self, zones=None, lang: str = "en", hfov_deg: float = 66.0,
                 clock: Callable[[], float] = time.monotonic, localiser=None) -> None:
        from vision.camera_check import Thresholds

        self.zones = zones
        self.texts = advice_texts(lang)
        self.thresholds = Thresholds(hfov_deg=hfov_deg)
        self.clock = clock
        self.localiser = localiser
        self.result = None
        self.last_image = None
        self._lock = threading.Lock()
        self._jpeg: bytes | None = None
        self._state: dict[str, Any] = {"advice": [], "cards": [], "zones": [], "size": None, "version": 0}
        self._checked_at = -1e9
        self._snapped_at = -1e9
        self._watched_at = -1e9

    # ------------------------------------------------------------ the check
    def check(self, image) -> tuple[str, ...]:
        """Check ``image`` now; returns the advice codes (worst first, or ``("ok",)``)."""
        from vision.camera_check import check_frame

        # the device's check also says when a card is cut by the picture's edge (set-up: the seats' zones in view)
        result = check_frame(image, thresholds=self.thresholds, localiser=self.localiser, edges=True)
        self.result = result
        self._checked_at = self.clock()
        with self._lock:
            self._state["advice"] = result.to_json("", self.texts)["advice"]
            self._state["measures"] = {k: v for k, v in result.to_json("", self.texts).items()
                                       if k not in ("image", "advice")}
        return result.advice

    def check_now(self) -> tuple[str, ...]:
        """Check the latest frame (the OLED's camera check); ``("no_card",)`` before any frame."""
        return self.check(self.last_image) if self.last_image is not None else ("no_card",)

    @property
    def advice(self) -> tuple[str, ...]:
        return self.result.advice if self.result is not None else ()

    # ------------------------------------------------------------ the live view
    def watched(self) -> bool:
        return self.clock() - self._watched_at <= WATCHED_FOR_S

    def on_frame(self, image, cards=None) -> None:
        """The main loop's frame (BGR) and the tracker's cards (a list, or a function giving it):
        a snapshot once a second and a check every ``CHECK_EVERY_S``, only while the live view
        is watched."""
        self.last_image = image
        if image is None or not self.watched():
            return
        cards = cards() if callable(cards) else cards
        now = self.clock()
        if now - self._checked_at >= CHECK_EVERY_S:
            self.check(image)
        if now - self._snapped_at >= SNAPSHOT_EVERY_S:
            self._snapped_at = now
            self.snapshot(image, cards or [])

    def snapshot(self, image, cards: list[dict]) -> None:
        """Keep ``image`` reduced to ``SNAPSHOT_WIDTH`` as JPEG, with the cards' corners and names
        and the zones in normalised coordinates (the page draws them)."""
        import cv2

        h, w = image.shape[:2]
        scale = min(1.0, SNAPSHOT_WIDTH / float(w))
        small = cv2.resize(image, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else image
        ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 70])
        if not ok:
            return
        found = [{"card": c.get("card"), "zone": c.get("zone"),
                  "corners": [[round(x / w, 4), round(y / h, 4)] for x, y in c.get("corners", [])]} for c in cards]
        quads = []
        if self.result is not None:
            quads = [[[round(float(x) / w, 4), round(float(y) / h, 4)] for x, y in q] for q in self.result.quads]
        zones = [{"name": z.name, "polygon": [list(p) for p in z.polygon]} for z in (self.zones or [])]
        with self._lock:
            self._jpeg = buf.tobytes()
            self._state.update(cards=found, quads=quads, zones=zones, size=[w, h],
                               version=self._state["version"] + 1)

    def live_state(self) -> dict[str, Any]:
        """The live view's JSON (and the view counts as watched)."""
        self._watched_at = self.clock()
        with self._lock:
            return dict(self._state)

    def jpeg(self) -> bytes | None:
        self._watched_at = self.clock()
        with self._lock:
            return self._jpeg

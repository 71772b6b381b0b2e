"""A frame source that keeps going: a camera that fails, stalls or ends is
opened again, with backoff, while the caller's loop runs on.

The underlying source (any :class:`~vision.sources.FrameSource`, made by an
``opener`` function) is opened and read in a capture thread; frames reach the
caller through a queue. So a capture that hangs (a driver stuck in
``capture_request``, a webcam unplugged mid-read) never blocks the caller:
:meth:`SupervisedSource.next_frame` returns ``None`` after its timeout, and
the caller can read its buttons, ping the watchdog and notice SIGTERM. A
stall (no frame for ``stall_s`` seconds) abandons the stuck thread (it is a
daemon thread; its source is closed from another thread) and opens a new
source.

*Live* sources (a camera: ``run``, and ``watch picamera2``/``watch 0``) are
retried after a failure, a stall or an end, forever, with a backoff from
``backoff_s[0]`` doubling to ``backoff_s[1]``; frames are re-stamped by the
clock so that time runs on across restarts, and only the newest frame is
kept when the caller is slower. *Finite* sources (a video file, an image
folder, the simulator) deliver every frame and end normally at their end; a
failure or a stall raises :class:`~vision.sources.SourceError` (``watch``),
or, with ``retry=True`` (``run``: the device keeps going), is retried like a
camera's, the source starting over when it is opened again.

:attr:`SupervisedSource.health` says how the camera is doing (for the
screen, the systemd ``STATUS=`` line and ``camera.give_up_after_s``).
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Callable, Iterator

from vision.sources import Frame, FrameSource, SourceError

DEFAULT_STALL_S = 5.0
DEFAULT_BACKOFF_S = (0.5, 10.0)
MAX_STUCK_THREADS = 2  # capture threads left hanging in the driver before new attempts wait


class CameraProblem(StrEnum):
    NONE = ""
    CANNOT_OPEN = "cannot_open"  # the opener failed
    STALLED = "stalled"  # no frame for stall_s seconds
    STOPPED = "stopped"  # the stream ended by itself
    ERROR = "error"  # reading raised


class CameraState(StrEnum):
    STARTING = "starting"  # opening, no frame yet
    OK = "ok"  # frames arrive
    LOST = "lost"  # failed, stalled or ended: retrying
    ENDED = "ended"  # a finite source reached its end
    CLOSED = "closed"


@dataclass(frozen=True)
class CameraHealth:
    """How the camera is doing. ``since``: when it entered this state
    (the supervisor's clock); ``attempts``: failed opens or reads in a row;
    ``reason``: what went wrong last (empty while all is well)."""

    state: CameraState
    since: float
    reason: str = ""
    attempts: int = 0
    frames: int = 0  # delivered since the start
    problem: CameraProblem = CameraProblem.NONE

    @property
    def lost(self) -> bool:
        return self.state in (CameraState.LOST, CameraState.STARTING) and bool(self.reason)

    def lost_for(self, now: float) -> float:
        """Seconds without frames because of a problem (0 while all is well)."""
        return now - self.since if self.lost else 0.0


_END = object()


class _Attempt:
    """One opening of the underlying source, closed at most once."""

    def __init__(self, source: FrameSource):
        self.source = source
        self.closed = False


class _Failure:
    def __init__(self, error: SourceError):
        self.error = error


def describe_error(exc: BaseException) -> str:
    """One line for the journal and the STATUS= line."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, SourceError):
        return text or "the camera failed"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class SupervisedSource(FrameSource):
    """Frames from ``opener()``'s source, supervised (see the module's doc)."""

    def __init__(
        self,
        opener: Callable[[], FrameSource],
        *,
        live: bool = True,
        retry: bool | None = None,
        stall_s: float = DEFAULT_STALL_S,
        backoff_s: tuple[float, float] = DEFAULT_BACKOFF_S,
        clock: Callable[[], float] = time.monotonic,
        fps: float | None = None,
        report: Callable[[str], None] | None = None,
    ):
        self._opener = opener
        self.live = live
        self.retry = live if retry is None else retry
        self.stall_s = float(stall_s)
        self.backoff_s = (float(backoff_s[0]), float(backoff_s[1]))
        self._clock = clock
        self.fps = float(fps) if fps else 30.0
        self._report = report or (lambda text: None)
        self._queue: queue.Queue = queue.Queue(maxsize=1 if live else 8)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._generation = 0
        self._thread: threading.Thread | None = None
        self._current: _Attempt | None = None
        self._t0 = clock()
        self._busy_since: float | None = None  # opening or reading since (None: waiting to retry)
        self._abandoned: list[threading.Thread] = []  # stuck capture threads left behind
        self._health = CameraHealth(CameraState.STARTING, self._t0)
        self._index = 0
        self._last_stamp: float | None = None
        self._ended = False

    # ------------------------------------------------------------ state

    @property
    def health(self) -> CameraHealth:
        with self._lock:
            return self._health

    def _set(self, **changes) -> None:
        with self._lock:
            self._health = replace(self._health, **changes)

    def _problem(self, reason: str, generation: int, problem: CameraProblem) -> int:
        """Record a failure of attempt ``generation``; returns the attempts in a row."""
        with self._lock:
            if generation != self._generation:
                return self._health.attempts
            health = self._health
            since = health.since if health.state in (CameraState.LOST,) or (
                health.state == CameraState.STARTING and health.reason) else self._clock()
            self._health = replace(health, state=CameraState.LOST, reason=reason, since=since,
                                   attempts=health.attempts + 1, problem=problem)
            attempts = self._health.attempts
        self._report(f"camera: {reason}; retrying")
        return attempts

    def _delay(self, attempts: int) -> float:
        low, high = self.backoff_s
        return min(high, low * 2 ** max(0, attempts - 1))

    # ------------------------------------------------------------ capture thread

    def _start(self) -> None:
        with self._lock:
            self._generation += 1
            generation = self._generation
            self._busy_since = None
        thread = threading.Thread(target=self._capture, args=(generation,), daemon=True,
                                  name=f"tarotmate-camera-{generation}")
        self._thread = thread
        thread.start()

    def _current_generation(self, generation: int) -> bool:
        with self._lock:
            return generation == self._generation and not self._stop.is_set()

    def _busy(self, generation: int, busy: bool) -> None:
        with self._lock:
            if generation == self._generation:
                self._busy_since = self._clock() if busy else None

    def _capture(self, generation: int) -> None:
        while self._current_generation(generation):
            self._busy(generation, True)
            try:
                source = self._opener()
            except Exception as exc:  # the opener's error, whatever the library raises
                if not self.retry:
                    self._put(_Failure(SourceError(describe_error(exc))), generation)
                    return
                attempts = self._problem(f"cannot open it ({describe_error(exc)})", generation,
                                         CameraProblem.CANNOT_OPEN)
                self._busy(generation, False)
                self._sleep(self._delay(attempts), generation)
                continue
            attempt = _Attempt(source)
            with self._lock:
                current = generation == self._generation
                if current:
                    self._current = attempt
            if not current:
                self._close_quietly(attempt)
                return
            try:
                ended = self._read(source, generation)
            except Exception as exc:
                if not self.retry:
                    self._put(_Failure(SourceError(describe_error(exc))), generation)
                    return
                attempts = self._problem(describe_error(exc), generation, CameraProblem.ERROR)
            else:
                if not self._current_generation(generation):
                    return
                if not self.live:
                    self._put(_END, generation)
                    return
                attempts = (self._problem("it stopped sending frames", generation, CameraProblem.STOPPED)
                            if ended else 0)
            finally:
                self._close_quietly(attempt)
            self._busy(generation, False)
            self._sleep(self._delay(attempts), generation)

    def _read(self, source: FrameSource, generation: int) -> bool:
        """Deliver the source's frames; ``True`` when it ended by itself."""
        offset = None
        for frame in source:
            if not self._current_generation(generation):
                return False
            if self.live:
                stamp = self._clock() - self._t0
            else:  # the source's own times, carried on after a restart
                if offset is None:
                    offset = 0.0 if self._last_stamp is None else self._last_stamp + 1 / self.fps - frame.timestamp
                stamp = frame.timestamp + offset
            frame = Frame(frame.image, stamp, self._index)
            self._last_stamp = stamp
            self._index += 1
            with self._lock:
                if generation == self._generation:
                    self._busy_since = self._clock()
                if self._health.state != CameraState.OK:
                    if self._health.reason:
                        self._report(f"camera: back after {self._clock() - self._health.since:.1f} s")
                    self._health = replace(self._health, state=CameraState.OK, reason="", attempts=0,
                                           problem=CameraProblem.NONE,
                                           since=self._clock())
                self._health = replace(self._health, frames=self._health.frames + 1)
            self._put(frame, generation)
        return True

    def _put(self, item, generation: int) -> None:
        while self._current_generation(generation):
            if self.live and isinstance(item, Frame):
                try:  # only the newest frame matters to a live table
                    self._queue.get_nowait()
                except queue.Empty:
                    pass
            try:
                self._queue.put(item, timeout=0.1)
                return
            except queue.Full:  # the caller is slower: this thread is waiting, not stuck
                self._busy(generation, True)
                continue

    def _sleep(self, seconds: float, generation: int) -> None:
        deadline = time.monotonic() + seconds
        while self._current_generation(generation):
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._stop.wait(min(left, 0.1))

    def _close_quietly(self, attempt: _Attempt) -> None:
        with self._lock:
            if attempt.closed:
                return
            attempt.closed = True
            if self._current is attempt:
                self._current = None
        try:
            attempt.source.close()
        except Exception as exc:  # a broken camera may fail to close too
            self._report(f"camera: while closing: {describe_error(exc)}")

    def _close_in_background(self, attempt: _Attempt | None) -> None:
        """Close a source whose thread is stuck, without waiting for it."""
        if attempt is not None:
            threading.Thread(target=self._close_quietly, args=(attempt,), daemon=True,
                             name="tarotmate-camera-close").start()

    # ------------------------------------------------------------ the caller's side

    def _check_stall(self) -> None:
        now = self._clock()
        with self._lock:
            busy = self._busy_since
            source = self._current
        if busy is None or now - busy <= self.stall_s:
            return
        waited = now - busy
        if not self.retry:
            raise SourceError(f"no frame for {waited:.0f} s: the source stalled")
        self._abandoned = [t for t in self._abandoned if t.is_alive()]
        if len(self._abandoned) >= MAX_STUCK_THREADS:
            # the driver still holds the threads left behind: wait for one of them to give up
            with self._lock:
                self._busy_since = now
            self._problem_now(f"no frame for {waited:.0f} s (the capture hangs; waiting for the driver)")
            return
        with self._lock:
            self._generation += 1  # the stuck thread's results are ignored from now on
            self._busy_since = None
        if self._thread is not None:
            self._abandoned.append(self._thread)
        self._problem_now(f"no frame for {waited:.0f} s (the capture hangs)")
        self._close_in_background(source)
        self._start()

    def _problem_now(self, reason: str, problem: CameraProblem = CameraProblem.STALLED) -> None:
        with self._lock:
            health = self._health
            since = self._clock() if health.state == CameraState.OK or not health.reason else health.since
            self._health = replace(health, state=CameraState.LOST, reason=reason, since=since,
                                   attempts=health.attempts + 1, problem=problem)
        self._report(f"camera: {reason}; retrying")

    def next_frame(self, timeout: float = 0.25) -> Frame | None:
        """The next frame, or ``None`` when none came within ``timeout``
        seconds (see :attr:`health`) or the source has ended (:attr:`ended`)."""
        if self._ended or self._stop.is_set():
            return None
        if self._thread is None:
            self._start()
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            self._check_stall()
            return None
        if item is _END:
            self._ended = True
            self._set(state=CameraState.ENDED, since=self._clock())
            return None
        if isinstance(item, _Failure):
            self._ended = True
            raise item.error
        return item

    @property
    def ended(self) -> bool:
        return self._ended

    def __iter__(self) -> Iterator[Frame]:
        """Every frame until the source ends (finite) or :meth:`close`."""
        while not self._ended and not self._stop.is_set():
            frame = self.next_frame(0.25)
            if frame is not None:
                yield frame

    def close(self) -> None:
        """Stop the capture; returns within about a second even when the
        capture hangs (the stuck thread is left to the process's end)."""
        self._stop.set()
        with self._lock:
            self._generation += 1
            source = self._current
            self._health = replace(self._health, state=CameraState.CLOSED, since=self._clock())
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=0.5)
            if thread.is_alive():
                self._close_in_background(source)
                thread.join(timeout=0.5)
        elif source is not None:
            self._close_quietly(source)

"""What C libraries print, kept off the user's terminal and put in the log.

OpenCV's FFmpeg and libjpeg write their warnings ("No JPEG data found in
image", "Corrupt JPEG data: premature end of data segment") straight to file
descriptor 2, past Python. :class:`NativeStderr` sends that descriptor to a
scratch file while native code runs, and hands each line to a logger (level
INFO: ``tarotmate -v`` shows them). Python's own ``sys.stderr`` is untouched
between two native calls, so progress lines still reach the terminal.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")
log = logging.getLogger("tarotmate.native")


class NativeStderr:
    """``with NativeStderr() as quiet: quiet.call(cv2.imread, path)``.

    Inside the block, :meth:`call` runs a function with file descriptor 2 sent
    to a scratch file; :meth:`iterate` does the same for each step of an
    iterator. The captured lines are logged on :meth:`flush` and on leaving.
    """

    def __init__(self, logger: logging.Logger = log, level: int = logging.INFO,
                 prefix: str = "") -> None:
        self.logger = logger
        self.level = level
        self.prefix = prefix
        self._scratch = None
        self._read = 0
        self.lines: list[str] = []

    def __enter__(self) -> "NativeStderr":
        self._scratch = tempfile.TemporaryFile()
        return self

    def __exit__(self, *exc) -> None:
        self.flush()
        if self._scratch is not None:
            self._scratch.close()
            self._scratch = None

    def call(self, fn: Callable[..., T], *args, **kwargs) -> T:
        if self._scratch is None:
            return fn(*args, **kwargs)
        try:
            sys.stderr.flush()
        except (OSError, ValueError):  # pragma: no cover - a closed stderr
            pass
        try:
            saved = os.dup(2)
        except OSError:  # pragma: no cover - no descriptor 2 at all
            return fn(*args, **kwargs)
        os.dup2(self._scratch.fileno(), 2)
        try:
            return fn(*args, **kwargs)
        finally:
            os.dup2(saved, 2)
            os.close(saved)

    def iterate(self, items: Iterable[T]) -> Iterator[T]:
        it = self.call(iter, items)
        while True:
            try:
                item = self.call(next, it)
            except StopIteration:
                return
            yield item

    def flush(self) -> list[str]:
        """Log (and return) the lines captured since the last flush."""
        if self._scratch is None:
            return []
        self._scratch.seek(self._read)
        data = self._scratch.read()
        self._read += len(data)
        self._scratch.seek(0, os.SEEK_END)
        lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
        for line in lines:
            self.logger.log(self.level, "%s%s", self.prefix, line)
        self.lines.extend(lines)
        return lines


__all__ = ["NativeStderr"]

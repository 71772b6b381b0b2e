"""Folders and files the commands write, checked before any work starts.

A command that writes somewhere (``demo --out``, the deal log's
``store.path``, ``screens --out``) calls :func:`ensure_folder` or
:func:`ensure_file_folder` first; a place it cannot use is one
:class:`~engine.errors.TarotmateError` naming the path and why ("a part of it is
a file", "permission denied", "read-only file system"), never a traceback half
way through.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from engine.errors import TarotmateError


def _first_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists() or candidate.is_symlink():
            return candidate
    return Path(path.anchor or ".")  # pragma: no cover - the root always exists


def _why(exc: OSError) -> str:
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EROFS:
        return "read-only file system"
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    return exc.strerror or str(exc)


def _folder_problem(folder: Path, create: bool = True) -> str | None:
    """Why ``folder`` cannot be created or written, or None once it is ready
    (``create=False``: once it could be, creating nothing)."""
    existing = _first_existing(folder)
    if not existing.is_dir():
        if existing == folder:
            return "is a file, not a folder"
        return f"cannot create it: {existing} is a file, not a folder"
    if not create:
        if not os.access(existing, os.W_OK | os.X_OK):
            return (f"cannot write there: permission denied" if existing == folder
                    else f"cannot create it: permission denied in {existing}")
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create it: {_why(exc)}"
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        return f"cannot write there: {_why(exc)}"
    return None


def ensure_folder(path: str | Path, what: str) -> Path:
    """``path`` as a folder Tarotmate can write to, created if needed.

    ``what`` names the setting in the message (``"--out"``, ``"store.path"``).
    """
    folder = Path(path).expanduser()
    problem = _folder_problem(folder)
    if problem:
        raise TarotmateError(f"{what} {folder}: {problem}")
    return folder


def ensure_file_folder(path: str | Path, what: str, *, create: bool = True) -> Path:
    """``path`` as a file Tarotmate can create or rewrite: its folder exists
    (created if needed) and is writable, and ``path`` is not a folder.

    ``create=False`` only checks that it could be, creating nothing (``run``
    checks its deal log before the camera is up, and opens it after)."""
    file = Path(path).expanduser()
    if file.is_dir():
        raise TarotmateError(f"{what} {file}: is a folder, not a file")
    problem = _folder_problem(file.parent, create)
    if problem:
        raise TarotmateError(f"{what} {file}: its folder {file.parent} {problem}"
                             if problem.startswith("is a") else f"{what} {file}: {problem}")
    if file.exists() and not os.access(file, os.W_OK):
        raise TarotmateError(f"{what} {file}: cannot write it: permission denied")
    return file


__all__ = ["ensure_folder", "ensure_file_folder"]

"""What the systemd unit tests share: systemd's own linters run on a unit, and a unit's directives."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

needs_systemd = pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
needs_root = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("git") is None or shutil.which("setpriv") is None,
                                reason="needs root, git and setpriv (the installer runs as root)")


def _env(unit_path: Path | None) -> dict[str, str] | None:
    # "DIR:" : DIR first, then systemd's own search path (the trailing colon); drop-ins in DIR/NAME.d/ are read
    return None if unit_path is None else dict(os.environ, SYSTEMD_UNIT_PATH=f"{unit_path}:")


def verify(unit: Path, unit_path: Path | None = None) -> subprocess.CompletedProcess:
    """``systemd-analyze verify UNIT``: it exits 0 even on bad values; what matters is that it says nothing."""
    return subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True,
                          env=_env(unit_path))


def security(unit: Path, threshold: int, unit_path: Path | None = None) -> tuple[subprocess.CompletedProcess, str]:
    """``systemd-analyze security --offline`` of UNIT: (the run, its last line: the overall rating)."""
    result = subprocess.run(["systemd-analyze", "security", "--offline=true", f"--threshold={threshold}", str(unit)],
                            capture_output=True, text=True, env=_env(unit_path))
    return result, result.stdout.strip().splitlines()[-1]


def rated_ok(last_line: str) -> bool:
    return any(word in last_line for word in ("OK", "SAFE", "PERFECT"))


def directive(text: str, key: str) -> list[str]:
    """The space-separated values of the first ``KEY=`` line of a unit or drop-in."""
    line = next(line for line in text.splitlines() if line.startswith(f"{key}="))
    return line.split("=", 1)[1].split()

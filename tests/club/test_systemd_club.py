"""The club server's systemd unit passes systemd's linters and is hardened like the table's."""

import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "tarotmate-club.service"
needs_systemd = pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")


@needs_systemd
def test_verify_prints_nothing():
    result = subprocess.run(["systemd-analyze", "verify", str(UNIT)], capture_output=True, text=True)
    assert result.returncode == 0
    assert result.stdout == "" and result.stderr == ""


@needs_systemd
def test_security_rating_is_ok_or_better():
    result = subprocess.run(["systemd-analyze", "security", "--offline=true", "--threshold=20", str(UNIT)],
                            capture_output=True, text=True)
    last = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, last
    assert any(word in last for word in ("OK", "SAFE", "PERFECT")), last


def test_unit_serves_the_club_and_only_the_lan():
    text = UNIT.read_text()
    assert "tarotmate club serve" in text and "--port 8377" in text
    assert "IPAddressDeny=any" in text
    allow = next(line for line in text.splitlines() if line.startswith("IPAddressAllow="))
    assert "any" not in allow and "0.0.0.0/0" not in allow
    assert "LoadCredential=director-password:" in text
    for line in ("NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateDevices=yes", "CapabilityBoundingSet="):
        assert line in text

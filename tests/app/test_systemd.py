"""The systemd unit passes systemd's own linters; the install script parses."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "tarotmate.service"

needs_systemd = pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")


@needs_systemd
def test_verify_prints_nothing():
    # verify exits 0 even on bad values: what matters is that it says nothing.
    result = subprocess.run(["systemd-analyze", "verify", str(UNIT)], capture_output=True, text=True)
    assert result.returncode == 0
    assert result.stdout == "" and result.stderr == ""


@needs_systemd
def test_security_rating_is_ok_or_better():
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", "--threshold=40", str(UNIT)],
        capture_output=True,
        text=True,
    )
    last = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, last
    assert any(word in last for word in ("OK", "SAFE", "PERFECT")), last


def test_unit_keeps_what_the_device_needs():
    text = UNIT.read_text()
    for line in (
        "Type=notify",
        "WatchdogSec=",
        "Restart=on-failure",
        "SupplementaryGroups=gpio i2c video",
        "StateDirectory=tarotmate",
        "WorkingDirectory=/var/lib/tarotmate",
        "DeviceAllow=char-gpiochip rw",
        "DeviceAllow=char-i2c rw",
        "DeviceAllow=char-video4linux rw",
        "DeviceAllow=char-media rw",
        "DeviceAllow=char-dma_heap rw",
    ):
        assert line in text
    # these would hide the camera, I2C or GPIO from the service
    for forbidden in ("PrivateDevices=yes", "PrivateUsers=yes", "ProcSubset=pid"):
        assert forbidden not in text


def test_install_script_is_valid_bash():
    script = ROOT / "systemd" / "install.sh"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    text = script.read_text()
    assert "--system-site-packages" in text
    assert "python3-picamera2" in text and "python3-lgpio" in text

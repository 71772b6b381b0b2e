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


def _config(**sections):
    from device.config import config_from_dict

    return config_from_dict(sections)


def test_the_table_unit_stays_closed_without_web_or_club():
    from device.club.unit import dropin_for

    assert dropin_for(_config()) is None
    assert "IPAddressDeny=any" in (UNIT.parent / "tarotmate.service").read_text()


def test_the_dropin_opens_only_the_lan_and_the_club_server():
    from device.club.unit import dropin_for

    text = dropin_for(_config(web={"enabled": True}, club={"enabled": True, "url": "http://93.184.216.34:8377"}))
    allow = next(line for line in text.splitlines() if line.startswith("IPAddressAllow="))
    assert allow.split("=", 1)[1].split() == ["localhost", "link-local", "multicast", "10.0.0.0/8", "172.16.0.0/12",
                                              "192.168.0.0/16", "fc00::/7", "93.184.216.34"]
    assert "RestrictAddressFamilies=AF_INET AF_INET6" in text
    lan_only = dropin_for(_config(club={"enabled": True, "url": "http://192.168.1.10:8377"}))
    assert lan_only.split("IPAddressAllow=")[1].split() == allow.split("=", 1)[1].split()[:-1]  # the LAN covers it


@needs_systemd
def test_the_table_unit_with_the_dropin_passes_the_linters(tmp_path):
    import os

    from device.club.unit import dropin_for

    shutil.copy(UNIT.parent / "tarotmate.service", tmp_path / "tarotmate.service")
    (tmp_path / "tarotmate.service.d").mkdir()
    (tmp_path / "tarotmate.service.d" / "online.conf").write_text(dropin_for(_config(web={"enabled": True})))
    env = dict(os.environ, SYSTEMD_UNIT_PATH=f"{tmp_path}:")
    verify = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "tarotmate.service")], capture_output=True,
                            text=True, env=env)
    assert verify.returncode == 0 and verify.stdout == "" and verify.stderr == ""
    security = subprocess.run(["systemd-analyze", "security", "--offline=true", "--threshold=20",
                               str(tmp_path / "tarotmate.service")], capture_output=True, text=True, env=env)
    assert "Service may allocate Internet sockets" in security.stdout  # the drop-in was read
    assert security.returncode == 0 and "OK" in security.stdout.strip().splitlines()[-1]

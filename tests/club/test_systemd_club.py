"""The club server's systemd unit passes systemd's linters and is hardened like the table's; the table's
network drop-in opens only the LAN, and install.sh installs it (or removes it) as the configuration says."""

import shutil
import subprocess
import sys
from pathlib import Path

from tests.systemd_units import directive, needs_root, needs_systemd, rated_ok, security, verify

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "tarotmate-club.service"
INSTALL = ROOT / "systemd" / "install.sh"
LAN = ["localhost", "link-local", "multicast", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]


@needs_systemd
def test_verify_prints_nothing():
    result = verify(UNIT)
    assert result.returncode == 0
    assert result.stdout == "" and result.stderr == ""


@needs_systemd
def test_security_rating_is_ok_or_better():
    result, last = security(UNIT, threshold=20)
    assert result.returncode == 0, last
    assert rated_ok(last), last


def test_unit_serves_the_club_and_only_the_lan():
    text = UNIT.read_text()
    assert "tarotmate club serve" in text and "--port 8377" in text
    assert "IPAddressDeny=any" in text
    allow = directive(text, "IPAddressAllow")
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
    assert directive(text, "IPAddressAllow") == LAN + ["93.184.216.34"]
    assert "RestrictAddressFamilies=AF_INET AF_INET6" in text
    lan_only = dropin_for(_config(club={"enabled": True, "url": "http://192.168.1.10:8377"}))
    assert directive(lan_only, "IPAddressAllow") == LAN  # the LAN covers it


@needs_systemd
def test_the_table_unit_with_the_dropin_passes_the_linters(tmp_path):
    from device.club.unit import dropin_for

    shutil.copy(UNIT.parent / "tarotmate.service", tmp_path / "tarotmate.service")
    (tmp_path / "tarotmate.service.d").mkdir()
    (tmp_path / "tarotmate.service.d" / "online.conf").write_text(dropin_for(_config(web={"enabled": True})))
    checked = verify(tmp_path / "tarotmate.service", unit_path=tmp_path)
    assert checked.returncode == 0 and checked.stdout == "" and checked.stderr == ""
    result, last = security(tmp_path / "tarotmate.service", threshold=20, unit_path=tmp_path)
    assert "Service may allocate Internet sockets" in result.stdout  # the drop-in was read
    assert result.returncode == 0 and "OK" in last


def test_install_script_installs_the_dropin_before_it_restarts_the_service():
    text = INSTALL.read_text()
    assert "DROPIN=/etc/systemd/system/tarotmate.service.d/online.conf" in text
    main = text[text.index('echo "==> network'):]
    assert main.index("install_dropin") < main.index("systemctl daemon-reload") < main.index("systemctl restart")


def _tarotmate(tmp_path: Path) -> Path:
    """A ``tarotmate`` command running this checkout's code (as the venv's entry point does)."""
    command = tmp_path / "tarotmate"
    command.write_text(f"#!/bin/sh\ncd {ROOT} && exec {sys.executable} -m device.cli \"$@\"\n")
    command.chmod(0o755)
    return command


def _install_dropin(tmp_path: Path, config_text: str, dropin: Path) -> subprocess.CompletedProcess:
    config = tmp_path / "tarotmate.toml"
    config.write_text(config_text)
    return subprocess.run(["bash", str(INSTALL), "--dropin-only", str(config), str(dropin), str(_tarotmate(tmp_path))],
                          capture_output=True, text=True)


@needs_root
def test_install_writes_the_dropin_for_web_or_club_and_removes_a_stale_one(tmp_path):
    from device.club.unit import dropin_for
    from device.config import load_config

    dropin = tmp_path / "etc" / "tarotmate.service.d" / "online.conf"
    web = '[web]\nenabled = true\nhost = "0.0.0.0"\n'
    result = _install_dropin(tmp_path, web, dropin)
    assert result.returncode == 0, result.stderr
    assert dropin.read_text() == dropin_for(load_config(tmp_path / "tarotmate.toml"))  # what `club dropin` prints
    assert dropin.stat().st_mode & 0o777 == 0o644 and (dropin.stat().st_uid, dropin.stat().st_gid) == (0, 0)
    assert directive(dropin.read_text(), "IPAddressAllow") == LAN

    club = '[club]\nenabled = true\nurl = "http://93.184.216.34:8377"\n'
    assert _install_dropin(tmp_path, club, dropin).returncode == 0  # run again: replaced, not appended
    assert directive(dropin.read_text(), "IPAddressAllow") == LAN + ["93.184.216.34"]
    assert sorted(p.name for p in dropin.parent.iterdir()) == ["online.conf"]  # no temporary file left

    result = _install_dropin(tmp_path, "[web]\nenabled = false\n", dropin)
    assert result.returncode == 0, result.stderr
    assert "removed" in result.stdout
    assert not dropin.exists() and not dropin.parent.exists()  # the stale drop-in (and its empty folder) gone
    again = _install_dropin(tmp_path, "", dropin)  # nothing to remove: nothing said, nothing made
    assert again.returncode == 0 and again.stdout == "" and not dropin.parent.exists()


@needs_root
def test_install_leaves_the_dropin_alone_when_the_config_is_broken(tmp_path):
    dropin = tmp_path / "online.conf"
    dropin.write_text("[Service]\nIPAddressAllow=localhost\n")
    result = _install_dropin(tmp_path, "[web\nenabled = ", dropin)
    assert result.returncode == 1
    assert "tarotmate club: error:" in result.stderr and "left as it was" in result.stderr
    assert dropin.read_text() == "[Service]\nIPAddressAllow=localhost\n"

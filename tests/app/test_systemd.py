"""The systemd unit passes systemd's own linters; the install script parses."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.systemd_units import needs_root, needs_systemd, rated_ok, security, verify

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "tarotmate.service"


@needs_systemd
def test_verify_prints_nothing():
    result = verify(UNIT)
    assert result.returncode == 0
    assert result.stdout == "" and result.stderr == ""


@needs_systemd
def test_security_rating_is_ok_or_better():
    result, last = security(UNIT, threshold=40)
    assert result.returncode == 0, last
    assert rated_ok(last), last


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
        "MemoryDenyWriteExecute=yes",  # benchmarks/bench_hardening.py: the models run under it
        "DevicePolicy=closed",
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


def test_install_script_copies_only_tracked_files_as_root_and_never_upgrades_pip():
    text = (ROOT / "systemd" / "install.sh").read_text()
    assert "git archive" in text and "--no-same-owner" in text
    assert "--upgrade pip" not in text and "pip install --upgrade" not in text
    assert "tar -C \"$SRC_DIR\"" not in text  # the old copy of the whole folder


@needs_root
def test_install_copies_the_committed_tracked_files_owned_by_root(tmp_path):
    """A checkout owned by an ordinary user, with an untracked file, an
    uncommitted edit and group-writable files: the installed copy holds the
    committed tracked files only, all root's and writable by root only."""
    import pwd
    import tempfile

    try:
        owner = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user 'nobody' to own the checkout")
    top = Path(tempfile.mkdtemp(prefix="tarotmate-install-"))
    try:
        os.chmod(top, 0o755)
        checkout = top / "checkout"
        (checkout / "systemd").mkdir(parents=True)
        shutil.copy(ROOT / "systemd" / "install.sh", checkout / "systemd" / "install.sh")
        (checkout / "device").mkdir()
        (checkout / "device" / "app.py").write_text("print('committed')\n")
        (checkout / "README.md").write_text("readme\n")
        git = ["git", "-C", str(checkout), "-c", "user.name=t", "-c", "user.email=t@example.org"]
        subprocess.run(git + ["init", "-q"], check=True)
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-qm", "x"], check=True)
        (checkout / "device" / "app.py").write_text("print('edited, not committed')\n")
        (checkout / "secret.txt").write_text("untracked\n")
        (checkout / ".venv").mkdir()
        for path in [checkout, *checkout.rglob("*")]:
            os.lchown(path, owner.pw_uid, owner.pw_gid)
            if not path.is_symlink():
                os.chmod(path, 0o777 if path.is_dir() else 0o666)  # the owner's sloppy modes
        dest = top / "opt" / "src"
        dest.parent.mkdir()
        (dest / "stale").mkdir(parents=True)  # an earlier install is replaced, not merged
        result = subprocess.run(["bash", str(checkout / "systemd" / "install.sh"), "--copy-only", str(dest)],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert "uncommitted changes" in result.stderr
        installed = sorted(str(p.relative_to(dest)) for p in dest.rglob("*"))
        assert installed == ["README.md", "device", "device/app.py", "systemd", "systemd/install.sh"]
        assert (dest / "device" / "app.py").read_text() == "print('committed')\n"
        for path in [dest, *dest.rglob("*")]:
            info = path.lstat()
            assert (info.st_uid, info.st_gid) == (0, 0), path
            assert info.st_mode & 0o022 == 0, (path, oct(info.st_mode))
        assert sorted(p.name for p in dest.parent.iterdir()) == ["src"]  # no staging folder left
    finally:
        shutil.rmtree(top, ignore_errors=True)


@needs_root
def test_install_refuses_a_folder_that_is_not_a_git_checkout(tmp_path):
    folder = tmp_path / "plain"
    (folder / "systemd").mkdir(parents=True)
    shutil.copy(ROOT / "systemd" / "install.sh", folder / "systemd" / "install.sh")
    result = subprocess.run(["bash", str(folder / "systemd" / "install.sh"), "--copy-only", str(tmp_path / "dest")],
                            capture_output=True, text=True)
    assert result.returncode == 1 and "not a git checkout" in result.stderr
    assert not (tmp_path / "dest").exists()

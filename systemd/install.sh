#!/usr/bin/env bash
# Install Tarotmate as a systemd service on Raspberry Pi OS Bookworm (64-bit).
#
#   sudo systemd/install.sh            # from a checkout of the repository
#
# What it does (idempotent: run it again after `git pull` to upgrade):
#   1. apt: python3-picamera2 (with libcamera's Python bindings), python3-opencv,
#      python3-lgpio, python3-venv, i2c-tools. These are built against the
#      system numpy (1.24); the venv below reuses them instead of pip wheels.
#   2. a system user `tarotmate` in the gpio, i2c and video groups;
#   3. a venv in /opt/tarotmate/venv with --system-site-packages (the apt
#      picamera2/lgpio/numpy/OpenCV stay visible) and Tarotmate (with its card
#      model) copied to /opt/tarotmate/src and installed in it with pip,
#      without upgrading numpy (numpy 2 breaks python3-picamera2);
#   4. /etc/tarotmate/tarotmate.toml from the example (kept if it exists);
#   5. the unit /etc/systemd/system/tarotmate.service, enabled and started.
# It does not enable I2C or the camera: run `sudo raspi-config nonint do_i2c 0`
# (and reboot) first if /dev/i2c-1 is missing.
set -euo pipefail

PREFIX=/opt/tarotmate
VENV="$PREFIX/venv"
APP_DIR="$PREFIX/src"
SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONFIG_DIR=/etc/tarotmate
UNIT=/etc/systemd/system/tarotmate.service
SERVICE_USER=tarotmate

if [[ $EUID -ne 0 ]]; then
    echo "install.sh: run it as root (sudo $0)" >&2
    exit 1
fi
if ! grep -q 'VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null; then
    echo "install.sh: warning: written for Raspberry Pi OS Bookworm; continuing anyway" >&2
fi

echo "==> Debian packages"
apt-get update
apt-get install -y --no-install-recommends \
    python3-venv python3-pip python3-numpy python3-picamera2 python3-opencv \
    python3-lgpio python3-pil i2c-tools

echo "==> system user $SERVICE_USER"
if ! id -u "$SERVICE_USER" >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/tarotmate --no-create-home \
        --shell /usr/sbin/nologin --user-group "$SERVICE_USER"
fi
for group in gpio i2c video; do
    if getent group "$group" >/dev/null; then
        usermod -aG "$group" "$SERVICE_USER"
    else
        echo "install.sh: warning: group $group does not exist (is this a Raspberry Pi OS image?)" >&2
    fi
done

echo "==> venv $VENV (system site packages: picamera2, lgpio, numpy, OpenCV from apt)"
mkdir -p "$PREFIX"
if [[ ! -x "$VENV/bin/python" ]]; then
    python3 -m venv --system-site-packages "$VENV"
fi
# Pin what must come from apt: pip must not pull numpy 2 or a newer OpenCV
# wheel over them (numpy 2 breaks the apt picamera2: "numpy.dtype size changed").
CONSTRAINTS="$PREFIX/constraints.txt"
cat > "$CONSTRAINTS" <<CONSTRAINTS_EOF
numpy==$("$VENV/bin/python" -c 'import numpy; print(numpy.__version__)')
opencv-python-headless<4.12
CONSTRAINTS_EOF
# On aarch64 pip adds the opencv-python-headless<4.12 wheel (built for numpy 1.x);
# it shadows python3-opencv inside the venv, which is harmless.
"$VENV/bin/pip" install --upgrade --quiet pip
# The code and the card model (models/) live in $APP_DIR, readable by the
# service under ProtectSystem=strict/ProtectHome=yes (a checkout in /home is not).
echo "==> Tarotmate in $APP_DIR"
mkdir -p "$APP_DIR"
tar -C "$SRC_DIR" --exclude=./.git --exclude=./.venv --exclude=./.venv-train --exclude=./demo-out \
    --exclude='__pycache__' -cf - . | tar -C "$APP_DIR" -xf -
PIP_CONSTRAINT="$CONSTRAINTS" "$VENV/bin/pip" install --quiet -e "$APP_DIR"
"$VENV/bin/python" - <<'PY'
import numpy, cv2, onnxruntime
print(f"numpy {numpy.__version__}, OpenCV {cv2.__version__}, onnxruntime {onnxruntime.__version__}")
try:
    import picamera2  # noqa: F401
    print("picamera2: ok")
except Exception as exc:  # the service reports it again at start
    print(f"picamera2: NOT importable ({exc})")
PY

echo "==> configuration $CONFIG_DIR/tarotmate.toml"
mkdir -p "$CONFIG_DIR"
if [[ ! -e "$CONFIG_DIR/tarotmate.toml" ]]; then
    install -m 0644 "$APP_DIR/device/tarotmate.example.toml" "$CONFIG_DIR/tarotmate.toml"
    # an absolute deal log path, so that `tarotmate history --config ...` finds it from any shell
    sed -i 's|^path = "tarotmate.db"|path = "/var/lib/tarotmate/tarotmate.db"|' "$CONFIG_DIR/tarotmate.toml"
fi
"$VENV/bin/tarotmate" config check "$CONFIG_DIR/tarotmate.toml"

echo "==> service"
install -m 0644 "$APP_DIR/systemd/tarotmate.service" "$UNIT"
systemctl daemon-reload
systemctl enable tarotmate.service
systemctl restart tarotmate.service
echo "Tarotmate is installed: 'systemctl status tarotmate' and 'journalctl -u tarotmate -f' show it."

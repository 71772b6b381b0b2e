#!/usr/bin/env bash
# Install Tarotmate as a systemd service on Raspberry Pi OS Bookworm (64-bit).
#
#   sudo systemd/install.sh            # from a git checkout of the repository
#
# What it does (idempotent: run it again after `git pull` to upgrade):
#   1. apt: python3-picamera2 (with libcamera's Python bindings), python3-opencv,
#      python3-lgpio, python3-venv, i2c-tools. These are built against the
#      system numpy (1.24); the venv below reuses them instead of pip wheels.
#   2. a system user `tarotmate` in the gpio, i2c and video groups;
#   3. the files git tracks at the checkout's HEAD (git archive: no untracked
#      or ignored file, no local edit that is not committed) copied to
#      /opt/tarotmate/src, owned by root and writable by root only; git runs as
#      the checkout's owner, so nothing of the checkout runs as root;
#   4. a venv in /opt/tarotmate/venv (root's, with --system-site-packages: the
#      apt picamera2/lgpio/numpy/OpenCV stay visible) with Tarotmate installed
#      in it by the venv's own pip (Debian's, not upgraded from the network),
#      without upgrading numpy (numpy 2 breaks python3-picamera2);
#   5. /etc/tarotmate/tarotmate.toml from the example (kept if it exists);
#   6. the network drop-in /etc/systemd/system/tarotmate.service.d/online.conf
#      (`tarotmate club dropin`) when the configuration enables [web] or [club]:
#      the unit denies all IP traffic, the drop-in opens the LAN only; without
#      [web] and [club] a drop-in left by an earlier install is removed;
#   7. the unit /etc/systemd/system/tarotmate.service, enabled and started.
# The service user can write only its state directory (/var/lib/tarotmate);
# the code it runs, and that the next `sudo install.sh` runs, belongs to root.
# It does not enable I2C or the camera: run `sudo raspi-config nonint do_i2c 0`
# (and reboot) first if /dev/i2c-1 is missing.
#
#   sudo systemd/install.sh --copy-only DEST   # step 3 alone, into DEST (for tests)
#   sudo systemd/install.sh --dropin-only CONFIG DROPIN TAROTMATE
#                                       # step 6 alone: DROPIN for CONFIG, by the TAROTMATE command (for tests)
set -euo pipefail
umask 022

PREFIX=/opt/tarotmate
VENV="$PREFIX/venv"
APP_DIR="$PREFIX/src"
SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONFIG_DIR=/etc/tarotmate
UNIT=/etc/systemd/system/tarotmate.service
DROPIN=/etc/systemd/system/tarotmate.service.d/online.conf
SERVICE_USER=tarotmate

if [[ $EUID -ne 0 ]]; then
    echo "install.sh: run it as root (sudo $0)" >&2
    exit 1
fi

# As the checkout's owner (never root's powers on a checkout someone else can
# edit: its .git/config and hooks are that user's), with no home directory.
as_owner() {
    local uid=$1 gid=$2
    shift 2
    if [[ $uid == 0 ]]; then
        "$@"
    else
        setpriv --reuid="$uid" --regid="$gid" --clear-groups env HOME=/nonexistent XDG_CONFIG_HOME=/nonexistent "$@"
    fi
}

# Step 3: the tracked files of $1's HEAD into $2 (replaced), owned by root, 0755/0644.
copy_tracked_files() {
    local src=$1 dest=$2 uid gid stage
    if [[ ! -e "$src/.git" ]]; then
        echo "install.sh: $src is not a git checkout; clone the repository and run it from there" >&2
        exit 1
    fi
    uid=$(stat -c %u "$src")
    gid=$(stat -c %g "$src")
    if [[ -n "$(as_owner "$uid" "$gid" git -C "$src" status --porcelain --untracked-files=no)" ]]; then
        echo "install.sh: warning: $src has uncommitted changes; they are not installed (HEAD is)" >&2
    fi
    mkdir -p "$(dirname "$dest")"
    stage=$(mktemp -d "$(dirname "$dest")/.src.XXXXXX")
    # root extracts with its own owner and the umask: the archive's owners and modes are dropped
    as_owner "$uid" "$gid" git -C "$src" archive --format=tar HEAD \
        | tar -C "$stage" -x --no-same-owner --no-same-permissions -f -
    chmod -R u=rwX,go=rX "$stage"
    chown -R -h root:root "$stage"
    if [[ -e "$dest" ]]; then
        rm -rf "$dest.old"
        mv "$dest" "$dest.old"
    fi
    mv "$stage" "$dest"
    rm -rf "$dest.old"
    echo "installed $(as_owner "$uid" "$gid" git -C "$src" rev-parse --short HEAD)" \
        "($(find "$dest" -type f | wc -l) files) in $dest"
}

# Everything under $1 must be root's and writable by root only.
check_root_only() {
    local bad
    bad=$(find "$1" ! -type l \( ! -user root -o ! -group root -o -perm /022 \) -print -quit)
    if [[ -n "$bad" ]]; then
        echo "install.sh: $bad is not root's alone (owner $(stat -c %U:%G "$bad"), mode $(stat -c %a "$bad"))" >&2
        return 1
    fi
}

# Step 6: the drop-in $2 that opens the LAN for $1's [web]/[club] (by the command $3), or none.
install_dropin() {
    local config=$1 dropin=$2 tarotmate=$3 text rc=0
    text=$("$tarotmate" club dropin --config "$config") || rc=$?
    case $rc in
        0)
            mkdir -p "$(dirname "$dropin")"
            printf '%s\n' "$text" > "$dropin.new"
            chmod 0644 "$dropin.new"
            chown root:root "$dropin.new"
            mv "$dropin.new" "$dropin"
            echo "network drop-in $dropin: the LAN is open for [web]/[club]"
            ;;
        1)  # neither [web] nor [club]: the unit stays closed to IP traffic
            if [[ -e "$dropin" ]]; then
                rm -f "$dropin"
                rmdir "$(dirname "$dropin")" 2>/dev/null || true
                echo "network drop-in $dropin removed: [web] and [club] are disabled"
            fi
            ;;
        *)  # the command said why, on stderr
            echo "install.sh: cannot tell what $config opens; the network drop-in is left as it was" >&2
            return 1
            ;;
    esac
}

if [[ ${1:-} == --dropin-only ]]; then
    install_dropin "${2:?--dropin-only CONFIG DROPIN TAROTMATE}" "${3:?--dropin-only CONFIG DROPIN TAROTMATE}" \
        "${4:?--dropin-only CONFIG DROPIN TAROTMATE}" || exit 1
    exit 0
fi
if [[ ${1:-} == --copy-only ]]; then
    copy_tracked_files "$SRC_DIR" "${2:?--copy-only DEST}"
    check_root_only "$2" || exit 1
    exit 0
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

# The code and the card model (models/) live in $APP_DIR, readable by the
# service under ProtectSystem=strict/ProtectHome=yes (a checkout in /home is not).
echo "==> Tarotmate in $APP_DIR (the files git tracks, owned by root)"
mkdir -p "$PREFIX"
chown root:root "$PREFIX"
chmod 0755 "$PREFIX"
copy_tracked_files "$SRC_DIR" "$APP_DIR"

echo "==> venv $VENV (system site packages: picamera2, lgpio, numpy, OpenCV from apt)"
if [[ -x "$VENV/bin/python" ]] && ! check_root_only "$VENV" 2>/dev/null; then
    echo "install.sh: $VENV was writable by others than root: making a new one" >&2
    rm -rf "$VENV"
fi
if [[ ! -x "$VENV/bin/python" ]]; then
    # the venv's pip is Debian's (python3-pip-whl, updated by apt); it is not upgraded from the network
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
PIP_CONSTRAINT="$CONSTRAINTS" PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV/bin/pip" install --quiet -e "$APP_DIR"
# bytecode compiled now, by root: the service cannot write it there (and need not)
"$VENV/bin/python" -m compileall -q "$APP_DIR/engine" "$APP_DIR/vision" "$APP_DIR/device" >/dev/null
check_root_only "$PREFIX" || exit 1
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
chown root:root "$CONFIG_DIR"
chmod 0755 "$CONFIG_DIR"
if [[ ! -e "$CONFIG_DIR/tarotmate.toml" ]]; then
    install -m 0644 "$APP_DIR/device/tarotmate.example.toml" "$CONFIG_DIR/tarotmate.toml"
    # an absolute deal log path, so that `tarotmate history --config ...` finds it from any shell
    sed -i 's|^path = "tarotmate.db"|path = "/var/lib/tarotmate/tarotmate.db"|' "$CONFIG_DIR/tarotmate.toml"
fi
"$VENV/bin/tarotmate" config check "$CONFIG_DIR/tarotmate.toml"

echo "==> network ([web], [club])"
install_dropin "$CONFIG_DIR/tarotmate.toml" "$DROPIN" "$VENV/bin/tarotmate"

echo "==> service"
install -m 0644 "$APP_DIR/systemd/tarotmate.service" "$UNIT"
systemctl daemon-reload
systemctl enable tarotmate.service
systemctl restart tarotmate.service
echo "Tarotmate is installed: 'systemctl status tarotmate' and 'journalctl -u tarotmate -f' show it."

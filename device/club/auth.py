"""The director's password (scrypt, salted) and the constant-time checks around it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from engine.errors import TarotmateError

# scrypt cost: about 30 ms and 16 MiB on a Raspberry Pi 4 for each login.
N, R, P = 2 ** 14, 8, 1
MIN_PASSWORD = 8


class PasswordError(TarotmateError):
    """A director password that cannot be used (too short, unreadable file)."""


def hash_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise PasswordError(f"the director's password needs at least {MIN_PASSWORD} characters")
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=N, r=R, p=P, maxmem=64 * 1024 * 1024, dklen=32)
    return "scrypt${}${}${}${}${}".format(N, R, P, base64.b64encode(salt).decode(), base64.b64encode(digest).decode())


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        got = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p),
                             maxmem=64 * 1024 * 1024, dklen=32)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, base64.b64decode(digest))


def read_password_file(path: str) -> str:
    """The password: the file's first line, surrounding blanks removed."""
    try:
        with open(path, encoding="utf-8") as f:
            line = f.readline()
    except FileNotFoundError:
        raise PasswordError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PasswordError(f"{path}: cannot read the director's password: {exc}") from None
    password = line.strip()
    if len(password) < MIN_PASSWORD:
        raise PasswordError(f"{path}: the director's password needs at least {MIN_PASSWORD} characters")
    return password

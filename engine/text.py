"""Text from users (player names, labels) shown safely on a terminal.

A name holding ESC or BEL would drive the terminal that prints it (colours,
cursor moves, a bell), and a bidirectional override would reorder the line.
Records and the configuration refuse such names (:func:`control_characters`
says which characters); whatever is printed from elsewhere (an older deal
log, a path) goes through :func:`printable`, which writes them escaped.
"""

from __future__ import annotations

import unicodedata

# Bidirectional embeddings, overrides and isolates: invisible, and they reorder what follows.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _is_control(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cs") or char in BIDI_CONTROLS


def control_characters(text: str) -> list[str]:
    """The control characters of ``text`` (C0, DEL, C1, surrogates, bidi controls), in order, each once."""
    found: list[str] = []
    for char in text:
        if _is_control(char) and char not in found:
            found.append(char)
    return found


def describe_controls(text: str) -> str:
    """``U+001B, U+0007``: the control characters of ``text``, for an error message."""
    return ", ".join(f"U+{ord(c):04X}" for c in control_characters(text))


def printable(text: str) -> str:
    """``text`` with each control character written as an escape (``\\x1b``, ``\\u202e``)."""
    if not any(_is_control(c) for c in text):
        return text
    out = []
    for char in text:
        if _is_control(char):
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)

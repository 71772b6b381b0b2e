"""JSON read from files, stdin and the deal log, within limits.

``json.loads`` trusts its input: a document nested a few thousand levels deep
raises ``RecursionError`` (and one nested a few hundred deep passes, then
overflows the stack of whatever walks it next), a 5000-digit integer raises
``ValueError``, ``NaN`` and lone UTF-16 surrogates pass and fail later. Every
piece of JSON Tarotmate reads (deal records, Trivium records, the rows of the
deal log) goes through :func:`loads`, which refuses all of these with one
:class:`JSONInputError` naming the problem and where it is.

The limits are far above anything Tarotmate writes (a deal record nests 4
levels and its largest number is a seed), and :func:`check` lets a writer
refuse a value that it could not read back.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from engine.errors import TarotmateError

MAX_DEPTH = 32  # arrays and objects inside one another
MAX_INTEGER_DIGITS = 40  # any 128-bit integer fits
MAX_FLOAT_CHARS = 64  # "-1.2345678901234567e-308" is 24
MAX_TEXT_CHARS = 8 * 1024 * 1024  # a deal record is a few kilobytes


class JSONInputError(TarotmateError, ValueError):
    """JSON that is malformed or beyond the limits; the message says where."""


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
# Text that may hold something beyond the limits; without any of these the
# plain parser is enough (the fast path for the deal log's small rows).
_SUSPECT_NUMBER = re.compile(r"[0-9]{%d}|[eE][+-]?0*[0-9]{3}|NaN|Infinity" % (MAX_INTEGER_DIGITS + 1))
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _where(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return f"line {line}, column {column}"


def _check_depth(text: str, limit: int) -> None:
    """Refuse nesting deeper than ``limit`` before the parser recurses into it."""
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                raise JSONInputError(f"nested deeper than {limit} levels at {_where(text, match.start())}")
        elif token in "]}":
            depth -= 1


def _parse_int(token: str) -> int:
    digits = len(token.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise JSONInputError(f"a number with {digits} digits (at most {MAX_INTEGER_DIGITS})")
    return int(token)


def _parse_float(token: str) -> float:
    if len(token) > MAX_FLOAT_CHARS:
        raise JSONInputError(f"a number written with {len(token)} characters (at most {MAX_FLOAT_CHARS})")
    value = float(token)
    if not math.isfinite(value):
        raise JSONInputError(f"the number {token} is out of range")
    return value


def _parse_constant(token: str) -> float:
    raise JSONInputError(f"{token} is not a JSON number")


def loads(text: str | bytes, what: str = "JSON") -> Any:
    """Parse ``text`` like ``json.loads``, within the limits above.

    Raises :class:`JSONInputError` (its message starts with ``what``) for
    text that is not UTF-8, not JSON, too large, too deep, or that holds an
    out-of-range number or a lone surrogate."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONInputError(f"{what}: not UTF-8 text (byte {exc.start})") from None
    if len(text) > MAX_TEXT_CHARS:
        raise JSONInputError(f"{what}: {len(text)} characters, more than the {MAX_TEXT_CHARS} allowed")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise JSONInputError(f"{what}: a string holds an unpaired surrogate") from None
    try:
        if text.count("[") + text.count("{") > MAX_DEPTH:  # else it cannot nest too deep
            _check_depth(text, MAX_DEPTH)
        if _SUSPECT_NUMBER.search(text):
            value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float,
                               parse_constant=_parse_constant)
        else:
            value = json.loads(text)
    except JSONInputError as exc:
        raise JSONInputError(f"{what}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise JSONInputError(f"{what}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except (RecursionError, ValueError) as exc:  # belt and braces: never a traceback
        raise JSONInputError(f"{what}: cannot be read ({exc})") from None
    if _SURROGATE_ESCAPE.search(text):
        _check_strings(value, what)
    return value


def _check_strings(value: Any, what: str) -> None:
    """Every string (key or value) must be encodable: no lone surrogates."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise JSONInputError(f"{what}: a string holds an unpaired surrogate ({item!r})") from None
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def check(value: Any, what: str = "value") -> None:
    """Refuse a value that :func:`loads` would refuse once written as JSON
    (too deep, a number out of range, a non-finite float, a lone surrogate,
    or something JSON cannot hold)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            if depth >= MAX_DEPTH:
                raise JSONInputError(f"{what}: nested deeper than {MAX_DEPTH} levels")
            children = list(item.values()) + list(item.keys()) if isinstance(item, dict) else list(item)
            stack.extend((child, depth + 1) for child in children)
            if isinstance(item, dict) and not all(isinstance(k, str) for k in item):
                raise JSONInputError(f"{what}: an object key that is not a string")
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if item.bit_length() > MAX_INTEGER_DIGITS * 3:  # cheap bound, then the exact one
                raise JSONInputError(f"{what}: an integer with more than {MAX_INTEGER_DIGITS} digits")
            if len(str(abs(item))) > MAX_INTEGER_DIGITS:
                raise JSONInputError(f"{what}: an integer with more than {MAX_INTEGER_DIGITS} digits")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise JSONInputError(f"{what}: the number {item} cannot be written as JSON")
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise JSONInputError(f"{what}: a string holds an unpaired surrogate ({item!r})") from None
        else:
            raise JSONInputError(f"{what}: {type(item).__name__} cannot be written as JSON")


def read_file(path, what: str | None = None) -> Any:
    """Read a JSON file within the limits; clear errors for a missing,
    unreadable or oversized file."""
    from pathlib import Path

    p = Path(path)
    what = what or str(p)
    try:
        with p.open("rb") as handle:
            data = handle.read(MAX_TEXT_CHARS * 4 + 1)
    except FileNotFoundError:
        raise JSONInputError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise JSONInputError(f"{p}: is a directory, not a JSON file") from None
    except OSError as exc:
        raise JSONInputError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_TEXT_CHARS * 4:
        raise JSONInputError(f"{what}: larger than {MAX_TEXT_CHARS * 4} bytes; not a Tarotmate record")
    return loads(data, what)


def read_stream(stream, what: str = "stdin") -> Any:
    """Read JSON from a text or binary stream (stdin), within the limits."""
    raw = getattr(stream, "buffer", stream)
    data = raw.read(MAX_TEXT_CHARS * 4 + 1)
    if len(data) > MAX_TEXT_CHARS * 4:
        raise JSONInputError(f"{what}: larger than {MAX_TEXT_CHARS * 4} bytes; not a Tarotmate record")
    return loads(data, what)

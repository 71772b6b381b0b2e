"""Languages of the device: gettext catalogues for English, French and Spanish.

The messages live in ``device/locale/<lang>/LC_MESSAGES/tarotmate.po``; the
compiled ``.mo`` files beside them are committed. After editing a ``.po``
file, compile the catalogues with::

    .venv/bin/python -m device.i18n --compile

(``--check`` exits 1 when a ``.mo`` is out of date with its ``.po``). The
compiler below is a small pure-Python ``msgfmt``: it writes the GNU ``.mo``
format without a hash table, which Python's :mod:`gettext` reads.

Screens and menus translate with ``tr = translator(lang)`` then ``tr("text")``;
strings defined ahead of time are marked with :func:`N_` so that the
catalogue test finds them.
"""

from __future__ import annotations

import argparse
import ast
import gettext
import struct
import sys
from functools import lru_cache
from pathlib import Path
from typing import Callable

from engine.errors import TarotmateError

DOMAIN = "tarotmate"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("en", "fr", "es")
_MO_MAGIC = 0x950412DE


def N_(message: str) -> str:
    """Mark a string for translation without translating it now."""
    return message


DECIMAL_COMMA = frozenset({"fr", "es"})  # the languages that write 53,5 for 53.5


def number(value: float, lang: str = "en", places: int | None = None) -> str:
    """A score or a count of points as ``lang`` writes it: ``41``, ``27.5`` (English),
    ``27,5`` (French, Spanish); whole numbers without a decimal part, unless ``places``
    asks for that many decimals (``29.5`` frames/s)."""
    if places is not None:
        text = f"{value:.{places}f}"
    else:
        text = str(int(value)) if value == int(value) else f"{value:g}"
    return text.replace(".", ",") if lang in DECIMAL_COMMA else text


def check_language(lang: str) -> str:
    if lang not in LANGUAGES:
        raise TarotmateError(f"unknown language {lang!r}: expected one of {', '.join(LANGUAGES)}")
    return lang


@lru_cache(maxsize=None)
def translator(lang: str) -> Callable[[str], str]:
    """The ``gettext`` function of ``lang`` (English returns messages as they are)."""
    check_language(lang)
    try:
        catalogue = gettext.translation(DOMAIN, str(LOCALE_DIR), languages=[lang])
    except OSError as exc:
        raise TarotmateError(f"the {lang} catalogue is missing: {exc}") from exc
    return catalogue.gettext


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str) -> Path:
    return po_path(lang).with_suffix(".mo")


def parse_po(text: str) -> dict[str, str]:
    """The ``msgid -> msgstr`` pairs of a ``.po`` file (no plural forms, no contexts).

    Comment lines are skipped, adjacent quoted strings are joined and escapes
    are decoded. Raises ValueError on a line it does not understand.
    """
    entries: dict[str, str] = {}
    msgid: list[str] | None = None
    msgstr: list[str] | None = None
    current: list[str] | None = None

    def flush() -> None:
        if msgid is not None and msgstr is not None:
            entries["".join(msgid)] = "".join(msgstr)

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("msgid "):
            flush()
            msgid, msgstr = [], None
            current = msgid
            line = line[len("msgid ") :]
        elif line.startswith("msgstr "):
            if msgid is None:
                raise ValueError(f"line {number}: msgstr without msgid")
            msgstr = []
            current = msgstr
            line = line[len("msgstr ") :]
        if not (line.startswith('"') and line.endswith('"')) or current is None:
            raise ValueError(f"line {number}: cannot read {raw!r}")
        current.append(ast.literal_eval(line))
    flush()
    return entries


def compile_mo(entries: dict[str, str]) -> bytes:
    """GNU ``.mo`` bytes of the translated entries (untranslated ones are left out)."""
    kept = sorted(
        ((k.encode("utf-8"), v.encode("utf-8")) for k, v in entries.items() if v),
        key=lambda kv: kv[0],
    )
    n = len(kept)
    originals_at = 7 * 4
    translations_at = originals_at + n * 8
    data_at = translations_at + n * 8
    tables_o: list[int] = []
    tables_t: list[int] = []
    blob = bytearray()
    for key, _ in kept:
        tables_o += [len(key), data_at + len(blob)]
        blob += key + b"\0"
    for _, value in kept:
        tables_t += [len(value), data_at + len(blob)]
        blob += value + b"\0"
    header = struct.pack("<7I", _MO_MAGIC, 0, n, originals_at, translations_at, 0, data_at)
    return header + struct.pack(f"<{2 * n}I", *tables_o) + struct.pack(f"<{2 * n}I", *tables_t) + bytes(blob)


def compiled(lang: str) -> bytes:
    """The ``.mo`` bytes that the ``.po`` of ``lang`` compiles to."""
    return compile_mo(parse_po(po_path(lang).read_text(encoding="utf-8")))


SOURCES = ("screens", "app/flows.py", "app/setup_menu.py", "hardware/buttons.py", "hardware/display.py", "hardware/buzzer.py",
           "app/menu_driver.py", "app/views.py", "app/online.py", "games", "web")
_MARKERS = {"N_", "tr", "_"}


# The engines' reasons (message ids with arguments, see engine.reasons) are
# translated too: the templates given to _refuse/_refused/Reason, and the
# values of the tables of templates below.
ENGINE_SOURCES = ("tarot/state.py", "tarot/evidence.py", "trivium/rules.py", "trivium/combinations.py")
_REASON_CALLS = {"_refuse": 1, "_refused": 1, "Reason": 0}  # function -> index of the template
_REASON_TABLES = {"_REASONS", "_ONLY_MAY", "_EXCHANGE_FIRST"}


def _constants(node: ast.AST) -> list[str]:
    """The string constants an expression can be: a literal, or both sides of ``a if c else b``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _constants(node.body) + _constants(node.orelse)
    return []


def extract_reasons(engine_root: Path | None = None) -> list[str]:
    """Every reason template of the engines, in order."""
    engine_root = engine_root or Path(__file__).resolve().parent.parent / "engine"
    found: dict[str, None] = {}
    for name in ENGINE_SOURCES:
        tree = ast.parse((engine_root / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _REASON_CALLS:
                index = _REASON_CALLS[node.func.id]
                if len(node.args) > index:
                    for text in _constants(node.args[index]):
                        found.setdefault(text, None)
            elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
                  and any(isinstance(t, ast.Name) and t.id in _REASON_TABLES for t in node.targets)):
                for value in node.value.values:
                    for text in _constants(value):
                        found.setdefault(text, None)
    return list(found)


def extract_messages(root: Path | None = None) -> list[str]:
    """Every literal passed to ``N_``, ``tr`` or ``_`` in the device's UI modules, in order,
    then the engines' reason templates (:func:`extract_reasons`)."""
    root = root or Path(__file__).resolve().parent
    files: list[Path] = []
    for name in SOURCES:
        path = root / name
        files += sorted(path.rglob("*.py")) if path.is_dir() else ([path] if path.exists() else [])
    found: dict[str, None] = {}
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in _MARKERS
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.setdefault(node.args[0].value, None)
    if root is None or root == Path(__file__).resolve().parent:
        for text in extract_reasons():
            found.setdefault(text, None)
    return list(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Compile or check Tarotmate's gettext catalogues.")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--compile", action="store_true", help="write every .mo from its .po")
    group.add_argument("--check", action="store_true", help="exit 1 if a .mo is out of date")
    args = parser.parse_args(argv)
    stale = []
    for lang in LANGUAGES:
        data = compiled(lang)
        path = mo_path(lang)
        if args.compile:
            path.write_bytes(data)
            print(f"wrote {path}")
        elif not path.exists() or path.read_bytes() != data:
            stale.append(str(path))
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""The gettext catalogues: complete in French and Spanish, compiled files up to date."""

from __future__ import annotations

import gettext
import io

import pytest

from device.i18n import (
    LANGUAGES,
    compile_mo,
    compiled,
    extract_messages,
    mo_path,
    parse_po,
    po_path,
    translator,
)
from engine.errors import TarotmateError


def catalogue(lang):
    return parse_po(po_path(lang).read_text(encoding="utf-8"))


def test_extraction_finds_the_screens_and_menus_messages():
    messages = extract_messages()
    assert "Garde contre" in messages and "{n} tricks left" in messages and "Which card?" in messages


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_is_in_the_catalogue(lang):
    missing = [m for m in extract_messages() if m not in catalogue(lang)]
    assert not missing, f"add to {po_path(lang)}: {missing}"


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_every_message_is_translated_with_the_same_placeholders(lang):
    entries = catalogue(lang)
    for message in extract_messages():
        translated = entries[message]
        assert translated, f"{lang}: {message!r} is not translated"
        fields = sorted(part.split("}")[0] for part in message.split("{")[1:])
        assert sorted(part.split("}")[0] for part in translated.split("{")[1:]) == fields, (lang, message)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_compiled_catalogue_is_up_to_date(lang):
    assert mo_path(lang).read_bytes() == compiled(lang), (
        f"{mo_path(lang)} is stale: run .venv/bin/python -m device.i18n --compile"
    )


def test_compiled_bytes_are_read_by_gettext():
    entries = {"": "Content-Type: text/plain; charset=UTF-8\n", "Pass": "Passe", "Cœur \"x\"": "Corazón\n", "Empty": ""}
    translations = gettext.GNUTranslations(io.BytesIO(compile_mo(entries)))
    assert translations.gettext("Pass") == "Passe"
    assert translations.gettext('Cœur "x"') == "Corazón\n"
    assert translations.gettext("Empty") == "Empty"  # untranslated: left out, falls back


def test_po_parser_joins_lines_and_decodes_escapes():
    text = '# comment\nmsgid ""\n"Long "\n"one"\nmsgstr "L\\u00e9 \\"q\\"\\n"\n'
    assert parse_po(text) == {"Long one": 'Lé "q"\n'}
    with pytest.raises(ValueError):
        parse_po("msgid \"a\"\nnonsense\n")


def test_translator_translates_and_refuses_unknown_languages():
    assert translator("fr")("Garde sans") == "Garde sans"
    assert translator("es")("Pass") == "Paso"
    assert translator("en")("Pass") == "Pass"
    with pytest.raises(TarotmateError):
        translator("de")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalogue_holds_no_stale_message(lang):
    used = set(extract_messages()) | {""}
    stale = [m for m in catalogue(lang) if m not in used]
    assert not stale, f"{po_path(lang)} keeps messages no code uses: {stale}"

import pytest
from hypothesis import given, strategies as st

from engine.card_names import name, short_name
from engine.cards import (BY_CODE, CODES, DECK, TOTAL_HALF_POINTS, UnknownCardError,
                          card, half_points, parse_distinct)


def test_deck_has_78_distinct_cards_and_91_points():
    assert len(DECK) == 78 == len(set(CODES))
    assert half_points(DECK) == TOTAL_HALF_POINTS == 182
    assert [c.index for c in DECK] == list(range(78))


def test_card_facts():
    assert card("T01").is_oudler and card("T21").is_oudler and card("EX").is_oudler
    assert not card("T02").is_oudler
    assert card("HK").points == 4.5 and card("HQ").points == 3.5
    assert card("HN").points == 2.5 and card("HJ").points == 1.5
    assert card("H10").points == 0.5 and card("T12").points == 0.5
    assert card("sk") is BY_CODE["SK"]
    assert sum(c.is_trump for c in DECK) == 21
    assert sum(c.is_king for c in DECK) == 4


@pytest.mark.parametrize("bad", ["T00", "T22", "X01", "H11", "H1", "", "EXX", "HA"])
def test_unknown_codes_are_refused_with_a_clear_message(bad):
    with pytest.raises(UnknownCardError, match="unknown card code"):
        card(bad)


def test_a_card_given_twice_is_refused():
    with pytest.raises(UnknownCardError, match="H07 is given twice"):
        parse_distinct(["H07", "T21", "h07"])


@given(st.sampled_from(CODES), st.sampled_from(["en", "fr", "es"]), st.sampled_from(["french", "tarot"]))
def test_every_card_has_a_name_in_every_language(code, lang, style):
    assert name(code, lang, style)
    assert 0 < len(short_name(code, lang, style)) <= 5


def test_names_per_deck_family():
    assert name("HK", "fr", "french") == "Roi de Cœur"
    assert name("HK", "es", "tarot") == "Rey de Copas"
    assert name("HK", "en", "french") == "King of Hearts"
    assert name("EX", "es", "tarot") == "El Loco"

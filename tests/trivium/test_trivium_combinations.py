"""Combinations: the worked checks of the rules reference, and more."""

import pytest

from engine.trivium.combinations import (
    POINTS,
    check_gran_maestre,
    check_tercia,
    check_trivium,
    classify,
    partition_into_tercias,
)
from engine.cards import cards
from engine.trivium.options import TriviumOptions

# The table "Worked checks" of rules/trivium.md, in card codes.
WORKED = [
    ("C10 H10 S01", "tercia"),
    ("T15 D04 H02", "tercia"),
    ("T07 H07 S07", "tercia"),
    ("C10 H06 S04", None),
    ("C10 H09 SJ", None),
    ("T21 EX", "tercia"),
    ("T21 S01 EX", None),
    ("T20 S01 EX", None),
    ("T10 H05 EX", "tercia"),
    ("T19 S01 H01", "tercia"),
    ("HJ SN HQ CK", "cuadrivium"),
    ("HJ HN HQ HK", "gran_cuadrivium"),
    ("HJ HN HQ EX", "cuadrivium"),
    ("HJ SN HQ CK C10 H10 S01", "gran_maestre"),
    ("HJ SN HQ CK T21 EX", None),
    ("C10 H10 S01 T15 D04 H02 T07 H07 S07", "trivium"),
]


@pytest.mark.parametrize("codes, expected", WORKED)
def test_worked_checks_of_the_reference(codes, expected):
    verdict = classify(codes.split())
    assert verdict.combination == expected, verdict.reason
    assert verdict.points == (None if expected is None else POINTS[expected])
    if expected is None:
        assert verdict.groups == ()
    else:
        assert sorted(c for g in verdict.groups for c in g) == sorted(codes.split())


@pytest.mark.parametrize(
    "codes, words",
    [
        ("C10 H06 S04", "10 + 6 + 4 = 20"),
        ("C10 H09 SJ", "sota (SJ) cannot be in a tercia"),
        ("T20 S01 EX", "El Loco would stand for 0"),
        ("T21 S01 EX", "three cards with XXI cannot reach 21"),
        ("T10 H05 EX", "El Loco stands for 6"),
        ("HJ SN HQ CK T21 EX", "Trivium only"),
        ("T21 EX", "Trivium only"),
    ],
)
def test_reasons_say_why(codes, words):
    assert words in classify(codes.split()).reason


def test_points_of_each_combination():
    assert POINTS == {"tercia": 0, "trivium": 63, "cuadrivium": 50, "gran_cuadrivium": 100, "gran_maestre": 200}


def test_loco_value_is_reported():
    assert classify("T10 H05 EX".split()).loco_value == 6
    assert classify("C10 H10 S01".split()).loco_value is None


@pytest.mark.parametrize("setting, expected", [(False, "cuadrivium"), (True, "gran_cuadrivium")])
def test_decision_loco_in_gran_cuadrivium(setting, expected):
    options = TriviumOptions(loco_in_gran_cuadrivium=setting)
    verdict = classify("HJ HN HQ EX".split(), options)
    assert verdict.combination == expected
    assert verdict.points == POINTS[expected]
    # Mixed suits stay a plain Cuadrivium in both settings; four real courts stay Gran.
    assert classify("HJ SN HQ EX".split(), options).combination == "cuadrivium"
    assert classify("DJ DN DQ DK".split(), options).combination == "gran_cuadrivium"


@pytest.mark.parametrize(
    "codes, expected",
    [
        ("HJ SJ HQ CK", None),  # two sotas
        ("HJ SN HQ", None),  # three cards: a tercia check, courts refused
        ("HJ SN HQ C10", None),
        ("HJ SJ HQ EX", None),
        ("EX SN HQ CK", "cuadrivium"),
        ("HJ SN HQ CK C10 H10 EX", "gran_maestre"),  # Loco in the tercia
        ("HJ SN EX CK C10 H10 S01", "gran_maestre"),  # Loco for the reina
        ("HJ HN HQ HK C10 H10 S01", "gran_maestre"),  # same suit: still 200
        ("HJ SN HQ CK C10 H10 S02", None),  # tercia sums to 22
        ("HJ SN HQ CK T21 EX C01", None),  # XXI in a three-card tercia
        ("HJ SN HQ CK DK H10 S01", None),  # five courts
        ("HJ SN HQ C10 H10 S01 D01", None),  # three courts, no Loco
        ("HJ SN HQ CK C10 H10", None),  # six cards
        ("C10 H10 S01 T15 D04 H02", None),  # two tercias win nothing
        ("C10 H10", None),
        ("T21", None),
        ("EX", None),
        ("C10 H10 S01 T15", None),
        ("C10 H10 S01 T15 D04 H02 T21 EX", "trivium"),  # the pair
        ("C10 H10 S01 T15 D04 H02 T07 H07 EX", "trivium"),  # Loco for a 7
        ("C10 H10 S01 T15 D04 H02 T21 C07", None),  # eight without the pair
        ("C10 H10 S01 T15 D04 H02 T21 EX H05", None),  # nine with the pair
        ("C10 H10 S01 T15 D04 H02 T07 HJ S07", None),  # a court
        ("C10 H10 S01 T15 D04 H02 T07 H07 S06", None),  # sums to 62
        ("C10 H10 S01 T15 D04 H03 T07 H07 S06", None),  # 63 but no grouping
        ("T18 T01 T02 T20 EX T03 T05 T06 T09", None),  # Loco would stand for -6
    ],
)
def test_more_sets(codes, expected):
    verdict = classify(codes.split())
    assert verdict.combination == expected, verdict.reason
    assert verdict.reason


def test_trivium_of_nine_cards_in_any_order_finds_the_grouping():
    codes = "S07 T15 C10 H07 D04 H10 T07 H02 S01".split()
    verdict = check_trivium(codes)
    assert verdict.combination == "trivium"
    groups = [sorted(g) for g in verdict.groups]
    assert sorted(groups) == sorted([sorted("C10 H10 S01".split()), sorted("T15 D04 H02".split()),
                                     sorted("T07 H07 S07".split())])
    # groups ordered by their first card, cards in the given order
    assert verdict.groups[0][0] == "S07"
    for g in verdict.groups:
        assert list(g) == sorted(g, key=codes.index)


def test_trivium_of_eight_cards_with_the_pair_in_any_order():
    codes = "H02 EX C10 T15 S01 T21 D04 H10".split()
    verdict = check_trivium(codes)
    assert verdict.combination == "trivium"
    assert ("EX", "T21") in verdict.groups


def test_grouping_needs_search_not_greedy():
    # The first tercia with S10 in reading order is S10 + H08 + H03, a dead end:
    # the only grouping is 10+10+1, 9+9+3, 8+8+5.
    codes = cards("S10 H08 H03 H10 C01 S09 D09 S08 D05".split())
    groups = partition_into_tercias(codes)
    assert groups is not None
    assert [c.code for c in groups[0]] == ["S10", "H10", "C01"]
    assert all(sum(c.rank for c in g) == 21 for g in groups)
    assert sorted(c.code for g in groups for c in g) == sorted(c.code for c in codes)


def test_partition_refuses_impossible_sets():
    assert partition_into_tercias(cards("C10 H10 S01 T15 D04 H03".split())) is None


def test_tercia_pair_only_where_allowed():
    assert check_tercia(["T21", "EX"]).is_pair
    assert not check_tercia(["T21", "EX"], allow_pair=False).is_combination
    assert not check_gran_maestre("HJ SN HQ CK T21 EX".split()).is_combination


def test_loco_standing_for_twenty_is_not_reachable_but_nineteen_is():
    assert classify("S01 H01 EX".split()).loco_value == 19

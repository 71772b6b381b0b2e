"""Properties of ``classify`` against a brute-force oracle written independently."""

from itertools import combinations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.cards import DECK
from engine.trivium.combinations import classify

NUMBERED = [c.code for c in DECK if not c.is_court and not c.is_excuse]  # T01..T21 and pips
VALUE = {c.code: c.rank for c in DECK}
SETTINGS = settings(max_examples=150, deadline=None)


def oracle_group(group) -> bool:
    """A three-card tercia, El Loco standing for a card worth 1..20."""
    if len(group) != 3 or any(c not in VALUE or (c != "EX" and c not in NUMBERED) for c in group):
        return False
    values = [VALUE[c] for c in group if c != "EX"]
    if len(values) == 3:
        return sum(values) == 21
    return 1 <= 21 - sum(values) <= 20


def oracle_trivium(cards) -> bool:
    cards = list(cards)
    if len(cards) == 8:
        if not {"T21", "EX"} <= set(cards):
            return False
        cards = [c for c in cards if c not in ("T21", "EX")]
        groups_needed = 2
    else:
        groups_needed = 3
    def split(rest, k):
        if k == 0:
            return not rest
        head = rest[0]
        return any(
            oracle_group((head,) + pair) and split([c for c in rest[1:] if c not in pair], k - 1)
            for pair in combinations(rest[1:], 2)
        )
    return len(cards) == 3 * groups_needed and split(cards, groups_needed)


@SETTINGS
@given(st.lists(st.sampled_from(NUMBERED), min_size=3, max_size=3, unique=True))
def test_three_numbered_cards_are_a_tercia_exactly_when_they_sum_to_21(codes):
    verdict = classify(codes)
    assert (verdict.combination == "tercia") == (sum(VALUE[c] for c in codes) == 21)
    assert verdict.points == (0 if verdict.combination else None)


@SETTINGS
@given(st.lists(st.sampled_from(NUMBERED), min_size=2, max_size=2, unique=True))
def test_two_cards_and_el_loco(codes):
    verdict = classify(codes + ["EX"])
    missing = 21 - sum(VALUE[c] for c in codes)
    assert (verdict.combination == "tercia") == (1 <= missing <= 20)
    if verdict.combination:
        assert verdict.loco_value == missing
    else:
        assert "would stand for" in verdict.reason or "XXI" in verdict.reason


# Small values make many tercias, so the search meets both answers often.
SMALL = [c for c in NUMBERED if VALUE[c] <= 10 or c in ("T11", "T12", "T13", "T15", "T19")]


@SETTINGS
@given(st.lists(st.sampled_from(SMALL + ["EX"]), min_size=9, max_size=9, unique=True))
def test_nine_cards_agree_with_the_oracle(codes):
    verdict = classify(codes)
    assert (verdict.combination == "trivium") == oracle_trivium(codes), verdict.reason
    if verdict.combination:
        assert sorted(c for g in verdict.groups for c in g) == sorted(codes)
        assert all(oracle_group(g) for g in verdict.groups)


@SETTINGS
@given(st.lists(st.sampled_from(SMALL), min_size=6, max_size=6, unique=True))
def test_eight_cards_with_the_pair_agree_with_the_oracle(codes):
    cards = codes + ["T21", "EX"]
    verdict = classify(cards)
    assert (verdict.combination == "trivium") == oracle_trivium(cards), verdict.reason
    if verdict.combination:
        assert ("T21", "EX") in verdict.groups


@SETTINGS
@given(st.data())
def test_three_tercias_shuffled_are_always_found(data):
    """Build three disjoint tercias, shuffle them, and the grouping is found."""
    pool = list(SMALL)
    chosen = []
    for _ in range(3):
        a, b = data.draw(st.lists(st.sampled_from(pool), min_size=2, max_size=2, unique=True))
        need = 21 - VALUE[a] - VALUE[b]
        thirds = [c for c in pool if VALUE[c] == need and c not in (a, b)]
        assume(thirds)
        c = data.draw(st.sampled_from(thirds))
        chosen += [a, b, c]
        pool = [x for x in pool if x not in (a, b, c)]
    codes = data.draw(st.permutations(chosen))
    verdict = classify(codes)
    assert verdict.combination == "trivium" and verdict.points == 63


COURTS = [c.code for c in DECK if c.is_court]


@SETTINGS
@given(st.lists(st.sampled_from(COURTS + ["EX"]), min_size=4, max_size=4, unique=True), st.booleans())
def test_four_courts(codes, loco_in_gran):
    from engine.trivium.options import TriviumOptions

    verdict = classify(codes, TriviumOptions(loco_in_gran_cuadrivium=loco_in_gran))
    courts = [c for c in codes if c != "EX"]
    ranks = {VALUE[c] for c in courts}
    is_cuadrivium = len(ranks) == len(courts)  # one of each, El Loco for the missing one
    same_suit = len({c[0] for c in courts}) == 1
    if not is_cuadrivium:
        assert verdict.combination is None
    elif same_suit and (len(courts) == 4 or loco_in_gran):
        assert (verdict.combination, verdict.points) == ("gran_cuadrivium", 100)
    else:
        assert (verdict.combination, verdict.points) == ("cuadrivium", 50)

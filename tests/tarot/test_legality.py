"""Trick legality with known hands: the "Playing the cards" rules and edge cases 1, 2, 3, 10."""

from hypothesis import given, settings, strategies as st

from engine.tarot import forbidden_if_held, is_legal, legal_cards
from engine.tarot.legality import LeadRules, legal_plays
from engine.tarot.tables import CODE, index_of


def codes(cards):
    return sorted(c.code for c in cards)


def test_holding_the_suit_led_must_follow_but_need_not_play_higher():
    hand = ["H02", "HK", "T05", "SK"]
    assert codes(legal_cards(hand, ["H07"])) == ["H02", "HK"]


def test_follow_suit_even_after_someone_trumped():
    # edge case 2: the suit is still followed, with no duty to overtrump
    hand = ["H02", "T20", "C05"]
    assert codes(legal_cards(hand, ["H07", "T03"])) == ["H02"]


def test_without_the_suit_a_player_must_trump():
    hand = ["T02", "T09", "C05", "SK"]
    assert codes(legal_cards(hand, ["H07"])) == ["T02", "T09"]


def test_must_overtrump_when_able():
    hand = ["T02", "T09", "T15", "C05"]
    assert codes(legal_cards(hand, ["H07", "T12"])) == ["T15"]


def test_must_overtrump_even_a_partner():
    # edge case 1: no exception for a partner's trump; the rule ignores sides
    hand = ["T13", "T02"]
    assert codes(legal_cards(hand, ["D07", "T12", "D01"])) == ["T13"]


def test_unable_to_overtrump_still_trumps_never_discards():
    hand = ["T02", "T05", "C05", "SK"]
    assert codes(legal_cards(hand, ["H07", "T12"])) == ["T02", "T05"]


def test_discard_only_with_neither_suit_nor_trump():
    hand = ["C05", "SK", "D01"]
    assert codes(legal_cards(hand, ["H07", "T12"])) == ["C05", "D01", "SK"]


def test_trump_lead_beat_the_highest_trump_in_the_trick_not_the_one_led():
    # edge case 2: with a trump lead the card to beat is the highest in the trick
    hand = ["T08", "T14", "T19"]
    assert codes(legal_cards(hand, ["T05", "T15"])) == ["T19"]
    assert codes(legal_cards(["T08", "T14"], ["T05", "T15"])) == ["T08", "T14"]


def test_trump_lead_without_trump_discards_anything():
    assert codes(legal_cards(["C05", "HK"], ["T05"])) == ["C05", "HK"]


def test_excuse_may_always_be_played():
    hand = ["EX", "H02", "T09"]
    assert "EX" in codes(legal_cards(hand, ["H07"]))
    assert "EX" in codes(legal_cards(hand, ["S07", "T12"]))
    assert "EX" in codes(legal_cards(hand, ["T05"]))
    assert "EX" in codes(legal_cards(hand, []))


def test_excuse_lead_lets_the_next_card_set_the_suit():
    # edge case 3: after an Excuse lead the next card is free and sets the suit
    assert codes(legal_cards(["H02", "T09", "C05"], ["EX"])) == ["C05", "H02", "T09"]
    # ... and the third player follows that card, here a trump lead
    assert codes(legal_cards(["H02", "T09", "T01"], ["EX", "T05"])) == ["T09"]
    assert codes(legal_cards(["H02", "T09", "T01"], ["EX", "H05"])) == ["H02"]


def test_any_card_may_be_led():
    hand = ["H02", "T09", "C05", "EX"]
    assert codes(legal_cards(hand, [])) == sorted(hand)


def test_five_players_opening_lead_not_in_the_called_suit():
    hand = ["H02", "H05", "T09", "C05"]
    got = legal_cards(hand, [], called_card="HK", opening_lead=True)
    assert codes(got) == ["C05", "T09"]


def test_five_players_opening_lead_of_the_called_king_itself_is_allowed():
    hand = ["HK", "H05", "C05"]
    assert codes(legal_cards(hand, [], called_card="HK", opening_lead=True)) == ["C05", "HK"]


def test_five_players_called_suit_lead_allowed_when_nothing_else():
    hand = ["H02", "H05", "EX"]
    assert codes(legal_cards(hand, [], called_card="HK", opening_lead=True)) == ["EX", "H02", "H05"]


def test_five_players_followers_still_follow_the_called_suit():
    # edge case 10: only the opening lead is restricted
    hand = ["H02", "C05"]
    assert codes(legal_cards(hand, ["H07"], called_card="HK", opening_lead=True)) == ["H02"]


def test_five_players_only_the_opening_lead_is_restricted():
    hand = ["H02", "C05"]
    assert codes(legal_cards(hand, [], called_card="HK", opening_lead=False)) == ["C05", "H02"]


def test_no_trump_lead_until_broken_variant():
    hand = ["T09", "C05", "EX"]
    got = legal_cards(hand, [], no_trump_lead_until_broken=True, trumps_broken=False)
    assert codes(got) == ["C05", "EX"]
    got = legal_cards(hand, [], no_trump_lead_until_broken=True, trumps_broken=True)
    assert codes(got) == ["C05", "EX", "T09"]
    # a hand of only trumps and the Excuse may still lead a trump
    got = legal_cards(["T09", "T11", "EX"], [], no_trump_lead_until_broken=True, trumps_broken=False)
    assert codes(got) == ["EX", "T09", "T11"]


def test_is_legal():
    assert is_legal("T15", ["T02", "T15"], ["H07", "T12"])
    assert not is_legal("T02", ["T02", "T15"], ["H07", "T12"])


def test_forbidden_if_held_names_what_makes_a_play_illegal():
    def f(card, trick):
        return sorted(CODE[c] for c in forbidden_if_held(index_of(card), [index_of(c) for c in trick]))
    assert f("EX", ["H07"]) == []
    assert f("H02", ["H07"]) == []
    trumped = f("T05", ["H07", "T12"])
    assert "H01" in trumped and "HK" in trumped and "T13" in trumped and "T21" in trumped
    assert "T11" not in trumped and "S01" not in trumped and "EX" not in trumped
    assert f("C05", ["T05"]) == sorted(CODE[i] for i in range(21))


_card = st.integers(min_value=0, max_value=77)


@settings(max_examples=300, deadline=None)
@given(st.sets(_card, min_size=1, max_size=18), st.lists(_card, max_size=4, unique=True),
       st.booleans(), st.booleans(), st.sampled_from([None, 35, 49, 63, 77, 48]))
def test_legal_cards_agrees_with_forbidden_if_held(hand, trick, no_trump, opening, called):
    hand = set(hand) - set(trick)
    if not hand:
        return
    rules = LeadRules(called_card=called if opening else None, no_trump_lead=no_trump)
    legal = set(legal_plays(hand, trick, rules))
    assert legal, "some card is always playable"
    for c in hand:
        illegal = bool(forbidden_if_held(c, trick, rules) & (hand - {c}))
        assert (c in legal) == (not illegal), (CODE[c], [CODE[x] for x in trick])

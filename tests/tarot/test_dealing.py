"""The dealing rules (engine.tarot.dealing), against the FFT rules reference.

The numbers are written here as the reference states them ("Direction, dealer,
shuffle and cut", ambiguity A11); ``test_reference_*`` also read them from
``../shared/rules/french-tarot.md`` when it is there.
"""

import re

import pytest
from hypothesis import given, settings, strategies as st

import engine.tarot as tarot
from engine.cards import DECK
from engine.tarot import (DealingError, allowed_chien_positions, check_chien_positions,
                          chien_position_allowed, chien_size, cut, cut_range, deal_pack,
                          first_bidder, first_dealer, hand_size, is_valid_cut, next_dealer,
                          packet_size, packets_per_player)
from engine.tarot.tables import CHIEN_SIZE, HAND_SIZE

CODES = [c.code for c in DECK]
REFERENCE_TABLE = {3: (4, 24, 6), 4: (3, 18, 6), 5: (3, 15, 3)}  # packet, hand, chien
SETTINGS = settings(max_examples=80, deadline=None)

players_st = st.sampled_from([3, 4, 5])
packs = st.permutations(CODES)


@st.composite
def deals(draw):
    n = draw(players_st)
    dealer = draw(st.integers(0, n - 1))
    pack = draw(packs)
    positions = draw(st.lists(st.integers(1, 76), min_size=chien_size(n),
                              max_size=chien_size(n), unique=True))
    return n, dealer, pack, positions


# --- sizes -------------------------------------------------------------------

@pytest.mark.parametrize("n", [3, 4, 5])
def test_sizes_are_the_references(n):
    assert (packet_size(n), hand_size(n), chien_size(n)) == REFERENCE_TABLE[n]
    assert n * hand_size(n) + chien_size(n) == 78
    assert hand_size(n) % packet_size(n) == 0
    assert packets_per_player(n) == hand_size(n) // packet_size(n)


def test_sizes_agree_with_the_engines_tables():
    assert {n: hand_size(n) for n in (3, 4, 5)} == HAND_SIZE
    assert {n: chien_size(n) for n in (3, 4, 5)} == CHIEN_SIZE


@pytest.mark.parametrize("n", [2, 6, 0, True, "4"])
def test_sizes_refuse_other_table_sizes(n):
    for f in (packet_size, hand_size, chien_size):
        with pytest.raises(DealingError, match="3, 4 or 5"):
            f(n)


def test_exported_from_engine_tarot_with_docstrings():
    for name in ("packet_size", "hand_size", "chien_size", "cut", "is_valid_cut", "cut_range",
                 "chien_position_allowed", "allowed_chien_positions", "check_chien_positions",
                 "deal_pack", "first_bidder", "next_dealer", "first_dealer", "DealingError"):
        assert name in tarot.__all__
        assert getattr(tarot, name).__doc__


# --- the cut -----------------------------------------------------------------

def test_cut_range_each_part_more_than_three():
    assert cut_range() == range(4, 75)
    assert not is_valid_cut(3) and is_valid_cut(4) and is_valid_cut(74) and not is_valid_cut(75)
    assert not is_valid_cut(True) and not is_valid_cut(4.0)


@SETTINGS
@given(packs, st.integers(-5, 83))
def test_cut_valid_iff_both_parts_hold_more_than_three(pack, lifted):
    if 3 < lifted and 78 - lifted > 3:
        after = cut(pack, lifted)
        assert sorted(after) == sorted(pack)
        assert after[:78 - lifted] == tuple(pack[lifted:])
        assert after[78 - lifted:] == tuple(pack[:lifted])
    else:
        with pytest.raises(DealingError, match="more than 3 cards"):
            cut(pack, lifted)


@SETTINGS
@given(packs, st.integers(4, 74), st.integers(4, 74))
def test_two_cuts_are_one_cut(pack, a, b):
    """Cutting only rotates the pack: two cuts are one rotation by a + b."""
    twice = cut(cut(pack, a), b)
    k = (a + b) % 78
    assert twice == tuple(pack[k:]) + tuple(pack[:k])


# --- chien positions ---------------------------------------------------------

def test_never_the_first_or_last_card_and_nothing_else_forbidden():
    """A11: the FFT forbids only the first and last card (not the first three)."""
    assert [p for p in range(78) if not chien_position_allowed(p)] == [0, 77]
    assert allowed_chien_positions() == range(1, 77)
    assert chien_position_allowed(1) and chien_position_allowed(2) and chien_position_allowed(76)
    assert not chien_position_allowed(-1) and not chien_position_allowed(78)


@pytest.mark.parametrize("bad,message", [
    ([0, 5, 9, 20, 30, 40], "first card"),
    ([77, 5, 9, 20, 30, 40], "last card"),
    ([5, 9, 20, 30, 40], "holds 6 cards"),
    ([5, 5, 20, 30, 40, 50], "once"),
    ([5, 9, 20, 30, 40, 99], "1..76"),
])
def test_chien_positions_refused_with_the_rule(bad, message):
    with pytest.raises(DealingError, match=message):
        check_chien_positions(bad, 4)


# --- dealing -----------------------------------------------------------------

@SETTINGS
@given(deals())
def test_deal_pack_gives_every_card_once_in_packets(d):
    n, dealer, pack, positions = d
    out = deal_pack(pack, n, dealer, positions)
    assert all(len(h) == hand_size(n) for h in out.hands)
    assert len(out.chien) == chien_size(n)
    assert sorted(c for h in out.hands for c in h) + [] == sorted(set(pack) - set(out.chien))
    assert list(out.chien) == [pack[p] for p in sorted(positions)]
    # the first and the last card go to players; the first to the dealer's right
    assert pack[0] not in out.chien and pack[-1] not in out.chien
    assert out.hand(first_bidder(dealer, n))[0] == pack[0]
    # the players' cards come in packets, counter-clockwise from the dealer's right
    to_players = [c for p, c in enumerate(pack) if p not in set(positions)]
    size = packet_size(n)
    for k in range(0, len(to_players), size):
        seat = (dealer + 1 + k // size) % n
        packet = to_players[k:k + size]
        start = (k // size // n) * size
        assert list(out.hand(seat)[start:start + size]) == packet


@SETTINGS
@given(deals(), st.sampled_from([0, 77]))
def test_deal_pack_refuses_first_or_last_in_the_chien(d, forbidden):
    n, dealer, pack, positions = d
    positions = [forbidden] + positions[1:]
    if len(set(positions)) == len(positions):
        with pytest.raises(DealingError, match="may not go to the chien"):
            deal_pack(pack, n, dealer, positions)


def test_deal_pack_refuses_a_pack_that_is_not_the_78_cards():
    with pytest.raises(DealingError, match="78 different cards"):
        deal_pack(CODES[:-1] + [CODES[0]], 4, 0, [1, 2, 3, 4, 5, 6])
    with pytest.raises(DealingError, match="78 different cards"):
        deal_pack(CODES[:-1], 4, 0, [1, 2, 3, 4, 5, 6])


# --- who deals ---------------------------------------------------------------

@SETTINGS
@given(players_st, st.data())
def test_misdeal_same_dealer_otherwise_to_the_right(n, data):
    dealer = data.draw(st.integers(0, n - 1))
    assert next_dealer(dealer, n, misdeal=True) == dealer
    assert next_dealer(dealer, n) == (dealer + 1) % n == first_bidder(dealer, n)
    # after n ordinary deals the deal is back with the first dealer
    d = dealer
    for _ in range(n):
        d = next_dealer(d, n)
    assert d == dealer


def test_first_dealer_lowest_card_ace_of_clubs_lowest_trumps_high():
    assert first_dealer(["S01", "C01", "H01", "D01"]) == 1
    assert first_dealer(["T01", "S05", "HK"]) == 1  # any trump outranks a suit card
    assert first_dealer(["S02", "C02", "HK"]) == 1
    assert first_dealer(["DK", "S03", "H03", "D03", "C04"]) == 3
    assert first_dealer(["T02", "T01", "T21"]) == 1


def test_first_dealer_excuse_draws_again_and_draws_differ():
    with pytest.raises(DealingError, match="Excuse"):
        first_dealer(["EX", "S01", "C01"])
    with pytest.raises(DealingError, match="different"):
        first_dealer(["S01", "S01", "C01"])
    with pytest.raises(DealingError, match="3, 4 or 5"):
        first_dealer(["S01", "C01"])


# --- against the reference text ----------------------------------------------

def _dealing_section(shared_dir):
    text = (shared_dir / "rules" / "french-tarot.md").read_text(encoding="utf-8")
    start = text.index("### Direction, dealer, shuffle and cut")
    end = text.index("\n### ", start + 5)
    a11 = re.search(r"\*\*A11[^\n]*(?:\n  [^\n]*)*", text)
    return text[start:end], a11.group(0) if a11 else ""


@pytest.mark.shared
def test_reference_table_of_packets_hands_and_chien(shared_dir):
    section, _ = _dealing_section(shared_dir)
    rows = re.findall(r"^\| (\d) \| (\d+) \| (\d+) \| (\d+) \|$", section, re.M)
    assert len(rows) == 3
    for n, packet, hand, chien in rows:
        n = int(n)
        assert (packet_size(n), hand_size(n), chien_size(n)) == (int(packet), int(hand), int(chien))


@pytest.mark.shared
def test_reference_cut_chien_and_misdeal_sentences(shared_dir):
    section, a11 = _dealing_section(shared_dir)
    flat = " ".join(section.split())
    m = re.search(r"both parts of the cut must hold \*\*more than (\d+) cards\*\*", flat)
    assert m and min(cut_range()) == int(m.group(1)) + 1
    assert "first and the last card of the pack may not go into the chien" in flat
    assert "FFT forbids only the first and last card" in " ".join(a11.split())
    assert [p for p in range(78) if not chien_position_allowed(p)] == [0, 77]
    assert "misdeal is redealt by the same dealer" in flat
    assert next_dealer(2, 4, misdeal=True) == 2
    assert "ace of clubs is the lowest card of all" in flat
    assert first_dealer(["C01", "D01", "H01", "S01"]) == 0

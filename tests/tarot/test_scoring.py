"""Counting and scoring (reference: "Counting and scoring", petit au bout,
poignée, chelem, 5 players; edge cases 3, 4, 5, 6, 7, 8, 9, 10)."""

import pytest

from engine.cards import card
from engine.tarot import TarotOptions
from engine.tarot.scoring import (count_cards, diff_and_won, petit_au_bout_side, score_deal,
                                  settle)
from engine.tarot.tables import index_of
from tarot_helpers import chunk_tricks, rest_of_deck, trick

# 47 points with 2 oudlers (T21, Petit): 14 cards = 2 tricks of 4 + an écart of 6
SPANISH_ATTACK = ["T21", "T01", "SK", "HK", "DK", "CK", "SQ", "HQ", "DQ", "CQ",
                  "SN", "HN", "T02", "T03"]


def four_player_deal(attack_cards, contract="garde", taker=0, **kw):
    """4 players: the taker wins the tricks of attack_cards (minus the last 6, the
    écart); seat 1 wins everything else (the Excuse among them, kept by the defence)."""
    ecart = attack_cards[-6:]
    won = attack_cards[:-6]
    defence = rest_of_deck(attack_cards)
    defence.remove("EX")
    defence.insert(0, "EX")  # led by seat 1: the defence owns the Excuse
    tricks = chunk_tricks(4, taker, won) + chunk_tricks(4, (taker + 1) % 4, defence)
    # the last trick must be the defence's (no petit au bout here unless wanted)
    return score_deal(players=4, taker=taker, partner=None, contract=contract,
                      tricks=tricks, unseen=[index_of(c) for c in ecart], **kw)


def test_spanish_worked_example_garde_47_points_two_oudlers():
    r = four_player_deal(SPANISH_ATTACK, "garde")
    assert r.attack_points == 47
    assert r.attack_oudlers == 2
    assert r.target == 41
    assert r.won and r.diff == 6
    assert r.unit == 62
    assert r.scores == (186, -62, -62, -62)


@pytest.mark.parametrize("oudlers,target", [(0, 56), (1, 51), (2, 41), (3, 36)])
def test_targets_by_oudlers(oudlers, target):
    from engine.tarot.tables import target_for
    assert target_for(oudlers) == target


def test_exact_target_is_won_by_zero():
    assert diff_and_won(82, 41) == (0, True)
    exactly_41 = [{"SQ": "S02", "HQ": "H02"}.get(c, c) for c in SPANISH_ATTACK]
    r = four_player_deal(exactly_41, "prise")
    assert r.attack_points == 41 and r.attack_oudlers == 2
    assert r.won and r.diff == 0 and r.unit == 25


def test_half_points_decided_on_the_exact_total_then_given_to_the_winner():
    # edge case 8: 40.5 against 41 loses by 1, 41.5 wins by 1; never round first
    assert diff_and_won(81, 41) == (1, False)
    assert diff_and_won(83, 41) == (1, True)
    assert diff_and_won(85, 41) == (2, True)
    assert diff_and_won(79, 41) == (2, False)
    assert diff_and_won(111, 56) == (1, False)


def three_player_prise(attack_cards):
    """3 players, a prise by seat 0: the taker wins the tricks of attack_cards (minus
    the last 6, the écart); seat 1 leads and wins everything else, the Excuse first
    (the defence keeps it)."""
    ecart = attack_cards[-6:]
    defence = rest_of_deck(attack_cards)
    defence.remove("EX")
    tricks = chunk_tricks(3, 0, attack_cards[:-6]) + chunk_tricks(3, 1, ["EX"] + defence)
    assert len(tricks) == 24
    return score_deal(players=3, taker=0, partner=None, contract="prise", tricks=tricks,
                      unseen=[index_of(c) for c in ecart])


def test_three_player_half_point_total_loses_by_one():
    # edge case 8 at 3 players: the taker has T21 and the Petit (target 41) and cards
    # making 40.5: lost on the exact total, by 1 (neither won by 0 nor rounded up)
    attack = ["T21", "T01", "SK", "HK", "DK", "CK", "SQ", "HQ", "DQ",
              "T02", "T03", "T04", "T05", "T06", "T07"]  # 2*4.5 + 4*4.5 + 3*3.5 + 6*0.5 = 40.5
    r = three_player_prise(attack)
    assert r.attack_half_points == 81 and r.attack_points == 40.5 and r.attack_oudlers == 2
    assert r.target == 41 and not r.won and r.diff == 1
    assert r.petit_au_bout is None and r.chelem is None
    assert r.unit == -(25 + 1)
    assert r.scores == (-2 * 26, 26, 26)
    # a jack (1.5) instead of a low trump in the écart: 41.5, won by 1
    r = three_player_prise(attack[:-1] + ["SJ"])
    assert r.attack_points == 41.5 and r.won and r.diff == 1
    assert r.scores == (2 * 26, -26, -26)


def test_unit_and_settlement_when_lost():
    attack = ["T21", "T01", "SK", "HK", "DK", "CK", "SQ", "HQ", "T02", "T03"]  # 2 oudlers
    r = four_player_deal(attack + ["S02", "S03", "S04", "S05"], "garde_sans")
    # 4.5*6 + 3.5*2 + 0.5*6 = 37 → lost by 4 at ×4
    assert r.attack_points == 37 and not r.won and r.diff == 4
    assert r.unit == -(25 + 4) * 4
    assert r.scores == (3 * r.unit, -r.unit, -r.unit, -r.unit)


def test_excuse_exchange_owner_keeps_it_and_gives_half_a_point():
    # edge case 3: the defence plays the Excuse on a trick the attack wins
    last = trick(1, 1, ["C05", "C06", "C07", "C08"], 4)  # not the Excuse's trick
    t = [trick(0, 0, ["S05", "EX", "S06", "S07"], 4), last]
    half, oudlers = count_cards(t, frozenset({0}), [], True)
    assert half == 3 + 1  # three low cards + the half point given by the Excuse's side
    assert oudlers == 0
    # the attack plays it on a defence trick: keeps 4.5, gives 0.5
    t = [trick(1, 1, ["S05", "S06", "S07", "EX"], 4), last]  # EX played by seat 0
    half, oudlers = count_cards(t, frozenset({0}), [], True)
    assert half == 9 - 1 and oudlers == 1


def test_excuse_at_the_last_trick_changes_sides():
    # edge case 3: played at the last trick, the Excuse goes to the trick's winner
    tricks = [trick(0, 1, ["S05", "S06", "S07", "S08"], 4),
              trick(1, 1, ["H05", "H06", "H07", "EX"], 4)]  # EX by seat 0 (attack), last
    half, oudlers = count_cards(tricks, frozenset({0}), [], True)
    assert half == 0 and oudlers == 0


def test_oudler_count_comes_from_the_final_tricks():
    # edge case 6: the Petit captured by the attack counts for the attack
    tricks = [trick(1, 0, ["T01", "T05", "T02", "T03"], 4)]
    assert count_cards(tricks, frozenset({0}), [], True) == (9 + 3, 1)


def test_petit_au_bout_goes_to_the_side_winning_the_last_trick_multiplied():
    # edge case 4: the defence takes the last trick containing the attack's Petit
    attack = SPANISH_ATTACK
    ecart = attack[-6:]
    won = attack[:-6]
    defence = rest_of_deck(attack)
    tricks = chunk_tricks(4, 0, won) + chunk_tricks(4, 1, defence)
    last = tricks[-1]
    assert index_of("T01") not in last.cards
    # put the Petit in the last trick, won by the defence (swap with a low card)
    petit = index_of("T01")
    low = last.cards[0]
    tricks = [type(t)(t.leader, t.seats, tuple(low if c == petit else c for c in t.cards), t.winner)
              for t in tricks]
    last = tricks[-1]
    tricks[-1] = type(last)(last.leader, last.seats, (petit,) + last.cards[1:], last.winner)
    assert petit_au_bout_side(tricks, frozenset({0}), 18) == "defence"
    r = score_deal(players=4, taker=0, partner=None, contract="garde", tricks=tricks,
                   unseen=[index_of(c) for c in ecart])
    # the Petit now belongs to the defence: 1 oudler, 47 - 4.5 + 0.5 = 43 < 51
    assert r.attack_oudlers == 1 and r.attack_points == 43
    assert not r.won and r.diff == 8
    assert r.petit_au_bout == "defence" and r.petit_au_bout_bonus == -20
    assert r.unit == -(25 + 8) * 2 - 20


def test_petit_au_bout_reduces_a_winners_gain():
    tricks = chunk_tricks(4, 0, ["T21", "T02", "T03", "T04"]) + [
        trick(0, 1, ["T01", "T05", "T06", "T07"], 4)]
    r = score_deal(players=4, taker=0, partner=None, contract="prise", tricks=tricks, unseen=[],
                   hand_size=2)
    assert r.petit_au_bout == "defence" and r.petit_au_bout_bonus == -10


def test_poignee_goes_to_the_winning_side_not_multiplied():
    # edge case 5: the taker shows a poignée and loses: the defence gets it
    lost = four_player_deal(["T21", "T01", "SK", "HK", "DK", "CK", "SQ", "HQ", "T02", "T03",
                             "S02", "S03", "S04", "S05"], "garde", poignees=["simple"])
    assert not lost.won and lost.poignee_bonus == -20
    assert lost.unit == -(25 + 4) * 2 - 20
    won = four_player_deal(SPANISH_ATTACK, "garde_contre", poignees=["double", "simple"])
    # garde contre: the écart-sized unseen cards go to the defence
    assert won.poignee_bonus == (50 if won.won else -50)


def test_garde_sans_chien_counts_for_the_taker_with_its_oudlers():
    # edge case 7: the six unseen cards hold T21 and the Petit
    r = four_player_deal(SPANISH_ATTACK, "garde_sans")
    assert r.attack_oudlers == 2 and r.attack_points == 47 and r.unit == (25 + 6) * 4


def test_garde_contre_chien_counts_for_the_defence():
    r = four_player_deal(SPANISH_ATTACK, "garde_contre")
    # the unseen cards (T02 T03 SN HN DQ CQ... the last 6) go to the defence
    unseen_half = sum(card(c).half_points for c in SPANISH_ATTACK[-6:])
    assert r.attack_half_points == 94 - unseen_half


def full_attack_chelem(players=4, excuse_with_defence=True, contract="garde", announced=True,
                       options=TarotOptions()):
    """The attack (seat 0) wins every trick; the Excuse is played by a defender or not at all."""
    cards = [c for c in rest_of_deck([]) if c != "EX"]
    n = players
    size = {3: 24, 4: 18, 5: 15}[n]
    chien = {3: 6, 4: 6, 5: 3}[n]
    unseen = cards[:chien]
    rest = cards[chien:]
    tricks = []
    for i in range(size):
        group = rest[i * n:(i + 1) * n] if i < size - 1 else None
        tricks.append(group)
    # the Excuse, played by seat 1 in the first trick, replaces one low card there
    assert excuse_with_defence
    tricks[0] = [tricks[0][0], "EX"] + tricks[0][2:]
    leftover = rest[(size - 1) * n:]
    used = {c for t in tricks[:-1] for c in t} | set(unseen)
    last = [c for c in rest_of_deck(list(used)) if c != "EX"]
    tricks[-1] = last
    ft = [trick(0, 0, t, n) for t in tricks]
    return score_deal(players=n, taker=0, partner=None, contract=contract, tricks=ft,
                      unseen=[index_of(c) for c in unseen], chelem_announced=announced,
                      options=options)


def test_chelem_with_the_excuse_in_defence_counts_87():
    # FFT's own example (edge case 9): the Excuse stays with the defence, worth 4 to them
    r = full_attack_chelem()
    assert r.attack_points == 87
    assert r.chelem == "attack"
    assert r.chelem_bonus == 400


def test_chelem_bonuses_not_multiplied():
    announced = full_attack_chelem(announced=True, contract="garde_sans")
    unannounced = full_attack_chelem(announced=False, contract="garde_sans")
    assert announced.unit - unannounced.unit == 200
    assert announced.chelem_bonus == 400 and unannounced.chelem_bonus == 200


def test_garde_contre_chelem_totals_less_than_91():
    r = full_attack_chelem(contract="garde_contre")
    assert r.chelem == "attack"
    assert r.attack_points < 87


def test_announced_chelem_failed_costs_200():
    r = four_player_deal(SPANISH_ATTACK, "garde", chelem_announced=True)
    assert r.chelem is None and r.chelem_bonus == -200
    assert r.unit == 62 - 200


def defence_chelem(options=TarotOptions(), announced=False):
    tricks = chunk_tricks(4, 1, [c for c in rest_of_deck(["S01", "S02", "S03", "S04", "S05", "S06"])])
    return score_deal(players=4, taker=0, partner=None, contract="prise", tricks=tricks,
                      unseen=[index_of(c) for c in ["S01", "S02", "S03", "S04", "S05", "S06"]],
                      chelem_announced=announced, options=options)


def test_defence_chelem_gives_each_defender_200_more():
    r = defence_chelem()
    assert r.chelem == "defence"
    assert r.chelem_bonus == -200
    without = defence_chelem(TarotOptions(defence_chelem_bonus=False))
    assert without.chelem_bonus == 0
    assert r.scores[1] - without.scores[1] == 200
    assert sum(r.scores) == 0


def test_announced_chelem_with_a_defence_chelem_pays_both():
    # ambiguity A9: both penalties apply
    r = defence_chelem(announced=True)
    assert r.chelem_bonus == -400


def test_five_player_split_two_to_one_and_alone_times_four():
    # edge case 10
    assert settle(5, 0, 2, 50) == [100, -50, 50, -50, -50]
    assert settle(5, 0, None, 50) == [200, -50, -50, -50, -50]
    assert settle(3, 1, None, -30) == [30, -60, 30]
    assert settle(4, 3, None, 10) == [-10, -10, -10, 30]


def test_partner_share_of_the_chelem_bonus_option():
    # ambiguity A7: FFT shares the whole unit 2:1; the option gives the chelem bonus to the taker
    shared = settle(5, 0, 2, 480, chelem_bonus=400)
    alone = settle(5, 0, 2, 480, chelem_bonus=400,
                   options=TarotOptions(partner_shares_bonuses=False))
    assert shared == [960, -480, 480, -480, -480]
    assert alone == [2 * 80 + 3 * 400, -480, 80, -480, -480]
    assert sum(alone) == 0


def test_misere_variant_each_opponent_pays_the_bonus():
    r = four_player_deal(SPANISH_ATTACK, "garde", misere=[(2, "atout")],
                         options=TarotOptions(misere=True))
    assert r.scores == (186 - 10, -62 - 10, -62 + 30, -62 - 10)


def test_excuse_of_a_side_that_takes_no_trick_still_gives_half_a_point():
    # ambiguity A1: the owner is treated as having passed the half point
    tricks = [trick(1, 1, ["S05", "S06", "S07", "EX"], 4),   # the taker (seat 0) plays the Excuse
              trick(1, 1, ["H05", "H06", "H07", "H08"], 4)]
    half, oudlers = count_cards(tricks, frozenset({0}), [], True)
    assert (half, oudlers) == (8, 1)  # 4 points: the Excuse less the half point


def test_the_defence_excuse_at_the_last_trick_of_a_chelem_stays_with_the_defence():
    # "Played at the last trick, the Excuse goes to whoever wins that trick, except in a
    # chelem"; "If the defence holds the Excuse during a chelem ... the taker counts 87"
    tricks = [trick(0, 0, ["S05", "S06", "S07", "S08"], 4),
              trick(0, 0, ["HK", "H06", "EX", "H07"], 4)]   # EX by seat 2 (defence), last
    half, oudlers = count_cards(tricks, frozenset({0}), [], True)
    assert (half, oudlers) == (4 + 9 + 2 + 1, 0)   # 4 low + HK + 2 low + the half point given

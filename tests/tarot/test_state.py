"""The deal state machine: bidding, petit sec, calling, chien and écart,
poignées, chelem, play, undo, and the refusals with their rules."""

import pytest

from engine.errors import TarotmateError
from engine.tarot import (AnnounceChelem, Bid, CallCard, DeclareMisere, DeclarePoignee, Ecart,
                          IllegalOperation, PetitSec, Play, RevealChien, TarotDeal, TarotOptions,
                          operation_from_dict, random_deal)
from engine.tarot.operations import OperationError
from engine.tarot.tables import CODE
from tarot_helpers import bid_to, play_out, rest_of_deck

SUITS_NO_KINGS = [c for c in CODE if c[0] in "SHDC"]


# --------------------------------------------------------------- a chelem deal
def chelem_hands():
    """4 players, dealer 3. Seat 2 holds T06..T21, the Petit and the Excuse;
    the defence holds T02..T05; the chien is six low spades."""
    taker = [f"T{r:02d}" for r in range(6, 22)] + ["T01", "EX"]
    chien = ["S01", "S02", "S03", "S04", "S05", "S06"]
    suits = [c for c in rest_of_deck(taker, chien) if c[0] != "T"]
    hands = {
        2: taker,
        0: ["T02", "T03"] + suits[:16],
        1: ["T04"] + suits[16:33],
        3: ["T05"] + suits[33:50],
    }
    return hands, chien


def chelem_deal(announce=True, poignee=True):
    hands, chien = chelem_hands()
    deal = TarotDeal(4, dealer=3, hands=hands, chien=chien)
    bid_to(deal, 2, "garde")
    deal.apply(RevealChien())
    deal.apply(Ecart(tuple(chien)))
    if announce:
        deal.apply(AnnounceChelem())
    if poignee:
        deal.apply(DeclarePoignee(2, "triple", tuple(f"T{r:02d}" for r in range(21, 6, -1))))
    return deal


def lead_and_follow(deal, card):
    """The seat to play plays ``card``; the others play their first legal card."""
    deal.apply(Play(deal.to_play, card))
    while deal.current_trick.cards and deal.phase == "play":
        deal.apply(deal.legal_moves()[0])


def test_announced_chelem_taker_leads_and_excuse_wins_the_last_trick():
    deal = chelem_deal()
    assert deal.to_play == 2  # the taker leads, not seat 0
    for r in range(21, 5, -1):
        lead_and_follow(deal, f"T{r:02d}")
    lead_and_follow(deal, "T01")
    lead_and_follow(deal, "EX")
    assert deal.phase == "done"
    assert [t.winner for t in deal.tricks] == [2] * 18
    r = deal.result()
    assert r.chelem == "attack" and r.attack_points == 91 and r.attack_oudlers == 3
    # the Petit at the penultimate trick is au bout when the Excuse wins the last one
    assert r.petit_au_bout == "attack"
    assert r.unit == (25 + 55) * 2 + 20 + 40 + 400 == 620
    assert r.scores == (-620, -620, 1860, -620)
    assert deal.violations == ()


def test_excuse_before_the_last_trick_loses_that_trick_and_the_chelem():
    deal = chelem_deal(poignee=False)
    for r in range(21, 5, -1):
        lead_and_follow(deal, f"T{r:02d}")
    lead_and_follow(deal, "EX")  # trick 17: a defender's card wins it
    t17 = deal.tricks[-1]
    assert t17.winner != 2
    lead_and_follow(deal, deal.legal_moves()[0].card)  # the defence leads, the taker trumps
    assert deal.tricks[-1].winner == 2
    r = deal.result()
    lost = sum(__import__("engine.cards").cards.card(c).half_points for c in t17.cards if c != "EX")
    # the taker keeps the Excuse and gives half a point for it
    assert r.attack_half_points == 182 - lost - 1
    assert r.chelem is None and r.chelem_bonus == -200
    assert r.petit_au_bout == "attack" and r.petit_au_bout_bonus == 20


def test_without_announcement_the_first_bidder_leads():
    deal = chelem_deal(announce=False, poignee=False)
    assert deal.to_play == 0


# ------------------------------------------------------------------- bidding
def test_bidding_each_player_speaks_once_in_order_strictly_increasing():
    deal = TarotDeal(4, dealer=1)
    assert deal.phase == "bidding" and deal.to_speak == 2
    with pytest.raises(IllegalOperation) as e:
        deal.apply(Bid(3, "prise"))
    assert e.value.rule == "turn"
    deal.apply(Bid(2, "garde"))
    assert deal.can(Bid(3, "prise")) is not None
    with pytest.raises(IllegalOperation) as e:
        deal.apply(Bid(3, "garde"))
    assert e.value.rule == "bid_too_low"
    deal.apply(Bid(3, "garde_sans"))
    deal.apply(Bid(0, "pass"))
    deal.apply(Bid(1, "pass"))
    assert deal.taker == 3 and deal.contract == "garde_sans"
    assert deal.phase == "play"  # garde sans: no chien, no écart
    assert deal.can(Bid(2, "garde_contre")) is not None


def test_everyone_passes_redeal():
    deal = TarotDeal(3, dealer=0)
    for s in (1, 2, 0):
        deal.apply(Bid(s, "pass"))
    assert deal.phase == "redeal" and deal.is_over()
    assert "dealt again" in deal.can(Play(1, "H01"))


def test_petite_is_prise():
    assert Bid(0, "Petite").bid == "prise"


def petit_sec_hands(with_excuse):
    hand0 = ["T01"] + (["EX"] if with_excuse else []) + [c for c in SUITS_NO_KINGS][:17 - with_excuse]
    rest = rest_of_deck(hand0)
    return {0: hand0, 1: rest[:18], 2: rest[18:36], 3: rest[36:54]}, rest[54:]


def test_petit_sec_cancels_the_deal():
    hands, chien = petit_sec_hands(with_excuse=False)
    deal = TarotDeal(4, dealer=3, hands=hands, chien=chien)
    deal.apply(PetitSec(0))
    assert deal.phase == "redeal"


def test_petit_and_excuse_is_not_petit_sec():
    hands, chien = petit_sec_hands(with_excuse=True)
    deal = TarotDeal(4, dealer=3, hands=hands, chien=chien)
    with pytest.raises(IllegalOperation) as e:
        deal.apply(PetitSec(0))
    assert e.value.rule == "petit_sec" and "Excuse" in str(e.value)


# --------------------------------------------------------------- 5 players
def five_player_hands():
    """Seat 0 holds all four Kings; the Queen of hearts is in seat 3's hand."""
    kings = ["SK", "HK", "DK", "CK"]
    seat0 = kings + [f"T{r:02d}" for r in range(10, 21)]
    rest = [c for c in rest_of_deck(seat0) if c != "HQ"]
    hands = {0: seat0, 1: rest[:15], 2: rest[15:30], 3: ["HQ"] + rest[30:44], 4: rest[44:59]}
    return hands, rest[59:62]


def test_five_players_call_a_queen_only_with_the_four_kings():
    hands, chien = five_player_hands()
    deal = TarotDeal(5, dealer=4, hands=hands, chien=chien)
    bid_to(deal, 0, "garde")
    assert deal.phase == "calling"
    assert deal.can(CallCard("HQ")) is None
    assert deal.can(CallCard("HJ")) is not None  # a Jack needs every Queen and Knight too
    assert deal.can(CallCard("T05")) is not None
    deal.apply(CallCard("HQ"))
    assert deal.phase == "chien"
    deal.apply(RevealChien())
    assert deal.partner is None


def test_five_players_queen_call_refused_without_all_kings():
    hands, chien = five_player_hands()
    deal = TarotDeal(5, dealer=0, hands=hands, chien=chien)
    bid_to(deal, 1, "prise")
    with pytest.raises(IllegalOperation) as e:
        deal.apply(CallCard("HQ"))
    assert e.value.rule == "call"
    deal.apply(CallCard("HK"))  # the King is in seat 0's hand


def test_five_players_partner_revealed_when_the_called_card_is_played():
    def partner_seat(deal):
        played = deal.played.get(deal.called_card)
        return None if played is None or played[1] == deal.taker else played[1]

    deal = next(d for d in (random_deal(5, s) for s in range(50)) if partner_seat(d) is not None)
    seat = partner_seat(deal)
    assert deal.partner == seat
    # undo back to just before the called card: the partner is unknown again
    while deal.called_card in deal.played:
        deal.undo()
    assert deal.partner is None and deal.to_play == seat


def test_called_king_in_the_chien_means_playing_alone():
    # hands hidden; the chien shows the called King: it is the taker's card now
    deal = TarotDeal(5, dealer=0)
    bid_to(deal, 2, "prise")
    deal.apply(CallCard("SK"))
    deal.apply(RevealChien(("SK", "H02", "H03")))
    deal.apply(Ecart())
    assert deal.phase == "play" and deal.to_play == 1
    assert "chien" in deal.can(Play(1, "SK"))
    assert deal.can(Play(1, "S05")) is None


# ---------------------------------------------------------- chien and écart
def test_ecart_refuses_kings_oudlers_and_avoidable_trumps():
    hands, chien = chelem_hands()
    deal = TarotDeal(4, dealer=3, hands=hands, chien=chien)
    bid_to(deal, 0, "prise")
    assert deal.phase == "chien"
    deal.apply(RevealChien())
    assert deal.phase == "ecart"
    king = [c for c in deal.hand(0) if c.endswith("K")][0]
    low = [c for c in deal.hand(0) if c[0] in "SHDC" and not c.endswith("K")]
    e = deal.can(Ecart(tuple(low[:5] + [king])))
    assert e and "Kings and oudlers" in e
    e = deal.can(Ecart(tuple(low[:5] + ["T02"])))
    assert e and "unavoidable" in e
    assert deal.can(Ecart(tuple(low[:6]))) is None


def test_ecart_with_trumps_when_unavoidable():
    taker = ["SK", "HK", "DK", "CK"] + [f"T{r:02d}" for r in range(2, 16)]
    chien = ["S01", "S02", "S03", "H01", "H02", "T16"]
    rest = rest_of_deck(taker, chien)
    deal = TarotDeal(4, dealer=3, hands={0: taker, 1: rest[:18], 2: rest[18:36], 3: rest[36:54]},
                     chien=chien)
    bid_to(deal, 0, "garde")
    deal.apply(RevealChien())
    # only five suit cards may go: the sixth card must be a trump (not an oudler), shown
    assert "unavoidable" in deal.can(Ecart(("S01", "S02", "S03", "H01", "T16", "T15")))
    assert "Kings" in deal.can(Ecart(("S01", "S02", "S03", "H01", "H02", "SK")))
    deal.apply(Ecart(("S01", "S02", "S03", "H01", "H02", "T16")))
    assert deal.ecart == ("T16", "S01", "S02", "S03", "H01", "H02") or "T16" in deal.ecart


def test_garde_contre_has_no_chien_phase_and_the_chien_is_out_of_play():
    hands, chien = chelem_hands()
    deal = TarotDeal(4, dealer=3, hands=hands, chien=chien)
    bid_to(deal, 2, "garde_contre")
    assert deal.phase == "play"
    assert deal.can(RevealChien()) is not None


# ---------------------------------------------------------------- poignées
def test_poignee_thresholds_exact_count_and_timing():
    deal = chelem_deal(announce=True, poignee=False)
    fifteen = tuple(f"T{r:02d}" for r in range(21, 6, -1))
    assert "exactly 15" in deal.can(DeclarePoignee(2, "triple", fifteen + ("T06",)))
    assert "15 trumps, not 14" in deal.can(DeclarePoignee(2, "triple", fifteen[:14]))
    assert deal.can(DeclarePoignee(2, "simple", fifteen[:10])) is None  # A4: a lower level
    strict = TarotDeal(4, dealer=3, options=TarotOptions(poignee_lower_level_allowed=False),
                       hands=chelem_hands()[0], chien=chelem_hands()[1])
    bid_to(strict, 2, "garde")
    strict.apply(RevealChien())
    strict.apply(Ecart(tuple(chelem_hands()[1])))
    assert "must show it" in strict.can(DeclarePoignee(2, "simple", fifteen[:10]))
    deal.apply(DeclarePoignee(2, "triple", fifteen))
    assert "already shown" in deal.can(DeclarePoignee(2, "simple", fifteen[:10]))
    deal.apply(Play(2, "T21"))
    assert deal.can(DeclarePoignee(0, "simple", ("T02",) * 10)) is not None


def test_poignee_overfull_trimmed_with_the_option():
    hands, chien = chelem_hands()
    deal = TarotDeal(4, dealer=3, options=TarotOptions(poignee_overfull="trim"),
                     hands=hands, chien=chien)
    bid_to(deal, 2, "garde")
    deal.apply(RevealChien())
    deal.apply(Ecart(tuple(chien)))
    deal.apply(DeclarePoignee(2, "simple", tuple(f"T{r:02d}" for r in range(21, 9, -1))))
    assert len(deal.poignees[0].shown) == 10 and deal.poignees[0].shown[0] == "T21"


def test_poignee_thresholds_by_player_count():
    from engine.tarot.tables import POIGNEE_THRESHOLDS
    assert POIGNEE_THRESHOLDS == {3: (13, 15, 18), 4: (10, 13, 15), 5: (8, 10, 13)}


def test_poignee_excuse_stands_in_only_without_another_trump():
    hands = {0: [f"T{r:02d}" for r in range(12, 21)] + ["EX"] + SUITS_NO_KINGS[:8]}
    rest = rest_of_deck(hands[0])
    hands.update({1: rest[:18], 2: rest[18:36], 3: rest[36:54]})
    deal = TarotDeal(4, dealer=3, hands=hands, chien=rest[54:])
    bid_to(deal, 1, "garde_sans")
    shown = tuple(f"T{r:02d}" for r in range(20, 11, -1)) + ("EX",)
    assert deal.can(DeclarePoignee(0, "simple", shown)) is None  # 9 trumps + Excuse = 10
    hands[0] = hands[0][:-1] + ["T01"]  # one more trump: the Excuse may not stand in
    hands[1], hands[2], hands[3] = rest_of_deck(hands[0])[:18], rest_of_deck(hands[0])[18:36], rest_of_deck(hands[0])[36:54]
    deal = TarotDeal(4, dealer=3, hands=hands, chien=rest_of_deck(hands[0])[54:])
    bid_to(deal, 1, "garde_sans")
    assert "no other trump" in deal.can(DeclarePoignee(0, "simple", shown))


# ---------------------------------------------------------- play and refusals
def test_illegal_play_refused_with_the_rule_and_state_untouched():
    deal = chelem_deal(announce=False, poignee=False)
    before = deal.to_record()
    lead = [c for c in deal.hand(0) if c.startswith(("S", "H", "D", "C"))][0]
    deal.apply(Play(0, lead))
    snapshot = deal.to_record(), deal.current_trick
    assert lead == "S07" and "T04" in deal.hand(1)
    assert not any(c.startswith("S") for c in deal.hand(1))
    with pytest.raises(IllegalOperation) as e:
        deal.apply(Play(1, "H09"))  # no spade, but a trump: must trump
    assert e.value.rule == "must_trump"
    assert "playable: T04" in str(e.value)
    with pytest.raises(IllegalOperation) as e:
        deal.apply(Play(2, "T21"))
    assert e.value.rule == "turn"
    with pytest.raises(IllegalOperation) as e:
        deal.apply(Play(1, lead))
    assert e.value.rule == "card_seen"
    assert (deal.to_record(), deal.current_trick) == snapshot
    assert before == snapshot[0]  # records hold finished tricks only


def test_undo_returns_the_operation_and_restores_the_state():
    deal = random_deal(4, 11)
    record = deal.to_record()
    n = len(deal.operations)
    last = deal.undo()
    assert isinstance(last, Play) and len(deal.operations) == n - 1
    assert deal.phase == "play" and deal.to_play == last.seat
    deal.apply(last)
    assert deal.to_record() == record
    while deal.operations:
        deal.undo()
    assert deal.phase == "bidding"
    with pytest.raises(IllegalOperation):
        deal.undo()


def test_tricks_current_trick_and_to_play():
    deal = chelem_deal(announce=False, poignee=False)
    assert deal.trick_number == 1 and deal.to_play == 0
    deal.apply(deal.legal_moves()[0])
    assert deal.to_play == 1 and len(deal.current_trick.cards) == 1
    for _ in range(3):
        deal.apply(deal.legal_moves()[0])
    assert len(deal.tricks) == 1 and deal.tricks[0].winner == deal.to_play
    assert deal.current_trick.cards == ()


def test_no_card_after_the_last_trick():
    deal = random_deal(3, 5)
    assert deal.phase == "done"
    reason = deal.can(Play(0, "T01"))
    assert "over" in reason


def test_live_target_text():
    deal = chelem_deal(announce=True, poignee=False)
    for r in range(21, 12, -1):
        lead_and_follow(deal, f"T{r:02d}")
    live = deal.live_target()
    assert live.contract == "garde" and live.tricks_left == 9
    # T21 and T01 (played by seat 0? no: the Petit is the taker's) -> only T21 won so far
    assert live.oudlers == 1 and live.needed == 51
    assert live.text().startswith("Garde · 1 bout · needs 51 · has ")
    assert live.text().endswith("· 9 tricks left")


def test_deal_construction_errors():
    with pytest.raises(TarotmateError, match="3, 4 or 5"):
        TarotDeal(6)
    with pytest.raises(TarotmateError, match="dealer"):
        TarotDeal(4, dealer=4)
    with pytest.raises(TarotmateError, match="expected 18 cards"):
        TarotDeal(4, hands={0: ["T01"]})
    with pytest.raises(TarotmateError, match="unknown option"):
        TarotDeal(4, options={"no_such_rule": True})


def test_operations_round_trip_through_dicts():
    ops = [PetitSec(1), Bid(2, "garde_sans"), CallCard("hk"), RevealChien(("H01", "H02", "H03")),
           RevealChien(), Ecart(None, ("T05",)), Ecart(("S01", "S02")), AnnounceChelem(),
           DeclarePoignee(3, "simple", ("T21", "T20")), DeclareMisere(2, "tete"), Play(0, "EX")]
    for op in ops:
        assert operation_from_dict(op.to_dict()) == op
    with pytest.raises(OperationError, match="unknown operation"):
        operation_from_dict({"op": "shuffle"})
    with pytest.raises(OperationError, match="unknown card code"):
        Play(0, "H11")
    with pytest.raises(OperationError, match="is not one of"):
        Bid(0, "garde_avec")


def test_misere_variant():
    deal = TarotDeal(4, dealer=3)
    bid_to(deal, 0, "garde_sans")
    assert "off" in deal.can(DeclareMisere(1, "atout"))
    # hands hidden: a misère d'atout followed by a trump is a violation
    deal = TarotDeal(4, dealer=3, options=TarotOptions(misere=True))
    bid_to(deal, 0, "garde_sans")
    deal.apply(DeclareMisere(0, "atout"))
    play_out(deal, ["H01", "H02", "H03", "H04"])   # seat 3 wins with H04
    play_out(deal, ["S05", "T02", "S06", "S07"])   # seat 0 plays T02 at trick 2
    assert [(v.trick, v.seat, v.rule) for v in deal.violations] == [(1, 0, "misere")]
    # hands known: refused at once
    hands, chien = chelem_hands()
    deal = TarotDeal(4, dealer=3, hands=hands, chien=chien, options=TarotOptions(misere=True))
    bid_to(deal, 2, "garde_sans")
    assert "T02" in deal.can(DeclareMisere(0, "atout"))
    assert deal.can(DeclareMisere(2, "tete")) is None


def test_live_target_keeps_an_excuse_played_mid_deal_with_its_owner():
    deal = chelem_deal(announce=True, poignee=False)
    lead_and_follow(deal, "EX")  # the taker leads the Excuse at trick 1 and loses the trick
    live = deal.live_target()
    # the Excuse (4.5, less the half point given) and the écart's six low spades (3)
    assert live.oudlers == 1 and live.has == 4.0 + 3.0 and live.tricks_left == 17


def test_defence_chelem_with_the_excuse_at_the_last_trick():
    # ambiguity A2: the defence took every trick; its Excuse led last wins the trick
    taker = [c for c in CODE if c[0] in "SH" and not c.endswith(("K", "Q", "N", "J"))][:18]
    chien = [c for c in CODE if c[0] == "D" and c[1:].isdigit()][:6]
    seat1 = [f"T{r:02d}" for r in range(5, 22)] + ["EX"]
    rest = [c for c in rest_of_deck(taker, chien, seat1)]
    hands = {0: taker, 1: seat1, 2: rest[:18], 3: rest[18:36]}
    deal = TarotDeal(4, dealer=0, hands=hands, chien=chien)
    bid_to(deal, 0, "prise")
    deal.apply(RevealChien())
    deal.apply(Ecart(tuple(chien)))
    for r in range(21, 4, -1):
        lead_and_follow(deal, f"T{r:02d}")
    lead_and_follow(deal, "EX")
    assert deal.tricks[-1].winner == 1
    r = deal.result()
    assert r.chelem == "defence" and r.attack_points == 3 and r.attack_oudlers == 0
    assert r.unit == -(25 + 53) - 200
    assert r.scores == (3 * r.unit, -r.unit, -r.unit, -r.unit)


def test_deal_shapes_and_multipliers():
    from engine.tarot.tables import CHIEN_SIZE, HAND_SIZE, MULTIPLIER
    assert {n: (HAND_SIZE[n], CHIEN_SIZE[n]) for n in (3, 4, 5)} == {3: (24, 6), 4: (18, 6), 5: (15, 3)}
    assert all(n * HAND_SIZE[n] + CHIEN_SIZE[n] == 78 for n in (3, 4, 5))
    assert MULTIPLIER == {"prise": 1, "garde": 2, "garde_sans": 4, "garde_contre": 6}


def test_opening_excuse_then_called_suit_option():
    # ambiguity A3: allowed by default; the option forbids it like the opening lead itself
    for allowed in (True, False):
        deal = TarotDeal(5, dealer=4, options=TarotOptions(called_suit_after_excuse_lead=allowed))
        bid_to(deal, 0, "garde_sans")
        deal.apply(CallCard("HK"))
        play_out(deal, ["EX", "H05", "H06", "H07", "H08"])   # seat 1 sets hearts, the called suit
        play_out(deal, ["C01", "C02", "C03", "C04", "C05"])  # seat 1 then plays C0x
        rules = [v.rule for v in deal.violations]
        assert rules == ([] if allowed else ["called_suit_lead"])


def test_taker_shows_again_a_trump_shown_from_the_ecart():
    # ambiguity A6 (the rulebook's 4 Kings and 15 trumps case)
    taker = ["SK", "HK", "DK", "CK"] + [f"T{r:02d}" for r in range(2, 16)]
    chien = ["S01", "S02", "S03", "H01", "H02", "T16"]
    rest = rest_of_deck(taker, chien)
    hands = {0: taker, 1: rest[:18], 2: rest[18:36], 3: rest[36:54]}
    shown = tuple(f"T{r:02d}" for r in range(16, 1, -1))  # 15 trumps, T16 from the écart
    for allowed in (True, False):
        deal = TarotDeal(4, dealer=3, hands=hands, chien=chien,
                         options=TarotOptions(poignee_ecart_trump_exception=allowed))
        bid_to(deal, 0, "garde")
        deal.apply(RevealChien())
        deal.apply(Ecart(("S01", "S02", "S03", "H01", "H02", "T16")))
        reason = deal.can(DeclarePoignee(0, "triple", shown))
        assert (reason is None) == allowed, reason

"""Hands hidden: what the cards prove, and violations reported the moment they are proven."""

import pytest

from engine.tarot import (DeclarePoignee, Ecart, IllegalOperation, Play, RevealChien, TarotDeal,
                          TarotOptions, random_deal)
from engine.tarot.record import deal_from_record
from tarot_helpers import bid_to, play_out


def hidden(players=4, dealer=3, taker=0, contract="prise", options=None, chien=None, ecart=None):
    deal = TarotDeal(players, dealer, options)
    bid_to(deal, taker, contract)
    if deal.phase == "calling":
        from engine.tarot import CallCard
        deal.apply(CallCard("CK"))
    if deal.phase == "chien":
        deal.apply(RevealChien(chien))
        deal.apply(Ecart(ecart))
    return deal


def found(deal):
    return [(v.trick, v.seat, v.rule) for v in deal.violations]


def test_revoke_reported_when_the_suit_is_played_later():
    deal = hidden()
    play_out(deal, ["H01", "T05", "H02", "H03"])   # seat 1 trumps on hearts
    assert found(deal) == []
    assert deal.tricks[0].winner == 1
    play_out(deal, ["H04"])                          # ... and now plays a heart
    assert found(deal) == [(1, 1, "follow_suit")]
    assert deal.violations[0].evidence == "trumped on hearts at trick 1 but played H04 at trick 2"


def test_failure_to_overtrump():
    deal = hidden()
    play_out(deal, ["H01", "T12", "T05", "H03"])   # seat 2 plays T05 under T12
    play_out(deal, ["C01", "C02", "T15"])          # seat 1 leads; seat 2 plays C02 (following)
    assert found(deal) == []
    play_out(deal, ["C03"])
    assert deal.tricks[1].winner == 3
    # trick 3: seat 3 leads T09, seat 0 T10, seat 1 T11, seat 2 T18:
    # seat 2 held a trump above T12 at trick 1
    play_out(deal, ["T09", "T10", "T11"])
    assert found(deal) == []
    play_out(deal, ["T18"])
    assert found(deal) == [(1, 2, "must_overtrump")]
    assert "under T12 at trick 1" in deal.violations[0].evidence


def test_discard_while_holding_a_trump():
    deal = hidden()
    play_out(deal, ["H01", "SK", "H02", "H03"])    # seat 1 discards on hearts
    assert deal.tricks[0].winner == 3
    play_out(deal, ["C04", "C05", "T02"])          # seat 3 leads; seat 1 plays T02
    assert found(deal) == [(1, 1, "must_trump")]
    assert deal.violations[0].evidence == "discarded SK on hearts at trick 1 but played T02 at trick 2"


def test_discard_on_a_trump_lead_then_a_trump():
    deal = hidden()
    play_out(deal, ["T05", "C01", "T06", "T07"])   # seat 1 discards on a trump lead
    assert deal.tricks[0].winner == 3
    play_out(deal, ["T08", "T09", "T10"])          # seat 3 leads, seat 0, seat 1 plays T10
    assert found(deal) == [(1, 1, "must_trump")]
    assert "discarded C01 on a trump lead at trick 1" in deal.violations[0].evidence


def test_excuse_proves_nothing():
    deal = hidden()
    play_out(deal, ["H01", "EX", "H02", "H03"])
    play_out(deal, ["H04", "H05", "H06", "H07"])
    assert found(deal) == []


def test_each_illegal_play_reported_once():
    deal = hidden()
    play_out(deal, ["H01", "T05", "H02", "H03"])
    play_out(deal, ["H04", "H05", "H06", "H07"])
    play_out(deal, ["H08", "H09", "H10", "HJ"])    # seat 3 leads... seats rotate
    assert [v.trick for v in deal.violations] == [1]


def test_physically_impossible_plays_are_refused_not_reported():
    deal = hidden(chien=("S01", "S02", "S03", "S04", "S05", "S06"))
    # the chien went to the taker (seat 0): another seat cannot play its cards
    assert deal.can(Play(0, "S01")) is None
    deal.apply(Play(0, "H01"))
    assert "chien" in deal.can(Play(1, "S02"))
    with pytest.raises(IllegalOperation) as e:
        deal.apply(Play(1, "H01"))
    assert e.value.rule == "card_seen"
    with pytest.raises(IllegalOperation) as e:
        deal.apply(Play(2, "H02"))
    assert e.value.rule == "turn"


def test_known_ecart_cards_cannot_be_played():
    deal = hidden(chien=("S01", "S02", "S03", "S04", "S05", "S06"),
                  ecart=("S01", "S02", "S03", "S04", "S05", "H09"))
    assert "écart" in deal.can(Play(0, "H09"))


def test_poignee_with_the_excuse_then_another_trump():
    deal = hidden()
    shown = tuple(f"T{r:02d}" for r in range(21, 12, -1)) + ("EX",)
    deal.apply(DeclarePoignee(0, "simple", shown))
    play_out(deal, ["H01", "H02", "H03", "H04"])
    play_out(deal, ["C01", "T02", "C03", "C04"])    # seat 3 leads; seat 0 plays T02
    assert found(deal) == [(1, 0, "poignee")]


def test_poignee_shown_cards_belong_to_their_owner():
    deal = hidden()
    deal.apply(DeclarePoignee(0, "simple", tuple(f"T{r:02d}" for r in range(21, 11, -1))))
    deal.apply(Play(0, "H01"))
    assert "poignée" in deal.can(Play(1, "T21"))


def test_ecart_trump_when_a_suit_card_could_have_gone():
    deal2 = TarotDeal(4, 3)
    bid_to(deal2, 0, "garde")
    deal2.apply(RevealChien())
    deal2.apply(Ecart(None, ("T05",)))
    assert "écart" in deal2.can(Play(0, "T05"))
    play_out(deal2, ["H01", "H02", "H03", "H04"])
    play_out(deal2, ["C01", "C02", "C03", "C04"])   # seat 3 leads, seat 0 plays C02
    assert found(deal2) == [(1, 0, "ecart")]   # trick numbers count from 1


def test_no_trump_lead_until_broken_variant_in_hidden_mode():
    deal = hidden(options=TarotOptions(no_trump_lead_until_broken=True))
    play_out(deal, ["T05", "T06", "T07", "T08"])   # seat 0 leads a trump before they are broken
    assert found(deal) == []
    play_out(deal, ["C01", "C02", "C03", "C04"])   # seat 3 leads; seat 0 plays C02
    assert found(deal) == [(1, 0, "no_trump_lead")]


def test_five_player_opening_lead_in_the_called_suit():
    deal = hidden(players=5, dealer=4)
    play_out(deal, ["C05", "C06", "C07", "C08", "C09"])  # called CK: seat 0 leads clubs
    play_out(deal, ["H01", "H02", "H03", "H04", "H05"])  # seat 4 leads; seat 0 plays H02
    assert found(deal) == [(1, 0, "called_suit_lead")]


def test_five_player_called_king_itself_may_open():
    deal = hidden(players=5, dealer=4)
    play_out(deal, ["CK", "C06", "C07", "C08", "C09"])
    play_out(deal, ["H01", "H02", "H03", "H04", "H05"])
    assert found(deal) == []


def test_a_legal_random_deal_replayed_hidden_has_no_violation():
    for seed in range(20):
        deal = random_deal(5, seed)
        again = deal_from_record(deal.to_record())
        assert again.violations == ()
        assert again.audit() == []


def play_to_the_end(deal):
    while deal.phase == "play":
        deal.apply(deal.legal_moves()[0])
    return deal


def test_unavoidable_trump_in_an_unseen_ecart_is_no_violation():
    from tarot_helpers import rest_of_deck
    taker = ["SK", "HK", "DK", "CK"] + [f"T{r:02d}" for r in range(2, 16)]
    chien = ["S01", "S02", "S03", "H01", "H02", "T16"]
    rest = rest_of_deck(taker, chien)
    deal = TarotDeal(4, dealer=3, hands={0: taker, 1: rest[:18], 2: rest[18:36], 3: rest[36:54]},
                     chien=chien)
    bid_to(deal, 0, "garde")
    deal.apply(RevealChien())
    deal.apply(Ecart(("S01", "S02", "S03", "H01", "H02", "T16")))
    play_to_the_end(deal)
    rec = deal.to_record()
    rec["ecart"] = None
    again = deal_from_record(rec)
    assert again.violations == ()
    assert again.inferred_ecart() == ("T16", "S01", "S02", "S03", "H01", "H02")
    assert again.result() == deal.result()


def _taker_kings(rec):
    return [(i, j) for i, t in enumerate(rec["tricks"]) for j, c in enumerate(t["cards"])
            if c.endswith("K") and (t["leader"] + j) % rec["players"] == rec["taker"]]


def test_king_never_played_is_in_the_ecart():
    rec = next(r for r in (random_deal(4, s).to_record() for s in range(200))
               if r["contract"] in ("prise", "garde") and _taker_kings(r))
    # the taker "keeps" an écart card and the King it played goes unseen
    i, j = _taker_kings(rec)[0]
    king = rec["tricks"][i]["cards"][j]
    low = [c for c in rec["ecart"] if not c.startswith("T") and c[0] == king[0]] or \
        [c for c in rec["ecart"] if not c.startswith("T")]
    rec["tricks"][i]["cards"][j] = low[0]
    rec["ecart"] = None
    again = deal_from_record(rec)
    assert any(v.rule == "ecart" and v.trick == 1 and king in v.evidence
               for v in again.violations)


def test_proven_facts_per_seat():
    deal = hidden()
    play_out(deal, ["H01", "T12", "T05", "H03"])   # seat 1 trumps hearts; seat 2 under-trumps
    assert deal.proven(1) == ["no hearts since trick 1"]
    assert deal.proven(2) == ["no hearts since trick 1", "no trump above T12 since trick 1"]
    assert deal.proven(3) == []
    play_out(deal, ["C01", "C02", "SK"])           # seat 1 leads; seat 3 discards on clubs
    assert deal.proven(3) == ["no clubs since trick 2", "no trump since trick 2"]


def test_violation_reported_at_once_when_a_shown_card_proves_it():
    deal = hidden()
    deal.apply(DeclarePoignee(1, "simple", tuple(f"T{r:02d}" for r in range(21, 11, -1))))
    play_out(deal, ["H01", "T05"])                  # seat 1 trumps low: legal, nothing to beat
    play_out(deal, ["T06"])                          # seat 2 overtrumps T05
    assert found(deal) == []
    deal2 = hidden()
    deal2.apply(DeclarePoignee(2, "simple", tuple(f"T{r:02d}" for r in range(21, 11, -1))))
    play_out(deal2, ["H01", "T11", "T05"])          # seat 2 plays T05 under T11, holding T12..T21
    assert found(deal2) == [(1, 2, "must_overtrump")]
    assert "while holding T12 (shown in seat 2's poignée)" in deal2.violations[0].evidence
    play_out(deal2, ["H02", "C01", "T12"])          # seat 2 plays T12 later: no second report
    assert len(deal2.violations) == 1


def test_kept_chien_card_proves_a_revoke_at_once_when_the_ecart_is_known():
    deal = hidden(chien=("S01", "S02", "S03", "S04", "S05", "S06"),
                  ecart=("S01", "S02", "S03", "S04", "S05", "H09"))
    deal.apply(Play(0, "C01"))
    play_out(deal, ["C02", "C03", "C04"])           # seat 3 wins; seat 0 holds S06 for sure
    play_out(deal, ["S07", "T02"])                  # seat 0 trumps on spades holding S06
    assert found(deal) == [(2, 0, "follow_suit")]

"""The Trivium state machine on games written by hand."""

import pytest

from engine.errors import TarotmateError
from engine.trivium.game import TriviumGame
from engine.trivium.operations import (
    Deal,
    Declare,
    DrawFromPozo,
    IllegalOperation,
    LayTercia,
    PozoEmpty,
    Steal,
    TakeFromOlla,
    Withdraw,
)
from engine.trivium.options import TriviumOptions

# Seat 0 starts (XX is the highest major) and holds two tercias.
MARTA = "C10 H10 S01 T15 D04 H02 T20 SJ DK"
# Seat 1 holds El Loco and two tercias.
LUIS = "EX T07 H07 S07 C09 C08 C04 HQ SQ"


def two_player_game(deal, options=None):
    game = TriviumGame(["Marta", "Luis"], options)
    game.apply(deal([MARTA, LUIS], pozo_top="D03 S05 S06"))
    return game


def test_two_players_a_steal_by_el_loco_wins_a_trivium(deal):
    game = two_player_game(deal)
    assert game.phase == "play" and game.to_play == 0
    assert game.announcements[0].text == "Marta starts: holds the highest major, 20"
    game.apply(DrawFromPozo(0, "SJ", drawn="D03"))
    assert game.olla == ("SJ",) and game.olla_top == "SJ"
    game.apply(LayTercia(0, ("C10", "H10", "S01")))
    game.apply(LayTercia(0, ("T15", "D04", "H02")))
    assert game.seats[0].valid_tercias == 2
    assert game.seats[0].hand_size == 3 and game.seats[1].hand_size == 9
    assert game.announcements[-1].text == "Marta: tercia 2 of 3, 15 + 4 + 2 = 21"
    game.apply(DrawFromPozo(1, "SQ"))  # ends Marta's turn
    assert game.to_play == 1
    game.apply(LayTercia(1, ("T07", "H07", "S07")))
    game.apply(LayTercia(1, ("C09", "C08", "C04")))
    assert game.loco.location == "hand" and game.loco.seat == 1 and not game.loco.steal_spent
    game.apply(Steal(1, victim=0, group=0))
    assert game.phase == "finished"
    assert game.winner == 1
    assert (game.result.combination, game.result.points) == ("trivium", 63)
    assert game.scores == (0, 63)
    last = game.announcements[-1]
    assert (last.kind, last.seat, last.combination, last.points, last.text) == ("win", 1, "trivium", 63, "Luis: TRIVIUM, 63")
    assert game.announcements[-2].kind == "steal"
    assert game.loco.to_dict() == {"location": "hand", "seat": 0, "steal_spent": True, "thief": 1, "robbed": 0}
    assert game.seats[1].laid[-1].stolen_from == 0
    assert [g.cards for g in game.seats[0].laid] == [("T15", "D04", "H02")]
    assert "EX" in game.state.hands[0].known
    assert "the game is over: Luis won with TRIVIUM, 63" in game.can(DrawFromPozo(0, "T20"))


def test_three_players_a_trivium_completed_by_the_pair(deal):
    game = TriviumGame(["Ana", "Marta", "Luis"])
    game.apply(deal([
        "T21 C10 H10 S01 T15 D04 H02 SK DK",  # Ana: XXI and two tercias
        "T03 S09 C02 HJ SN CQ D06 D07 H03",
        "EX T04 S03 S02 C05 H09 H08 DJ DN",  # Luis: El Loco
    ], pozo_top="C03 C06 D09 D02 S04"))
    assert game.to_play == 0  # XXI
    game.apply(DrawFromPozo(0, "SK"))
    game.apply(LayTercia(0, "C10 H10 S01"))
    game.apply(LayTercia(0, "T15 D04 H02"))
    game.apply(DrawFromPozo(1, "HJ"))
    game.apply(DrawFromPozo(2, "EX"))  # Luis throws El Loco onto the olla
    assert game.loco.location == "olla"
    game.apply(TakeFromOlla(0, "DK", taken="EX"))
    assert game.olla_top == "DK"
    game.apply(LayTercia(0, ("T21", "EX")))
    assert game.winner == 0
    assert game.result.combination == "trivium" and game.result.points == 63
    assert ("T21", "EX") in game.result.groups
    assert game.announcements[-1].text == "Ana: TRIVIUM, 63"
    assert game.seats[0].laid[-1].is_pair


def test_four_players_a_gran_maestre_with_a_court_from_the_olla(deal):
    game = TriviumGame(["Ana", "Marta", "Luis", "Pepe"])
    game.apply(deal([
        "T05 S02 S03 S04 S05 S06 D01 D02 D03",
        "T06 CK H01 H02 H03 H04 H05 H06 D04",
        "T19 SJ SN SQ C10 H10 S01 D05 D06",  # Luis: three courts and a tercia
        "T02 C01 C02 C03 C04 C05 C06 D07 D08",
    ], pozo_top="D09 D10 S07"))
    assert game.to_play == 2
    game.apply(DrawFromPozo(2, "D05"))
    game.apply(LayTercia(2, "D06 D09 T19"))  # 6 + 9 + 19
    assert game.seats[2].flagged[0].reason == "6 + 9 + 19 = 34, not 21"
    assert game.announcements[-1].kind == "not_tercia"
    assert game.can(Withdraw(2, 0)) is None
    game.apply(Withdraw(2, 0))
    assert game.seats[2].laid == ()
    game.apply(DrawFromPozo(3, "D07"))
    game.apply(DrawFromPozo(0, "D01"))
    game.apply(DrawFromPozo(1, "CK"))
    reason = game.can(TakeFromOlla(2, "D06"))
    assert reason is None
    game.apply(TakeFromOlla(2, "D06", taken="CK"))
    assert "not a winning combination" in game.can(Declare(2, "SJ SN SQ CK C10 H10 T19"))
    game.apply(Declare(2, "SJ SN SQ CK C10 H10 S01"))
    assert game.winner == 2 and game.result.points == 200
    assert game.announcements[-1].text == "Luis: GRAN MAESTRE, 200"
    assert game.scores == (0, 0, 200, 0)


def test_out_of_turn_and_before_the_exchange(deal):
    game = two_player_game(deal)
    assert game.can(DrawFromPozo(1, "SQ")) == "not Luis's turn: Marta exchanges next"
    assert game.can(LayTercia(0, "C10 H10 S01")) == (
        "Marta must first exchange a card (from the pozo or the olla), then lay down a tercia"
    )
    assert game.can(TakeFromOlla(0, "SJ")) == "the olla is empty: draw from the pozo"
    game.apply(DrawFromPozo(0, "SJ"))
    assert game.can(DrawFromPozo(0, "DK")) == "Marta has already exchanged a card this turn"
    assert game.can(LayTercia(1, "T07 H07 S07")) == "not Luis's turn: only Marta may lay down a tercia now"
    assert game.can(Steal(1, 0, 0)) is not None
    assert "no seat 5" in game.can(DrawFromPozo(5, "SJ"))


def test_cards_must_be_where_the_player_can_hold_them(deal):
    game = two_player_game(deal)
    assert game.can(DrawFromPozo(0, "EX")) == "Marta cannot hold EX: it is in Luis's hand"
    game.apply(DrawFromPozo(0, "SJ"))
    assert game.can(TakeFromOlla(1, "SJ")) == "Luis must give a card of their own for SJ"
    assert "only the top card" in game.can(TakeFromOlla(1, "SQ", taken="DK"))
    assert game.can(DrawFromPozo(1, "SQ", drawn="C05")) == "the pozo's top card is S05, not C05"
    assert game.can(LayTercia(0, "SJ D03 T20")) == "Marta cannot hold SJ: it is in the olla"


def test_only_a_tercia_can_be_stolen_and_only_once(deal):
    game = TriviumGame(["Ana", "Marta", "Luis"])
    game.apply(deal([
        "T20 C10 H10 S01 D05 D06 D07 D08 D09",
        "EX T03 S09 C02 HJ SN CQ H03 H04",
        "T04 S03 S02 C05 H09 H08 DJ DN C03",
    ], pozo_top="C06 D02 S04 S05"))
    game.apply(DrawFromPozo(0, "D09"))
    game.apply(LayTercia(0, "C10 H10 S01"))
    game.apply(LayTercia(0, "D05 D06 D07"))  # 18: flagged
    game.apply(DrawFromPozo(1, "HJ"))
    assert game.can(Steal(1, 0, 1)) == "only a tercia can be stolen: 5 + 6 + 7 = 18, not 21"
    assert game.can(Steal(1, 1, 0)) == "a player cannot rob themselves"
    assert game.can(Steal(1, 2, 0)) == "Luis has no laid group 0"
    game.apply(Steal(1, 0, 0))
    assert game.loco.to_dict() == {"location": "hand", "seat": 0, "steal_spent": True, "thief": 1, "robbed": 0}
    assert game.winner is None
    game.apply(DrawFromPozo(2, "C03"))
    assert "El Loco has already stolen in this game (Marta robbed Ana)" in game.can(Steal(2, 1, 0))
    game.apply(DrawFromPozo(0, "D08"))
    assert game.can(Steal(0, 1, 0)) == "Ana was robbed: a robbed player can never steal"
    # The robbed player may still use El Loco as a wild card.
    game.apply(Withdraw(0, 0))
    assert game.can(LayTercia(0, ("D05", "D06", "EX"))) is None


def test_a_player_without_el_loco_cannot_steal(deal):
    game = two_player_game(deal)
    game.apply(DrawFromPozo(0, "SJ"))
    game.apply(LayTercia(0, "C10 H10 S01"))
    game.apply(DrawFromPozo(1, "EX"))  # Luis throws El Loco away
    assert game.can(Steal(1, 0, 0)) == "Luis cannot hold EX: it is in the olla"


def test_declarations_are_validated(deal):
    game = TriviumGame(["Ana", "Marta"])
    game.apply(deal([
        "T20 SJ HN DQ CK HJ C10 H10 S01",
        "EX T07 H07 S07 C09 C08 C04 HQ SQ",
    ]))
    game.apply(DrawFromPozo(0, "T20"))
    assert game.can(Declare(0, "C10 H10 S01")) == "a lone tercia wins nothing: lay it down"
    assert game.can(Declare(0, "SJ HJ DQ CK")) == (
        "not a winning combination: sota (SJ) + sota (HJ): a sota twice; a Cuadrivium has one of each court"
    )
    assert game.can(Declare(0, "SJ HN DQ CK HJ")).startswith("not a winning combination: 5 cards")
    assert game.can(Declare(0, "SJ HN DQ CK")) is None
    game.apply(LayTercia(0, "C10 H10 S01"))
    assert game.can(Withdraw(0, 0)) == "a valid tercia stays on the table: laid tercias are not taken back"
    # A Gran Maestre may use one whole laid tercia, not part of it
    assert game.state.hands[0].known == ("T01", "SJ", "HJ", "HN", "DQ", "CK")
    assert game.can(Declare(0, "SJ HN DQ CK C10 H10 T01")) == (
        "a Gran Maestre may use one whole laid-down tercia, not parts of several"
    )
    game.apply(Declare(0, "SJ HN DQ CK C10 H10 S01"))
    assert game.result.combination == "gran_maestre"


def test_a_trivium_is_not_declared(deal):
    game = TriviumGame(["Ana", "Marta"])
    game.apply(deal(["T20 C10 H10 S01 T15 D04 H02 T07 H07", "EX T08 S07 C09 C08 C04 HQ SQ SK"], pozo_top="D07"))
    game.apply(DrawFromPozo(0, "T20", drawn="D07"))
    assert game.can(Declare(0, "C10 H10 S01 T15 D04 H02 T07 H07 D07")) == (
        "a Trivium is not declared: it is won by laying down its third tercia"
    )


@pytest.mark.parametrize("setting, combination", [(False, "cuadrivium"), (True, "gran_cuadrivium")])
def test_decision_loco_in_gran_cuadrivium_in_a_game(deal, setting, combination):
    game = TriviumGame(["Ana", "Marta"], TriviumOptions(loco_in_gran_cuadrivium=setting))
    game.apply(deal(["T20 HJ HN HQ EX C01 C02 C03 C04", "T07 H07 S07 C09 C08 D04 SQ SK S01"]))
    game.apply(DrawFromPozo(0, "C01"))
    game.apply(Declare(0, "HJ HN HQ EX"))
    assert game.result.combination == combination
    assert game.scores[0] == (100 if setting else 50)


@pytest.mark.parametrize("setting, starter", [(False, 1), (True, 0)])
def test_decision_loco_starts(deal, setting, starter):
    # No one holds a major 1-21: El Loco (seat 0) counts only with loco_starts.
    hands = ["EX S01 S02 S03 S04 S05 S06 S07 S08", "H01 H02 H03 H04 H05 H06 H07 H08 H09"]
    game = TriviumGame(["Ana", "Marta"], TriviumOptions(loco_starts=setting))
    game.apply(deal(hands, dealer=0))
    assert game.to_play == starter


def test_highest_major_starts_whatever_the_option(deal):
    for setting in (False, True):
        game = TriviumGame(["Ana", "Marta", "Luis"], TriviumOptions(loco_starts=setting))
        game.apply(deal(["EX S01 S02 S03 S04 S05 S06 S07 S08", "H01 H02 H03 H04 H05 H06 H07 H08 T02",
                         "C01 C02 C03 C04 C05 C06 C07 C08 C09"], dealer=1))
        assert game.to_play == 1


def test_no_major_no_loco_the_dealers_right_starts(deal):
    hands = ["S01 S02 S03 S04 S05 S06 S07 S08 S09", "H01 H02 H03 H04 H05 H06 H07 H08 H09",
             "C01 C02 C03 C04 C05 C06 C07 C08 C09"]
    for dealer in range(3):
        game = TriviumGame(["Ana", "Marta", "Luis"], TriviumOptions(loco_starts=True))
        game.apply(deal(hands, dealer=dealer))
        assert game.to_play == (dealer + 1) % 3


def test_a_wrong_starter_is_refused(deal):
    game = TriviumGame(["Marta", "Luis"])
    reason = game.can(deal([MARTA, LUIS], starter=1))
    assert reason == "Marta starts (holds the highest major, 20), not Luis"


def exhaust_pozo(game):
    """Every seat draws from the pozo, throwing its first card, until it is empty."""
    while game.state.pozo:
        seat = game.next_to_exchange
        game.apply(DrawFromPozo(seat, game.state.hands[seat].known[0]))


def test_decision_pozo_exhausted_reshuffle(deal):
    game = two_player_game(deal)
    exhaust_pozo(game)
    seat = game.next_to_exchange
    assert game.can(DrawFromPozo(seat, game.state.hands[seat].known[0])).startswith("the pozo is empty")
    under = game.olla[:-1]
    top = game.olla_top
    assert "each once" in game.can(PozoEmpty(seat, under[:-1]))
    game.apply(PozoEmpty(seat, tuple(reversed(under))))
    assert game.olla == (top,)
    assert game.state.pozo == tuple(reversed(under))
    assert game.phase == "play" and game.next_to_exchange == seat
    assert game.announcements[-1].kind == "reshuffle"
    game.apply(DrawFromPozo(seat, game.state.hands[seat].known[0], drawn=under[-1]))


def test_decision_pozo_exhausted_draw(deal):
    game = two_player_game(deal, TriviumOptions(pozo_exhausted="draw"))
    exhaust_pozo(game)
    seat = game.next_to_exchange
    assert game.can(PozoEmpty(seat, game.olla[:-1])) == "with pozo_exhausted=draw the game ends: there is no new pozo"
    # The olla may still be taken from instead of drawing.
    assert game.can(TakeFromOlla(seat, game.state.hands[seat].known[0])) is None
    game.apply(PozoEmpty(seat))
    assert game.phase == "finished" and game.winner is None and game.scores == (0, 0)
    assert game.announcements[-1].kind == "no_winner"


def test_pozo_empty_is_refused_while_the_pozo_has_cards(deal):
    game = two_player_game(deal)
    assert game.can(PozoEmpty(0)) == "the pozo still has 60 card(s)"


def test_undo_restores_the_previous_state_and_apply_refusal_changes_nothing(deal):
    game = two_player_game(deal)
    before = game.state
    game.apply(DrawFromPozo(0, "SJ"))
    after = game.state
    with pytest.raises(IllegalOperation):
        game.apply(DrawFromPozo(1, "C10"))
    assert game.state is after and len(game.operations) == 2
    assert game.undo() == DrawFromPozo(0, "SJ")
    assert game.state == before
    game.undo()
    assert game.phase == "deal"
    with pytest.raises(TarotmateError):
        game.undo()


def test_game_needs_two_to_four_players():
    for n in (1, 5):
        with pytest.raises(IllegalOperation, match="2, 3 or 4 players"):
            TriviumGame(n)
    assert TriviumGame(4).players == ("Player 1", "Player 2", "Player 3", "Player 4")


def test_deal_is_checked(deal):
    game = TriviumGame(["Ana", "Marta"])
    bad = Deal(0, (tuple("C10 H10 S01 T15 D04 H02 T20 SJ DK".split()),) * 2)
    assert game.can(bad).startswith("dealt twice")
    assert game.can(Deal(0)) == "the hands are hidden: say which seat starts (the highest major)"
    assert "the cards are not dealt yet" == game.can(DrawFromPozo(0, "C10"))



def test_summary_is_json_ready_and_says_what_the_table_shows(deal):
    import json

    game = two_player_game(deal)
    game.apply(DrawFromPozo(0, "SJ"))
    game.apply(LayTercia(0, "C10 H10 D04"))
    summary = json.loads(json.dumps(game.state.summary()))
    assert summary["phase"] == "play" and summary["to_play"] == 0 and summary["next_to_exchange"] == 1
    assert summary["olla"] == ["SJ"] and summary["olla_top"] == "SJ" and summary["pozo_size"] == 59
    marta = summary["seats"][0]
    assert marta["laid"] == [{"cards": ["C10", "H10", "D04"], "valid": False,
                              "reason": "10 + 10 + 4 = 24, not 21", "stolen_from": None}]
    assert marta["valid_tercias"] == 0 and marta["hand_size"] == 6
    assert summary["loco"] == {"location": "hand", "seat": 1, "steal_spent": False, "thief": None, "robbed": None}
    event = game.announcements[-1].to_dict()
    assert event == {"kind": "not_tercia", "seat": 0, "player": "Marta", "combination": None, "points": None,
                     "cards": ["C10", "H10", "D04"], "text": "Marta: not a tercia: 10 + 10 + 4 = 24, not 21"}

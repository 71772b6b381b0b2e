"""trivium-game/1 records, operations as dicts, matches, hidden hands."""

import json

import pytest

from engine.trivium.bot import random_game
from engine.trivium.game import TriviumGame
from engine.trivium.match import MatchError, TriviumMatch
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
    operation_from_dict,
)
from engine.trivium.options import TriviumOptions
from engine.trivium.record import FORMAT, RecordError, game_from_record, game_to_record, load, save
from engine.errors import TarotmateError

OPERATIONS = [
    Deal(1, (tuple("C10 H10 S01 T15 D04 H02 T20 SJ DK".split()),) * 2, None, 0),
    Deal(0, None, None, 1),
    DrawFromPozo(0, "SJ"),
    DrawFromPozo(0, "sj", drawn="d03"),
    TakeFromOlla(1, "HQ", taken="SJ"),
    LayTercia(0, "C10 H10 S01"),
    LayTercia(0, ("T21", "EX")),
    Withdraw(0, 1),
    Steal(1, 0, 0),
    Declare(1, "HJ SN HQ CK"),
    PozoEmpty(1),
    PozoEmpty(1, ("C01", "C02")),
]


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.kind)
def test_operation_dict_round_trip(op):
    data = op.to_dict()
    assert data["op"] == op.kind
    assert json.loads(json.dumps(data)) == data
    assert operation_from_dict(json.loads(json.dumps(data))) == op


def test_operation_codes_are_normalised():
    assert DrawFromPozo(0, "sj", drawn="d03") == DrawFromPozo(0, "SJ", drawn="D03")
    with pytest.raises(TarotmateError, match="unknown card code"):
        LayTercia(0, "C10 H10 X01")


@pytest.mark.parametrize(
    "data, words",
    [
        ({"op": "jump", "seat": 0}, "unknown Trivium operation 'jump'"),
        ({"op": "steal", "seat": 0, "victim": 1, "group": 0, "loot": 3}, "no field(s) loot"),
        ({"op": "steal", "seat": 0}, "operation 'steal'"),
        ({"seat": 0}, "not a Trivium operation"),
    ],
)
def test_bad_operation_dicts(data, words):
    with pytest.raises(TarotmateError, match=words.replace("(", r"\(").replace(")", r"\)")):
        operation_from_dict(data)


def test_record_contents_and_file_round_trip(tmp_path):
    game = random_game(["Marta", "Luis", "Ana"], seed=5)
    record = game_to_record(game)
    assert record["format"] == FORMAT == "trivium-game/1"
    assert record["players"] == ["Marta", "Luis", "Ana"]
    assert record["options"] == {"loco_in_gran_cuadrivium": False, "pozo_exhausted": "reshuffle", "loco_starts": False}
    assert record["operations"][0]["op"] == "deal"
    assert record["result"]["winner"] == game.winner
    path = tmp_path / "game.json"
    save(game, path)
    again = load(path)
    assert again.state == game.state


def test_unfinished_game_can_be_saved_and_resumed():
    game = random_game(2, seed=11)
    half = TriviumGame.replay(game.players, game.options, game.operations[: len(game.operations) // 2])
    resumed = game_from_record(json.loads(json.dumps(game_to_record(half))))
    for op in game.operations[len(half.operations):]:
        resumed.apply(op)
    assert resumed.state == game.state


def test_record_errors(tmp_path):
    game = random_game(2, seed=3)
    record = game_to_record(game)
    with pytest.raises(RecordError, match="not a trivium-game/1 record"):
        game_from_record({**record, "format": "tarot-deal/1"})
    with pytest.raises(RecordError, match="differs from its replay"):
        game_from_record({**record, "result": {**record["result"], "points": 999}})
    broken = {**record, "operations": record["operations"][:1] + record["operations"][2:]}
    with pytest.raises(RecordError, match="does not replay: operation 2"):
        game_from_record(broken)
    with pytest.raises(RecordError, match="cannot read"):
        load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(RecordError, match="not JSON"):
        load(tmp_path / "bad.json")
    with pytest.raises(TarotmateError, match="unknown Trivium option"):
        game_from_record({**record, "options": {"wild_sota": True}})


def test_options_are_checked():
    with pytest.raises(TarotmateError, match="pozo_exhausted"):
        TriviumOptions(pozo_exhausted="stop")


# --------------------------------------------------------------------------- matches


def play_match(match, seed):
    while not match.is_over:
        dealer = match.next_dealer
        game = random_game(match.players, seed, match.options, dealer=dealer)
        match.add_game(game)
        seed += 1
    return match


def test_match_of_a_number_of_games():
    match = play_match(TriviumMatch(["Marta", "Luis", "Ana"], games=4), seed=100)
    assert len(match.games) == 4
    expected = [sum(g.scores[s] for g in match.games) for s in range(3)]
    assert list(match.totals) == expected
    assert [g.state.dealer for g in match.games] == [0, 1, 2, 0]
    best = max(expected)
    assert match.winner == (expected.index(best) if expected.count(best) == 1 else None)
    with pytest.raises(MatchError, match="the match is over"):
        match.new_game()


def test_match_to_a_target_total():
    match = play_match(TriviumMatch(["Marta", "Luis"], target_total=150), seed=7)
    totals = match.totals
    assert max(totals) >= 150
    before_last = [t - s for t, s in zip(totals, match.games[-1].scores)]
    assert max(before_last) < 150  # it stopped at the first game reaching the total
    assert match.winner == totals.index(max(totals))


def test_match_refuses_a_new_game_while_one_is_played_and_round_trips():
    match = TriviumMatch(["Marta", "Luis"], games=2)
    game = match.new_game()
    assert match.current is game
    with pytest.raises(MatchError, match="not finished"):
        match.new_game()
    with pytest.raises(MatchError, match="a number of games or a target total"):
        TriviumMatch(["Marta", "Luis"])
    played = play_match(TriviumMatch(["Marta", "Luis"], games=3), seed=1)
    again = TriviumMatch.from_dict(json.loads(json.dumps(played.to_dict())))
    assert again.totals == played.totals and again.is_over


# --------------------------------------------------------------------------- hidden hands


def hidden_game():
    game = TriviumGame(["Marta", "Luis"])
    game.apply(Deal(0, starter=0))
    return game


def test_hidden_hands_validate_what_the_table_sees():
    game = hidden_game()
    assert game.state.hands[0].size == 9 and game.state.pozo_size == 60
    assert game.loco.location == "unknown"
    game.apply(DrawFromPozo(0, "C10"))
    assert game.state.hands[0].size == 9 and game.state.hands[0].known == ()
    # C10 is seen in the olla: no one can throw it again or lay it.
    assert game.can(DrawFromPozo(1, "C10")) == "Luis cannot hold C10: it is in the olla"
    game.apply(TakeFromOlla(1, "H05", taken="C10"))
    assert game.state.hands[1].known == ("C10",)
    game.apply(DrawFromPozo(0, "T20"))
    game.apply(LayTercia(0, "T15 D04 H02"))
    assert game.can(DrawFromPozo(1, "D04")) == "Luis cannot hold D04: it is laid in front of Marta"
    game.apply(DrawFromPozo(1, "EX"))
    assert game.loco.location == "olla"
    game.apply(TakeFromOlla(0, "S09", taken="EX"))
    assert game.loco.seat == 0 and game.loco.location == "hand"


def test_hidden_hand_steal_needs_el_loco_unseen_or_in_the_thiefs_hand():
    game = hidden_game()
    game.apply(DrawFromPozo(0, "EX"))  # Marta throws El Loco: everyone sees it
    game.apply(DrawFromPozo(1, "S01"))
    game.apply(LayTercia(1, "C10 H10 S02"))  # 22: flagged
    assert game.seats[1].laid[0].valid is False
    game.apply(Withdraw(1, 0))
    assert set(game.state.hands[1].known) == {"C10", "H10", "S02"}
    assert game.state.hands[1].size == 9
    game.apply(LayTercia(1, "C10 H10 D01"))
    game.apply(DrawFromPozo(0, "S03"))
    assert game.can(Steal(0, 1, 0)) == "Marta cannot hold EX: it is in the olla"


def test_hidden_deal_needs_a_starter_and_a_hand_cannot_give_more_than_it_holds():
    game = TriviumGame(["Marta", "Luis"])
    assert game.can(Deal(0, starter=None)) is not None
    game.apply(Deal(0, starter=1))
    assert game.to_play == 1
    game.apply(DrawFromPozo(1, "C01"))
    # Nine hidden cards: a group of ten cannot come from that hand.
    reason = game.can(LayTercia(1, "C02 C03 C04 C05 C06 C07 C08 C09 C10 T01"))
    assert reason == "Luis cannot hold T01: no hidden card is left in that hand"


def test_hidden_draw_may_be_revealed():
    game = hidden_game()
    game.apply(DrawFromPozo(0, "C01", drawn="T21"))
    assert game.state.hands[0].known == ("T21",) and game.state.hands[0].hidden == 8
    with pytest.raises(IllegalOperation, match="cannot come from the pozo"):
        game.apply(DrawFromPozo(1, "C02", drawn="C01"))

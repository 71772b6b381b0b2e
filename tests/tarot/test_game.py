"""Several deals: dealer rotation, running totals, history, game target; options."""

import pytest

from engine.errors import TarotmateError
from engine.tarot import Bid, OptionError, TarotGame, TarotOptions
from engine.tarot.simulate import _play


def play_random_deal(game, seed):
    """Play a random legal deal on the game's current dealer."""
    deal, _ = _play(game.players, seed, options=game.options, dealer=game.dealer, hidden=False,
                    poignee_rate=0.5, chelem_rate=0.0, revoke_after=None)
    return game.finish_deal(deal)


def test_dealer_rotates_and_totals_run():
    game = TarotGame(4, dealer=2, names=["Ana", "Luis", "Marta", "Pau"])
    summaries = [play_random_deal(game, s) for s in range(6)]
    assert [s.dealer for s in summaries] == [2, 3, 0, 1, 2, 3]
    assert game.dealer == 0
    for seat in range(4):
        assert sum(game.history(seat)) == game.totals[seat]
        assert game.running_totals(seat)[-1] == game.totals[seat]
    assert sum(game.totals) == 0
    assert summaries[-1].totals == game.totals
    assert game.leaders() == [s for s in range(4) if game.totals[s] == max(game.totals)]


def test_everyone_passes_scores_nothing_and_the_deal_passes_on():
    game = TarotGame(3)
    deal = game.new_deal()
    for s in (1, 2, 0):
        deal.apply(Bid(s, "pass"))
    summary = game.finish_deal(deal)
    assert summary.scores == (0, 0, 0) and summary.won is None
    assert game.dealer == 1


def test_unfinished_or_foreign_deal_refused():
    game = TarotGame(4)
    deal = game.new_deal()
    with pytest.raises(TarotmateError, match="not finished"):
        game.finish_deal(deal)
    other = TarotGame(4, dealer=1).new_deal()
    with pytest.raises(TarotmateError, match="current deal"):
        game.finish_deal(other)


def test_game_target_ends_the_game():
    game = TarotGame(4, options={"game_target": 100})
    seed = 0
    while not game.is_over():
        play_random_deal(game, seed)
        seed += 1
        assert seed < 200
    assert max(game.totals) >= 100
    with pytest.raises(TarotmateError, match="over"):
        game.new_deal()


def test_game_from_records_gives_the_same_totals():
    game = TarotGame(5, dealer=1)
    for s in range(4):
        play_random_deal(game, s)
    again = TarotGame.from_records([d.record for d in game.deals])
    assert again.totals == game.totals and again.dealer == game.dealer


def test_options_defaults_are_fft_and_round_trip():
    o = TarotOptions()
    assert not o.no_trump_lead_until_broken and o.game_target is None and not o.misere
    assert o.defence_chelem_bonus and o.called_suit_after_excuse_lead
    assert o.to_dict() == {}
    changed = TarotOptions(misere=True, game_target=1000, poignee_overfull="trim")
    assert TarotOptions.from_dict(changed.to_dict()) == changed
    assert set(TarotOptions.names()) == set(o.to_dict(all_fields=True))


@pytest.mark.parametrize("data,message", [
    ({"no_trump_lead": True}, "unknown option 'no_trump_lead'; known options:"),
    ({"misere": "yes"}, "option misere: expected true or false"),
    ({"game_target": -5}, "game_target"),
    ({"misere_bonus": 1.5}, "expected a whole number"),
    ({"poignee_overfull": "keep"}, "poignee_overfull"),
])
def test_options_errors_are_clear(data, message):
    with pytest.raises(OptionError, match=message):
        TarotOptions.from_dict(data)

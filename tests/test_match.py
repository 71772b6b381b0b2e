"""engine.match.Match and the game contract both games keep (engine.contract)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.contract import IllegalOperation, Refusal
from engine.match import Match, MatchError

deal_scores = st.integers(2, 5).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.lists(st.integers(-300, 300), min_size=n, max_size=n), max_size=12)))


@given(deal_scores, st.integers(0, 4))
def test_totals_are_the_sums_and_the_dealer_moves_one_seat_per_deal(case, first):
    players, deals = case
    first %= players
    match = Match(players, first_dealer=first, scores=deals)
    assert match.totals == tuple(sum(d[s] for d in deals) for s in range(players))
    assert match.dealer == (first + len(deals)) % players
    assert match.deals == len(deals) and not match.is_over() and match.winner is None


@given(deal_scores, st.integers(1, 400))
def test_a_target_ends_the_match_with_the_single_leader_as_winner(case, target):
    players, deals = case
    match = Match(players, target=target)
    for deal in deals:
        if match.is_over():
            with pytest.raises(MatchError, match="over"):
                match.add(deal)
            break
        match.add(deal)
    over = bool(match.deals) and max(match.totals) >= target
    assert match.is_over() == over
    if over:
        leaders = [s for s, t in enumerate(match.totals) if t == max(match.totals)]
        assert match.winner == (leaders[0] if len(leaders) == 1 else None)


def test_a_match_of_agreed_length_ends_after_that_many_deals():
    match = Match(3, length=2)
    match.add((10, -5, -5))
    assert not match.is_over()
    match.add((0, 0, 0))
    assert match.is_over() and match.winner == 0


@pytest.mark.parametrize("bad", [dict(players=1), dict(players=3, first_dealer=3), dict(players=3, target=0),
                                 dict(players=3, length=-1)])
def test_a_match_refuses_what_makes_no_sense(bad):
    with pytest.raises(MatchError):
        Match(**bad)


def test_scores_of_the_wrong_size_are_refused():
    with pytest.raises(MatchError, match="3 players"):
        Match(3).add((1, 2))


def test_both_games_keep_one_contract_a_refusal_names_its_rule():
    from engine.tarot import Bid, TarotDeal
    from engine.trivium import DrawFromPozo, TriviumGame

    deal = TarotDeal(4, dealer=0)
    refusal = deal.can(Bid(3, "prise"))
    assert isinstance(refusal, Refusal) and refusal.rule == "turn" and "turn" in refusal.reason
    game = TriviumGame(["Ana", "Luis"])
    refusal = game.can(DrawFromPozo(0, "SJ"))
    assert isinstance(refusal, Refusal) and refusal.rule == "phase" and refusal == "the cards are not dealt yet"
    for state in (deal, game):
        assert state.operations == () and not state.is_over() and set(state.scores) == {0}
        with pytest.raises(IllegalOperation, match="nothing to undo") as caught:
            state.undo()
        assert caught.value.rule == "undo"
    assert deal.phase == deal.Phase.BIDDING and game.phase == game.Phase.DEAL


def test_undo_replays_to_the_state_before_the_last_operation():
    from engine.tarot import random_deal
    from engine.trivium import random_game

    for played in (random_deal(4, 3), random_game(3, 3)):
        ops = played.operations
        last = played.undo()
        assert last == ops[-1] and played.operations == ops[:-1] and not played.is_over()
        played.apply(last)
        assert played.is_over() and played.operations == ops

"""Properties over random games played by the bots."""

from collections import Counter

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import CODES
from engine.trivium.bot import random_game, table_view
from engine.trivium.game import TriviumGame
from engine.trivium.operations import IllegalOperation
from engine.trivium.operations import Declare, DrawFromPozo, LayTercia, Steal, TakeFromOlla, Withdraw
from engine.trivium.options import TriviumOptions
from engine.trivium.record import dumps, loads

games = st.builds(
    lambda n, seed, draw, loco: random_game(
        n, seed, TriviumOptions(pozo_exhausted="draw" if draw else "reshuffle", loco_in_gran_cuadrivium=loco)
    ),
    st.integers(2, 4),
    st.integers(0, 10**6),
    st.booleans(),
    st.booleans(),
)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def states_of(game: TriviumGame):
    """Every state of ``game``, from the deal on."""
    replay = TriviumGame(game.players, game.options)
    for op in game.operations:
        replay.apply(op)
        yield replay.state, replay


def assert_conserved(state):
    """Each of the 78 cards is in exactly one place; unknown slots match unseen cards."""
    places = Counter()
    for hand in state.hands:
        places.update(hand.known)
    places.update(c for c in state.pozo if c is not None)
    places.update(state.olla)
    places.update(c for groups in state.laid for g in groups for c in g.cards)
    assert all(count == 1 for count in places.values()), [c for c, k in places.items() if k > 1]
    unknown_slots = sum(h.hidden for h in state.hands) + sum(1 for c in state.pozo if c is None)
    assert len(places) + unknown_slots == len(CODES)
    assert set(places) | state.unseen == set(CODES)
    assert len(state.unseen) == unknown_slots


@SETTINGS
@given(games)
def test_cards_are_conserved_in_every_state(game):
    assert game.phase == "finished"
    for state, _ in states_of(game):
        assert_conserved(state)
        assert not state.unseen  # a known deal: every card is placed


@SETTINGS
@given(games)
def test_the_table_view_of_a_game_replays_with_hidden_hands(game):
    hidden = TriviumGame.replay(game.players, game.options, table_view(game))
    assert hidden.winner == game.winner
    assert hidden.result == game.result
    assert hidden.olla == game.olla
    assert [s.laid for s in hidden.seats] == [s.laid for s in game.seats]
    assert hidden.loco.steal_spent == game.loco.steal_spent
    for state, _ in states_of(hidden):
        assert_conserved(state)
        assert [h.size for h in state.hands]  # sizes known even when the cards are not


def wrong_seat_operations(state):
    """For each seat not allowed to act now, an operation it might try."""
    for seat in range(state.n):
        hand = state.hands[seat].known
        if seat != state.next_to_exchange and hand:
            yield DrawFromPozo(seat, hand[0])
            yield TakeFromOlla(seat, hand[0])
        if seat != state.to_play and len(hand) >= 3:
            yield LayTercia(seat, hand[:3])
            yield Declare(seat, hand[:4])
        if seat != state.to_play:
            other = (seat + 1) % state.n
            yield Steal(seat, other, 0)
            yield Withdraw(seat, 0)


@SETTINGS
@given(games)
def test_no_operation_is_accepted_out_of_turn(game):
    for state, replay in states_of(game):
        for op in wrong_seat_operations(state):
            before = replay.state
            reason = replay.can(op)
            assert reason is not None, op
            with pytest.raises(IllegalOperation):
                replay.apply(op)
            assert replay.state is before
            if state.phase == "play":
                assert "turn" in reason or "already exchanged" in reason, reason


@SETTINGS
@given(games, st.data())
def test_undo_restores_the_exact_previous_state(game, data):
    k = data.draw(st.integers(0, len(game.operations) - 1))
    replay = TriviumGame.replay(game.players, game.options, game.operations[:k])
    before = replay.state
    replay.apply(game.operations[k])
    replay.undo()
    assert replay.state == before
    assert replay.operations == game.operations[:k]


@SETTINGS
@given(games)
def test_record_round_trip_replays_identically(game):
    again = loads(dumps(game))
    assert again.operations == game.operations
    assert again.state == game.state
    assert again.announcements == game.announcements


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 4), st.integers(0, 10**6))
def test_random_game_is_deterministic_for_a_seed(n, seed):
    assert random_game(n, seed).operations == random_game(n, seed).operations


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 4), st.randoms(use_true_random=False))
def test_cards_are_conserved_through_a_reshuffle(n, rnd):
    """Nobody lays anything: the pozo runs out, the olla is reshuffled, play goes on."""
    from engine.trivium.bot import deal_order
    from engine.trivium.operations import Deal, PozoEmpty

    order = deal_order(rnd.randrange(1000))
    game = TriviumGame(n)
    game.apply(Deal(0, tuple(tuple(order[9 * s: 9 * s + 9]) for s in range(n)), tuple(order[9 * n:])))
    reshuffles = 0
    while reshuffles < 2:
        seat = game.next_to_exchange
        if not game.state.pozo:
            under = list(game.olla[:-1])
            rnd.shuffle(under)
            game.apply(PozoEmpty(seat, tuple(under)))
            reshuffles += 1
            continue
        game.apply(DrawFromPozo(seat, rnd.choice(game.state.hands[seat].known)))
    for state, _ in states_of(game):
        assert_conserved(state)
    hidden = TriviumGame.replay(game.players, game.options, table_view(game))
    assert hidden.olla == game.olla
    for state, _ in states_of(hidden):
        assert_conserved(state)

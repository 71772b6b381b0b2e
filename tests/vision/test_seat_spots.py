"""Where each seat lays its trick cards, learned from the cards the order of play proved
(``vision.seat_spots.SeatSpots``): a card lies on the side of the seat whose spot is clearly
nearest, whatever the zones' directions say."""

import math

import numpy as np
from hypothesis import given, settings, strategies as st

from vision.seat_spots import UNKNOWN, SeatSpots, card_centre


def card(x, y, angle=0.0, w=40.0, h=72.0):
    """The four corners of a w x h card centred on (x, y), turned ``angle`` degrees."""
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    half = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    return [[x + dx * c - dy * s, y + dx * s + dy * c] for dx, dy in half]


# five seats whose cards land round (300, 200), 25 px off it, 72 degrees apart (seat 0 below)
SPOTS = {seat: (300 + 25 * math.sin(math.radians(72 * seat)), 200 + 25 * math.cos(math.radians(72 * seat)))
         for seat in range(5)}


def learned(seats=5, per_seat=3, jitter=0.0, seed=0):
    rng = np.random.default_rng(seed)
    spots = SeatSpots(seats)
    for _ in range(per_seat):
        for seat in range(seats):
            x, y = SPOTS[seat]
            spots.learn(seat, card(x + rng.normal(0, jitter), y + rng.normal(0, jitter), rng.uniform(-14, 14)))
    return spots


def test_nothing_is_known_until_every_seat_has_laid_a_card():
    spots = SeatSpots(5)
    for seat in range(4):
        spots.learn(seat, card(*SPOTS[seat]))
        assert spots.side(card(*SPOTS[seat])) == UNKNOWN
    spots.learn(4, card(*SPOTS[4]))
    assert spots.side(card(*SPOTS[4])) == 4


def test_a_card_at_a_seats_spot_is_that_seats_and_one_between_two_spots_nobodys():
    spots = learned(jitter=2.0)
    for seat, (x, y) in SPOTS.items():
        assert spots.side(card(x, y, 10.0)) == seat
        nx, ny = SPOTS[(seat + 1) % 5]
        assert spots.side(card((x + nx) / 2, (y + ny) / 2)) is None


def test_the_spots_follow_the_table_not_the_zones():
    """The whole table's cards land 30 px right of where they did: after a few tricks the
    spots are there, and a card is its seat's again."""
    spots = learned()
    moved = {seat: (x + 30, y) for seat, (x, y) in SPOTS.items()}
    for _ in range(SeatSpots(5).kept):
        for seat, (x, y) in moved.items():
            spots.learn(seat, card(x, y))
    assert all(spots.side(card(x, y)) == seat for seat, (x, y) in moved.items())


def test_one_card_laid_astray_does_not_move_a_seats_spot():
    spots = learned(per_seat=4)
    spots.learn(2, card(*SPOTS[0]))  # a card taken for seat 2's that lay at seat 0's spot
    assert spots.side(card(*SPOTS[2])) == 2 and spots.side(card(*SPOTS[0])) == 0


def test_a_card_with_corners_that_are_not_numbers_is_not_learned():
    spots = learned()
    before = spots.cards(1)
    spots.learn(1, [[float("nan"), 0.0]] * 4)
    assert spots.cards(1) == before
    spots.forget()
    assert spots.side(card(*SPOTS[0])) == UNKNOWN


@settings(max_examples=100, deadline=None)
@given(seat=st.integers(0, 4), share=st.floats(0.0, 0.5), sign=st.sampled_from([-1, 1]))
def test_a_clear_side_is_the_nearest_spots_seat(seat, share, sign):
    """A card ``share`` of the way from its seat's spot to a neighbour's: that seat's while it
    lies nearer by 0.3 of the two spots' distance (up to 0.35 of the way), then nobody's; never
    the neighbour's."""
    spots = learned(jitter=0.0)
    (x, y), (nx, ny) = SPOTS[seat], SPOTS[(seat + sign) % 5]
    side = spots.side(card(x + (nx - x) * share, y + (ny - y) * share))
    if share < 0.34:
        assert side == seat
    elif share > 0.36:
        assert side is None


def test_the_centre_is_the_corners_mean():
    assert np.allclose(card_centre(card(10.0, 20.0, 33.0)), (10.0, 20.0))

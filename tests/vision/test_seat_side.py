"""Which player's side of the middle a card lies on (``Zones.seat_toward``): players lay a
trick's card in front of themselves, and the simulated table lays them so."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vision.simulator.layout import TableLayout
from vision.zones import MIDDLE, Zones, default_zones, rect_zone


def card_at(layout, x, y, angle):
    return layout.corners((x, y, angle))


def played_card(layout, seat, offset, turn_deg=0.0, angle=0.0):
    """A card ``offset`` card lengths from the middle's centre towards ``seat``, the direction
    turned by ``turn_deg``."""
    tx, ty = layout.seat(seat).toward
    a = math.radians(turn_deg)
    dx, dy = tx * math.cos(a) - ty * math.sin(a), tx * math.sin(a) + ty * math.cos(a)
    cx, cy = layout.centre
    return card_at(layout, cx + dx * offset * layout.card_h, cy + dy * offset * layout.card_h,
                   layout.seat(seat).angle + angle)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_card_laid_towards_a_seat_lies_on_that_seats_side(players):
    layout = TableLayout(players)
    for seat in range(1, players + 1):
        for offset in (0.26, 0.36, 0.52):
            quad = played_card(layout, seat, offset)
            assert layout.zones.seat_toward(quad, MIDDLE, *layout.size) == seat, (seat, offset)


@settings(max_examples=150, deadline=None)
@given(players=st.sampled_from([3, 4, 5]), seat=st.integers(1, 5), offset=st.floats(0.2, 0.6),
       turn=st.floats(-12, 12), angle=st.floats(-14, 14))
def test_a_clear_side_is_never_another_seats(players, seat, offset, turn, angle):
    """Within 12 degrees of a seat's direction (a hard table's scatter is about 10), turned
    either way on the table, the answer is that seat."""
    seat = min(seat, players)
    layout = TableLayout(players)
    quad = played_card(layout, seat, offset, turn, angle)
    assert layout.zones.seat_toward(quad, MIDDLE, *layout.size) == seat


@settings(max_examples=150, deadline=None)
@given(x=st.floats(0.26, 0.74), y=st.floats(0.27, 0.73), angle=st.floats(-180, 180))
def test_the_side_is_the_nearest_seat_or_nobody(x, y, angle):
    layout = TableLayout(4)
    w, h = layout.size
    quad = card_at(layout, x * w, y * h, angle)
    seat = layout.zones.seat_toward(quad, MIDDLE, w, h)
    if seat is not None:
        d = np.array([x * w - w / 2, y * h - h / 2])
        toward = [np.dot(d, layout.seat(s).toward) / np.linalg.norm(d) for s in range(1, 5)]
        assert seat == 1 + int(np.argmax(toward))


def test_near_the_centre_or_between_two_seats_a_card_lies_on_nobodys_side():
    layout = TableLayout(4)
    cx, cy = layout.centre
    assert layout.zones.seat_toward(card_at(layout, cx + 5, cy - 3, 30), MIDDLE, *layout.size) is None
    between = played_card(layout, 1, 0.4, turn_deg=45)  # halfway from seat 1 to the next
    assert layout.zones.seat_toward(between, MIDDLE, *layout.size) is None


def test_no_side_in_a_seats_own_zone_an_unknown_zone_or_without_seat_zones():
    layout = TableLayout(4)
    quad = played_card(layout, 2, 0.4)
    assert layout.zones.seat_toward(quad, "seat2", *layout.size) is None
    assert layout.zones.seat_toward(quad, "nowhere", *layout.size) is None
    assert default_zones().seat_toward(quad, MIDDLE, *layout.size) is None
    one_seat = Zones([rect_zone(MIDDLE, 0.25, 0.25, 0.75, 0.75), rect_zone("seat1", 0.2, 0.75, 0.8, 1.0, 1)])
    assert one_seat.seat_toward(quad, MIDDLE, *layout.size) is None


def seat_angle(layout, seat):
    tx, ty = layout.seat(seat).toward
    return math.degrees(math.atan2(ty, tx))


@pytest.mark.parametrize("players", [4, 5])
def test_the_bar_follows_the_seats_spacing(players):
    """At a table of five the seats are about 60 degrees apart: a card turned 17 degrees off
    its seat's direction towards the next seat (a hard table's scatter, seen) still lies on its
    seat's side; halfway between the two it lies on nobody's."""
    layout = TableLayout(players)
    for seat in range(1, players + 1):
        nxt = seat % players + 1
        apart = (seat_angle(layout, nxt) - seat_angle(layout, seat) + 180) % 360 - 180
        turn = math.copysign(min(17.0, 0.3 * abs(apart)), apart)
        assert layout.zones.seat_toward(played_card(layout, seat, 0.3, turn), MIDDLE, *layout.size) == seat
        halfway = played_card(layout, seat, 0.4, apart / 2)
        assert layout.zones.seat_toward(halfway, MIDDLE, *layout.size) is None, (seat, apart)


@settings(max_examples=150, deadline=None)
@given(seat=st.integers(1, 5), share=st.floats(0.0, 0.35), offset=st.floats(0.2, 0.6), sign=st.sampled_from([-1, 1]))
def test_within_two_fifths_of_the_way_to_a_neighbour_the_side_is_the_seats(seat, share, offset, sign):
    """A card turned from its seat towards a neighbour by less than two fifths of the angle
    between them (the bar: one fifth of it nearer) lies on its seat's side."""
    layout = TableLayout(5)
    nxt = (seat - 1 + sign) % 5 + 1
    apart = (seat_angle(layout, nxt) - seat_angle(layout, seat) + 180) % 360 - 180
    quad = played_card(layout, seat, offset, share * apart)
    assert layout.zones.seat_toward(quad, MIDDLE, *layout.size) == seat

"""Which quads the tracker associates once a card's size is known: rows cut, several cards and strips left out."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.association import split_rows
from vision.card_geometry import card_quad
from vision.tracker_settings import TrackerSettings

SHAPE = (60.0, 108.0)  # the named cards' (short, long) sides


def quad(scale: float, x: float = 300.0, angle: float = 0.3) -> np.ndarray:
    """A card-shaped quad ``scale`` times a named card's area."""
    return card_quad(np.array([x, 200.0]), SHAPE[1] * np.sqrt(scale), angle, SHAPE[1] / SHAPE[0])


def test_a_strip_of_a_card_is_left_out_only_when_min_area_is_set():
    card, strip, spanning = quad(1.0), quad(0.35, x=500), quad(1.8, x=700, angle=1.2)
    kept, pieces = split_rows([card, strip, spanning], SHAPE, TrackerSettings())
    assert len(kept) == 2 and pieces == []  # off: the strip is kept, the quad across several cards is not
    kept, _ = split_rows([card, strip, spanning], SHAPE, TrackerSettings(min_area=0.55))
    assert len(kept) == 1 and np.allclose(kept[0], card)
    kept, _ = split_rows([strip], None, TrackerSettings(min_area=0.55))
    assert len(kept) == 1  # before any card is named there is no size to compare with


@settings(max_examples=60, deadline=None)
@given(scale=st.floats(0.05, 1.65), bar=st.floats(0.3, 0.9))  # larger: rows, cut into cards
def test_a_quad_is_kept_exactly_between_min_area_and_max_area(scale, bar):
    q = quad(scale, angle=0.2)
    kept, _ = split_rows([q], SHAPE, TrackerSettings(min_area=bar))
    area = scale  # in named cards' areas (card_quad keeps the card's proportions)
    if bar * 1.001 < area < 1.5 * 0.999:
        assert len(kept) == 1
    elif area < bar * 0.999 or area > 1.5 * 1.001:
        assert kept == []


def row(cards: int, scale: float, x: float = 400.0) -> np.ndarray:
    """Three (or ``cards``) cards side by side at the seat slots' pitch (1.12 widths), each
    ``scale`` times a named card's sides, found as one quad."""
    short, long = SHAPE[0] * scale, SHAPE[1] * scale
    width = short * (cards + 0.12 * (cards - 1))
    return card_quad(np.array([x, 300.0]), width, 0.05, width / long)


def test_a_row_nearer_a_tilted_camera_is_cut_into_cards_of_its_own_height():
    """Under a tilted camera a tercia laid at the near seat looks a fifth larger than the cards
    named elsewhere: it is still a row, cut into its three cards (not several cards left out);
    two such cards (or two overlapping and a hand) are not taken for a row."""
    for scale, width in ((1.0, SHAPE[0]), (1.2, 1.2 * SHAPE[0])):
        kept, pieces = split_rows([row(3, scale)], SHAPE, TrackerSettings())
        assert len(pieces) == 3 and len(kept) == 3, scale
        widths = [min(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[2] - p[1])) for p in pieces]
        assert np.allclose(widths, width, rtol=0.02), scale
    for quads in ([row(2, 1.2)], [row(3, 1.45)]):
        assert split_rows(quads, SHAPE, TrackerSettings()) == ([], [])  # several cards: left out

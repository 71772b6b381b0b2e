"""The card finder's corner error in the card's own frame (``vision.training.corner_errors``):
measured from two quads, applied back to a quad, the same whatever the card's angle."""

import numpy as np
from hypothesis import given, settings, strategies as st

from vision.quad_fit import order_quad
from vision.quad_error import apply_error, card_frame_error
from vision.training.corner_errors import summary


def card(cx, cy, length, angle):
    w, h = length / 1.8, length
    pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    c, s = np.cos(angle), np.sin(angle)
    return (pts @ np.array([[c, s], [-s, c]]) + [cx, cy]).astype(np.float32)


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 2 * np.pi), st.floats(90, 260),
       st.lists(st.floats(-0.15, 0.15), min_size=8, max_size=8))
def test_an_error_applied_is_the_error_measured(angle, length, values):
    truth = order_quad(card(640, 360, length, angle))
    error = np.array(values).reshape(4, 2)
    found = apply_error(truth, error)
    assert np.allclose(card_frame_error(found, truth), error, atol=2e-3)


@settings(max_examples=40, deadline=None)
@given(st.floats(0, 2 * np.pi), st.floats(0, 2 * np.pi))
def test_the_error_is_in_the_cards_frame_whatever_its_angle(a, b):
    # the same misplacement (the quad pushed along the card's long side) reads the same at any angle
    for angle in (a, b):
        truth = order_quad(card(500, 300, 180, angle))
        long_axis = (truth[3] - truth[0]) / np.linalg.norm(truth[3] - truth[0])
        width = np.linalg.norm(truth[1] - truth[0])
        found = truth + 0.1 * width * long_axis
        e = card_frame_error(found, truth)
        assert np.allclose(e[:, 1], 0.1, atol=1e-3) and np.allclose(e[:, 0], 0.0, atol=1e-3)


def test_a_quad_found_upside_down_is_no_error_and_summary_counts_by_condition():
    truth = card(300, 300, 200, 0.3)
    assert np.abs(card_frame_error(np.roll(truth, 2, axis=0), truth)).max() < 1e-4
    errors = np.zeros((3, 4, 2))
    errors[2] += 0.2
    rows = summary(errors, [["clean"], ["dim"], ["dim", "glare"]])
    by = {r[0]: r for r in rows}
    assert by["all"][1] == 3 and by["dim"][1] == 2 and by["glare"][1] == 1
    assert by["glare"][4] == 100.0 and by["clean"][4] == 0.0  # off by more than 10 % of a width

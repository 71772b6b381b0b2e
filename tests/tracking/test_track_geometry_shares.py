"""How much of a quad lies on a pile of quads (vision.track_geometry): on their union, on each, on the most."""

from hypothesis import given, settings, strategies as st

from vision.track_geometry import pile_shares, shares_on_each


def rect(x, y, w, h):
    return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]


def test_a_quad_half_on_one_card_and_wholly_on_another():
    q = rect(0, 0, 40, 80)
    union, each = shares_on_each(q, [rect(20, 0, 40, 80), rect(-10, -10, 60, 100), rect(100, 100, 10, 10)])
    assert abs(each[0] - 0.5) < 0.05 and abs(each[1] - 1.0) < 0.02 and each[2] == 0.0
    assert abs(union - 1.0) < 0.02
    assert shares_on_each(q, []) == (0.0, [])


rects = st.builds(rect, st.integers(0, 60), st.integers(0, 60), st.integers(5, 50), st.integers(5, 50))


@settings(max_examples=60, deadline=None)
@given(rects, st.lists(rects, max_size=5), st.sampled_from([0.25, 1.0]))
def test_the_most_is_the_largest_of_each_and_never_above_the_union(q, pile, scale):
    union, each = shares_on_each(q, pile, scale)
    assert len(each) == len(pile)
    assert pile_shares(q, pile, scale) == (union, max(each, default=0.0))
    assert all(0.0 <= e <= union + 1e-9 <= 1.0 + 1e-9 for e in each)

"""Localisation on synthetic tables made of the built-in deck (no ../shared needed)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.localise import Localiser, find_cards, localiser, order_quad
from vision.locator import LOCATOR_FILE, models_dir
from vision.warp import CROP_SIZE, warp_card

from .scenes import match, place, table

@pytest.fixture(scope="module", params=["network", "classic"])
def finder(request):
    """Each behaviour holds for both card finders: the network (the default) and the classic one."""
    if request.param == "network" and not (models_dir() / LOCATOR_FILE).is_file():
        pytest.skip("models/locator.onnx not built")
    return localiser(request.param)


TOLERANCE = 0.06  # of the card's long side (15 px for a 250 px card)

TABLES = {
    "green felt": (40, 110, 30),
    "dark wood": (30, 55, 90),
    "blue cloth": (140, 60, 20),
    "red cloth": (40, 30, 150),
    "grey": (110, 110, 110),
}


def scattered(colour, angles, seed=0):
    canvas = table(colour, seed=seed)
    centres = [(250, 200), (640, 200), (1030, 200), (250, 520), (640, 520), (1030, 520)]
    codes = ["T21", "EX", "H07", "SK", "D01", "C10"]
    truths = [place(canvas, c, xy, a) for c, xy, a in zip(codes, centres, angles)]
    return canvas, truths


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_card_found_on_each_table_colour(name, finder):
    canvas, truths = scattered(TABLES[name], [0, 15, 35, 90, 120, 170])
    found = finder(canvas)
    errors = [match(found, t) for t in truths]
    assert max(errors) < TOLERANCE, errors
    assert len(found) == len(truths)


# Derandomised: each finder misses the bound in about one scene in 75 at random angles
# (benchmarks/bench_corners.py; test_known_miss_of_the_network_finder), which a random
# draw would turn into a test failing now and then for no change.
@settings(max_examples=4, deadline=None, derandomize=True)
@given(st.lists(st.floats(0, 360), min_size=6, max_size=6), st.integers(0, 1000))
def test_any_rotation(finder, angles, seed):
    canvas, truths = scattered((50, 90, 40), angles, seed)
    found = finder(canvas)
    assert max(match(found, t) for t in truths) < TOLERANCE


def test_known_miss_of_the_network_finder():
    """The worst miss of ``benchmarks/bench_corners.py`` (150 scenes, 900 cards) with the locator's
    first cycle: the king of spades at 191.3 degrees, its rough quad 7 % short (7.3 % of the long
    side). The third cycle finds it within the bound; kept so that it stays so."""
    if not (models_dir() / LOCATOR_FILE).is_file():
        pytest.skip("models/locator.onnx not built")
    canvas, truths = scattered((50, 90, 40), [162.5, 18.3, 6.8, 191.3, 88.0, 95.0], 467)
    assert match(localiser("network")(canvas), truths[3]) < TOLERANCE


def test_quads_are_clockwise_short_edge_first(finder):
    canvas, truths = scattered((40, 110, 30), [10, 80, 135, 200, 260, 330])
    for q in finder(canvas):
        assert q.shape == (4, 2) and q.dtype == np.float32
        edges = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
        assert edges[0] < edges[1] and edges[2] < edges[3]
        x, y = q[:, 0], q[:, 1]
        assert np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) > 0  # clockwise on screen (y down)


def test_empty_tables_give_nothing(finder):
    for colour in TABLES.values():
        assert finder(table(colour)) == []


def test_a_trick_of_partly_overlapping_cards(finder):
    canvas = table((40, 100, 35))
    # four cards played towards the centre, each covering a corner of the previous one
    truths = [
        place(canvas, "H07", (540, 300), 0),
        place(canvas, "S09", (700, 280), 10),
        place(canvas, "T05", (720, 450), -20),
        place(canvas, "DK", (560, 470), 5),
    ]
    found = finder(canvas)
    errors = [match(found, t) for t in truths]
    assert max(errors) < 0.08, errors


def test_two_cards_side_by_side_touching(finder):
    canvas = table((30, 55, 90))
    a = place(canvas, "C03", (560, 360), 0)
    b = place(canvas, "C04", (560 + 250 / (800 / 440), 360), 0)
    found = finder(canvas)
    assert match(found, a) < 0.08 and match(found, b) < 0.08


def test_small_blobs_are_not_cards():
    canvas = table((40, 110, 30))
    canvas[300:330, 600:640] = 230  # a light patch far smaller than a card
    assert Localiser(min_area=0.004)(canvas) == []


def test_warp_gives_an_upright_portrait_crop(finder):
    canvas = table((40, 110, 30))
    truth = place(canvas, "H01", (640, 360), 30)
    quad = finder(canvas)[0]
    crop = warp_card(canvas, quad)
    assert crop.shape == (CROP_SIZE[1], CROP_SIZE[0], 3)
    # the face is cream: the crop's centre is light whichever half-turn it is in
    assert crop[CROP_SIZE[1] // 3 : 2 * CROP_SIZE[1] // 3, CROP_SIZE[0] // 4 : 3 * CROP_SIZE[0] // 4].mean() > 150
    assert order_quad(truth).shape == (4, 2)


def test_bad_frame_is_a_clear_error():
    with pytest.raises(ValueError, match="BGR"):
        find_cards(np.zeros((10, 10), np.uint8))


@pytest.mark.parametrize("scale", [1.0, 1.3])
def test_the_top_card_of_a_five_card_trick_gets_its_whole_outline(scale, finder):
    # the fifth card of a 5-player trick lands across the four others (its ends lie on
    # cards of the same cream colour): its quad must still follow its true outline
    canvas = table(TABLES["dark wood"])
    centre = np.array([640, 360])
    trick = [("T20", (630.5, 417.9), -175.7), ("HN", (716.1, 369.6), 89.4), ("T05", (664.5, 304.6), -3.1),
             ("T02", (598.9, 286.5), 1.8), ("EX", (571.6, 358.4), -101.6)]
    truths = [place(canvas, code, tuple(centre + (np.array(xy) - centre) * scale), angle, 158 * scale) for code, xy, angle in trick]
    assert match(finder(canvas), truths[-1]) < TOLERANCE

"""The camera check's measures on frames with known conditions, and its advice on table scenes."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import camera_check as cc
from vision import camera_scenes as cs
from vision import table_conditions as tc
from vision.card_geometry import card_quad
from vision.localise import find_cards

FRAME = (1280, 720)


def flat(value=120, size=(640, 480)) -> np.ndarray:
    return np.full((size[1], size[0], 3), value, np.uint8)


def card_frame(length=160.0, angle=0.3, white=(226, 240, 248)):
    img = flat(60, FRAME)
    quad = card_quad(np.array([640.0, 360.0]), length, angle, 1.8)
    cv2.fillPoly(img, [np.round(quad).astype(np.int32)], white, cv2.LINE_AA)
    return img, quad


def test_noise_is_measured_in_grey_levels():
    rng = np.random.default_rng(0)
    for sigma in (2.0, 6.0, 12.0):
        img = np.clip(120 + rng.normal(0, sigma, (480, 640, 1)).repeat(3, 2), 0, 255).astype(np.uint8)
        assert cc.noise_sigma(img) == pytest.approx(sigma, rel=0.2)
    assert cc.noise_sigma(flat()) < 0.2


def test_sharpness_falls_with_defocus_and_light_follows_the_cards_paper():
    img, quad = card_frame()
    sharp = cc.sharpness(img)
    assert sharp > 0.25
    assert cc.sharpness(tc.defocus(img, 2.0)) < 0.2 < sharp
    assert cc.light_level(img, [quad]) == pytest.approx(240 / 255, abs=0.03)
    assert cc.light_level((img * 0.5).astype(np.uint8), [quad]) == pytest.approx(120 / 255, abs=0.03)


def test_glare_is_a_white_spot_on_the_cream_paper_not_the_paper():
    img, quad = card_frame()
    assert cc.glare_boxes(img) == []
    cv2.ellipse(img, (640, 360), (25, 15), 30, 0, 360, (255, 255, 255), -1, cv2.LINE_AA)
    boxes = cc.glare_boxes(img)
    assert len(boxes) == 1
    x, y, w, h = boxes[0]
    assert x <= 640 <= x + w and y <= 360 <= y + h and 20 <= w <= 60


def test_glare_clips_the_sensor_a_white_spot_in_a_dim_room_that_does_not_is_paper():
    img, quad = card_frame()
    dim = (img * 0.5).astype(np.uint8)  # the paper at ~120
    cv2.ellipse(dim, (640, 360), (25, 15), 30, 0, 360, (200, 200, 200), -1, cv2.LINE_AA)  # whiter, brighter, not clipped
    assert cc.glare_boxes(dim) == []
    cv2.ellipse(dim, (640, 360), (25, 15), 30, 0, 360, (255, 255, 255), -1, cv2.LINE_AA)  # the lamp itself
    assert len(cc.glare_boxes(dim)) == 1
    assert cc.glare_boxes(dim, clipped=256) == []  # the clipping is what tells it


def test_card_height_and_the_tilt_of_a_camera_off_vertical():
    quads = [card_quad(np.array(c, np.float64), 150, a, 1.8) for c, a in (((300, 200), 0.2), ((900, 250), 1.0),
                                                                              ((640, 500), 2.0), ((1000, 550), 0.5))]
    assert cc.card_height(quads) == pytest.approx(150, abs=2)
    assert cc.card_height([]) is None
    assert cc.camera_tilt(quads, FRAME) < 3
    # the camera turned 30 degrees about its own centre: image -> image by K R K^-1
    f = 640 / np.tan(np.deg2rad(33.0))
    k = np.array([[f, 0, 640], [0, f, 360], [0, 0, 1.0]])
    rot, _ = cv2.Rodrigues(np.array([np.deg2rad(30.0) * 0.6, np.deg2rad(30.0) * 0.8, 0.0]))
    tilted = [tc.warp_points(k @ rot @ np.linalg.inv(k), q) for q in quads]
    assert cc.camera_tilt(tilted, FRAME) == pytest.approx(30.0, abs=3)
    assert cc.camera_tilt(tilted[:2], FRAME) is None  # two outlines are too few to tell


def test_advice_is_worst_first_and_ok_alone():
    t = cc.Thresholds()
    assert cc.advise(0.9, 1.0, 0.3, [], 150.0, 5.0, t) == ("ok",)
    assert cc.advise(0.3, 9.0, 0.1, [[0, 0, 9, 9]], 80.0, 40.0, t, ("left",)) == ("dim", "blur", "glare", "cut",
                                                                                  "small_cards", "tilted", "noisy")
    assert cc.advise(0.9, 1.0, 0.3, [], None, None, t) == ("no_card",)
    result = cc.check_frame(*card_frame()[:1], quads=[card_frame()[1]])
    assert result.to_json("a.png", {"ok": "fine"})["advice"] == [{"code": "ok", "text": "fine"}]


def test_a_card_reaching_beyond_the_frame_is_cut_on_that_side_a_card_inside_is_not():
    inside = card_quad(np.array([640.0, 360.0]), 160, 0.3, 1.8)
    assert cc.cut_sides([inside], FRAME) == ()
    at_the_edge = inside - np.array([inside[:, 0].min(), 0], np.float32)  # touching the left edge: not cut
    assert cc.cut_sides([at_the_edge], FRAME) == ()
    left = at_the_edge - np.array([40.0, 0], np.float32)  # 40 px of a 160-px card beyond the left edge
    low = inside + np.array([0, 660 - inside[:, 1].min()], np.float32)  # all but its top 60 px beyond the bottom
    assert cc.cut_sides([left, inside, low], FRAME) == ("left", "bottom")
    assert cc.cut_sides([left], FRAME, beyond=0.3) == ()  # 40 px is a quarter of its long side
    img, quad = card_frame()
    result = cc.check_frame(img, quads=[quad, left], edges=True)
    assert result.cut == ("left",) and "cut" in result.advice
    assert result.to_json("a.png", {})["cut"] == ["left"]
    plain = cc.check_frame(img, quads=[quad, left])  # not asked: the check's JSON as it always was
    assert plain.cut is None and "cut" not in plain.advice and "cut" not in plain.to_json("a.png", {})


def test_a_cut_scene_cuts_one_card_by_its_edge():
    scene = cs.cut_scene(9001, size=FRAME)
    assert scene is not None and scene.image.shape == (720, 1280, 3)
    shares = [c.inside for c in scene.cards]
    assert any(0.15 <= s <= 0.85 for s in shares) and scene.conditions["cut"] in cc.SIDES
    assert cs.inside_share(np.array([[-50, 0], [50, 0], [50, 100], [-50, 100]], np.float32), FRAME) == pytest.approx(0.5)


# ---------------------------------------------------------------- table scenes with known troubles
SCENES = 32  # every combination of dim, glare, blur and small cards, twice (seeds never used to choose thresholds)
CODES = {"dim": "dim", "glare": "glare", "blur": "blur", "small": "small_cards"}


@pytest.fixture(scope="module")
def checked():
    """(troubles on, advice with ``edges``, every card in the frame) per scene."""
    out = []
    for i in range(SCENES):
        on = cs.factorial(i)
        scene = cs.trouble_scene(9000 + i, on, size=FRAME)
        advice = cc.check_frame(scene.image, find_cards(scene.image), edges=True).advice
        out.append((on, advice, all(c.inside >= 0.99 for c in scene.cards)))
    return out


def rates(checked, trouble):
    code = CODES[trouble]
    with_it = [code in advice for on, advice, _ in checked if on[trouble]]
    without = [code in advice for on, advice, _ in checked if not on[trouble]]
    return sum(with_it) / len(with_it), sum(without) / len(without)


@pytest.mark.parametrize("trouble", ["dim", "blur", "small"])
def test_each_trouble_is_advised_in_most_scenes_with_it_and_few_without(checked, trouble):
    given, false = rates(checked, trouble)
    assert given >= 0.8 and false <= 0.15, (trouble, given, false)


def test_glare_is_advised_in_most_scenes_with_it_and_few_without(checked):
    given, false = rates(checked, "glare")
    assert given >= 0.8 and false <= 0.15, (given, false)


def test_cards_cut_by_the_frame_are_advised_in_most_scenes_and_seldom_without(checked):
    """Scenes with a card 20-80 % out of the frame (:func:`vision.camera_scenes.cut_scene`)
    against the trouble scenes whose cards all lie in the frame (seeds never used to choose
    ``cut_beyond``): 18/25 and 1/26 when written."""
    given = []
    for seed in range(9000, 9000 + SCENES):
        scene = cs.cut_scene(seed, size=FRAME)
        if scene is not None:
            given.append("cut" in cc.check_frame(scene.image, find_cards(scene.image), edges=True).advice)
    without = ["cut" in advice for _, advice, inside in checked if inside]
    assert len(given) >= 20 and len(without) >= 20
    assert sum(given) / len(given) >= 0.6 and sum(without) / len(without) <= 0.1, (given, without)

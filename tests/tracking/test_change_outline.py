"""The new card's outline from what changed (vision.change_outline)."""

import cv2
import numpy as np
from hypothesis import given, settings, strategies as st

from vision.change_outline import StillBackground, change_image, change_inside, outline_from_change, tone_map
from vision.quad_error import card_frame_error


def card_corners(cx, cy, w, h, angle):
    rect = ((cx, cy), (w, h), angle)
    return cv2.boxPoints(rect).astype(np.float32)


def table(rng, size=(540, 960)):
    img = np.empty((*size, 3), np.uint8)
    img[:] = (40, 110, 30)  # felt
    noise = rng.normal(0, 3, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def lay(img, corners, colour=(215, 225, 230), print_colour=(150, 40, 20)):
    out = img.copy()
    cv2.fillConvexPoly(out, np.round(corners).astype(np.int32), colour, cv2.LINE_AA)
    centre = corners.mean(0)
    inner = centre + (corners - centre) * 0.6
    cv2.fillConvexPoly(out, np.round(inner).astype(np.int32), print_colour, cv2.LINE_AA)
    return out


def error(found, truth):
    return float(np.linalg.norm(card_frame_error(found, truth), axis=1).mean())


def test_a_card_laid_on_a_pile_is_outlined_closer_than_a_rough_quad():
    rng = np.random.default_rng(1)
    before = table(rng)
    before = lay(before, card_corners(450, 280, 90, 160, 10))
    before = lay(before, card_corners(500, 260, 90, 160, 80), print_colour=(30, 30, 160))
    truth = card_corners(545, 320, 90, 160, 35)  # a third of it over the cards before it, same paper
    after = lay(before, truth, print_colour=(20, 120, 200))
    after = np.clip(after.astype(np.int16) + rng.normal(0, 3, after.shape), 0, 255).astype(np.uint8)
    hint = truth * 1.0
    hint[1:3] += (6, -4)  # a finder's quad a long side off, as across a pile
    outline = outline_from_change(before, after, hint)
    assert outline is not None
    assert error(outline, truth) < 0.03 < error(hint, truth)
    assert np.linalg.norm(outline - truth, axis=1).mean() < np.linalg.norm(hint - truth, axis=1).mean()
    # the corners keep the hint's order
    assert all(np.argmin(np.linalg.norm(outline - p, axis=1)) == i for i, p in enumerate(hint))


def test_a_lamp_dimming_between_the_frames_is_no_change():
    rng = np.random.default_rng(2)
    before = lay(table(rng), card_corners(300, 250, 90, 160, 0))
    dim = (before.astype(np.float32) * 0.6 + 10).astype(np.uint8)  # gain and offset
    change = change_image(before, dim, tone_map(before, dim))
    assert np.percentile(change, 99) < 12


def test_no_outline_when_nothing_changed_or_the_change_is_not_one_card():
    rng = np.random.default_rng(3)
    before = lay(table(rng), card_corners(300, 250, 90, 160, 0))
    hint = card_corners(300, 250, 90, 160, 0)
    assert outline_from_change(before, before.copy(), hint) is None
    # two cards laid at once, side by side, under one quad: not one card's change
    after = lay(lay(before, card_corners(600, 250, 90, 160, 0)), card_corners(700, 250, 90, 160, 0))
    wide = np.float32([[555, 170], [745, 170], [745, 330], [555, 330]])
    assert outline_from_change(before, after, wide) is None
    assert outline_from_change(before[:100], after, hint) is None  # frames of different sizes


def test_a_card_laid_changes_its_place_a_quad_across_cards_already_there_does_not():
    rng = np.random.default_rng(4)
    before = table(rng)
    left, right = card_corners(400, 270, 90, 160, 0), card_corners(490, 270, 90, 160, 0)  # a row, side by side
    before = lay(lay(before, left), right, print_colour=(30, 30, 160))
    new = card_corners(580, 270, 90, 160, 0)
    after = lay(before, new, print_colour=(20, 120, 200))
    after = np.clip(after.astype(np.int16) + rng.normal(0, 3, after.shape), 0, 255).astype(np.uint8)
    assert change_inside(before, after, new) > 0.8  # the card just laid
    across = card_corners(445, 270, 90, 160, 0)  # a quad found across the two cards already there
    assert change_inside(before, after, across) < 0.05
    # a card laid half over the row changes most of its place, over the cards too
    over = card_corners(470, 300, 90, 160, 20)
    assert change_inside(before, lay(before, over, print_colour=(20, 120, 200)), over) > 0.6  # white on white: no change
    # the lamp dimming is no change; frames that cannot be compared say "changed" (nothing dropped)
    dim = (before.astype(np.float32) * 0.7 + 8).astype(np.uint8)
    assert change_inside(before, dim, across) < 0.05
    assert change_inside(before[:100], after, across) == 1.0


@settings(max_examples=25, deadline=None)
@given(st.floats(0, 180), st.floats(-8, 8), st.floats(-8, 8), st.integers(0, 2**16))
def test_an_outline_found_is_never_much_worse_than_its_hint(angle, dx, dy, seed):
    rng = np.random.default_rng(seed)
    before = lay(table(rng), card_corners(480, 270, 90, 160, (angle + 50) % 180))
    truth = card_corners(480 + dx * 3, 270 + dy * 3, 90, 160, angle)
    after = lay(before, truth, print_colour=(20, 120, 200))
    hint = truth + rng.normal(0, 4, (4, 2)).astype(np.float32)
    outline = outline_from_change(before, after, hint)
    if outline is not None:
        assert error(outline, truth) <= error(hint, truth) + 0.02


def test_the_background_takes_a_cell_only_once_it_has_been_still():
    bg = StillBackground(quiet=3)
    empty = np.zeros((80, 160, 3), np.uint8)
    still = np.zeros((10, 20), bool)
    bg.update(empty, None)
    card = empty.copy()
    card[8:24, 16:40] = 200
    moving = still.copy()
    moving[1:3, 2:5] = True
    bg.update(card, moving)  # the card in the hand: moving
    before = bg.snapshot()
    for _ in range(2):
        bg.update(card, still)
    assert bg.snapshot()[10, 20].max() == 0  # still for 2 frames only
    bg.update(card, still)
    assert bg.snapshot()[10, 20].max() == 200  # 3 still frames: the card is background now
    assert before[10, 20].max() == 0  # and the snapshot taken before it is as it was


def test_the_tracker_crops_new_cards_from_their_outline_and_reports_the_same_cards():
    from dataclasses import replace

    from vision.simulator import french_deal_script, random_tricks
    from vision.tracker import TrackerSettings

    from .helpers import run_on_truth

    script = french_deal_script(random_tricks(1, 4, seed=5), players=4)
    plain = run_on_truth(script, seed=5, jitter=3.0)
    sim, oracle, tracker, events = run_on_truth(script, seed=5, jitter=3.0,
                                                settings=replace(TrackerSettings(), outline=True))
    names = [(e.type, e.card) for e in events]
    assert names == [(e.type, e.card) for e in plain[3]] and ("appeared", script_first_card(script)) in names
    assert tracker.stats.outlined > 0  # the noisy quads were replaced by outlines for some crops
    assert all(t.before is None for t in tracker._tracks if t.state != "new")  # released once decided


def script_first_card(script):
    from vision.simulator import Play

    return next(a.card for a in script if isinstance(a, Play))

"""The hard simulated table: dim and noisy, a lamp's glare, lingering hands, piles, small cards, tilt, blur."""

from dataclasses import replace
from itertools import islice

import cv2
import numpy as np
import pytest

from vision.simulator import Idle, Play, SimulatorError, TableSimulator, french_deal_script, random_tricks
from vision.simulator.conditions import EASY, Lamp, SimConditions, draw_sim_conditions

SMALL = (640, 360)


def trick(players=4, seed=0):
    return french_deal_script(random_tricks(1, players, seed), players=players)


def frames_of(sim, n=None):
    return list(islice(sim.frames(), n))


def test_the_easy_table_is_the_default_and_changes_nothing():
    assert draw_sim_conditions("easy", 5) is EASY and SimConditions() == EASY and EASY.easy
    a = TableSimulator(trick(seed=2), seed=2, size=SMALL)
    b = TableSimulator(trick(seed=2), seed=2, size=SMALL, conditions="easy")
    assert a.expected == b.expected
    for fa, fb in zip(a.frames(), b.frames()):
        assert np.array_equal(fa.image, fb.image)


def test_unknown_conditions_are_refused_with_the_choices():
    with pytest.raises(SimulatorError, match="expected easy or hard"):
        draw_sim_conditions("medium", 1)


def test_seeds_vary_every_hard_condition_and_the_same_seed_repeats_it():
    drawn = [draw_sim_conditions("hard", s) for s in range(6)]
    assert draw_sim_conditions("hard", 3) == drawn[3]
    for attr in ("card_scale", "blur", "shadow", "shadow_offset", "lamp"):
        assert len({getattr(c, attr) for c in drawn}) == 6, attr
    for attr in ("exposure", "noise", "tilt", "tilt_direction", "defocus"):
        assert len({getattr(c.camera, attr) for c in drawn}) == 6, attr
    for c in drawn:
        assert c.camera.light == "dim" and c.camera.tilt >= 5 and c.card_scale < 0.9 and c.linger[1] > 0
        assert "hard table" in c.describe()


def test_hard_frames_are_reproducible():
    a = frames_of(TableSimulator(trick(seed=4), seed=4, size=SMALL, conditions="hard"), 80)
    b = frames_of(TableSimulator(trick(seed=4), seed=4, size=SMALL, conditions="hard"), 80)
    assert all(np.array_equal(x.image, y.image) for x, y in zip(a, b))


def test_the_hard_table_is_dim_noisy_and_its_cards_small():
    easy = TableSimulator(trick(seed=1), seed=1, size=SMALL)
    hard = TableSimulator(trick(seed=1), seed=1, size=SMALL, conditions="hard")
    assert hard.layout.card_h < 0.9 * easy.layout.card_h
    e0, h0 = next(easy.frames()).image, next(hard.frames()).image
    assert h0.mean() < 0.75 * e0.mean()
    # noise: the frame differs from the next still frame by more than the easy table's noise
    e1, h1 = frames_of(easy, 2)[1].image, frames_of(hard, 2)[1].image
    assert np.abs(h1.astype(int) - h0).mean() > np.abs(e1.astype(int) - e0).mean()


def test_a_tilted_camera_moves_the_zones_and_the_cards_with_them():
    sim = TableSimulator(trick(seed=3), seed=3, size=SMALL, conditions="hard")
    assert sim.zones.names == sim.layout.zones.names
    assert sim.zones["middle"].polygon != sim.layout.zones["middle"].polygon
    w, h = SMALL
    checked = 0
    for f in sim.frames():
        for t in f.cards:
            if t.zone is not None and not t.moving:
                cx, cy = t.corners.mean(0)
                z = sim.zones.zone_at(float(cx), float(cy), w, h)
                assert z is not None and z.name == t.zone
                checked += 1
    assert checked > 20


def test_trick_piles_overlap_20_to_50_percent():
    overlaps = []
    for players in (3, 4, 5):
        for seed in range(4):
            sim = TableSimulator(trick(players, seed), players=players, seed=seed, size=SMALL, conditions="hard")
            last = max(e.frame for e in sim.expected if e.type == "appeared")
            resting, _, _ = sim.timeline.at(last)  # the pile, bottom first (the table frame: no tilt)
            quads = [sim.layout.corners(p.pose) for p in resting]
            for below, above in zip(quads, quads[1:]):
                inter, _ = cv2.intersectConvexConvex(below, above)
                overlaps.append(inter / abs(cv2.contourArea(below)))
    assert 0.2 <= np.percentile(overlaps, 10) and np.percentile(overlaps, 90) <= 0.55
    assert 0.25 <= np.median(overlaps) <= 0.45


def test_hands_linger_over_the_trick_and_cast_shadows():
    script = [Idle(2), Play(1, "H07"), Idle(30)]
    linger = replace(EASY, linger=(18, 18), shadow=0.5, shadow_offset=(0.1, 0.1))
    plain = TableSimulator(script, seed=1, size=SMALL)
    held = TableSimulator(script, seed=1, size=SMALL, conditions=linger)
    rest = held.expected[0].frame
    assert rest == plain.expected[0].frame

    def hand_frames(sim):
        return sum(1 for f in sim.frames() if f.index > rest and f.hands)

    assert hand_frames(held) >= hand_frames(plain) + 18
    # the card stays mostly visible under the lingering hand (it can be named)
    visible = [f.cards[0].visible for f in held.frames() if rest + 6 < f.index < rest + 18]
    assert min(visible) > 0.8
    # the shadow darkens the table beside the hand
    shadowless = TableSimulator(script, seed=1, size=SMALL, conditions=replace(linger, shadow=0.0))
    a = next(f.image for f in held.frames() if f.index == rest + 10)
    b = next(f.image for f in shadowless.frames() if f.index == rest + 10)
    assert (a.astype(int) - b).min() < -20 and (a.astype(int) - b).max() <= 1


def test_a_lamp_whitens_the_cards_under_it_only():
    script = [Idle(2), Play(1, "C05"), Idle(4)]
    lamp = replace(EASY, lamp=Lamp(0.5, 0.5, 3.0, 0.4))
    lit = frames_of(TableSimulator(script, seed=2, size=SMALL, conditions=lamp))[-1]
    unlit = frames_of(TableSimulator(script, seed=2, size=SMALL))[-1]
    mask = np.zeros(SMALL[::-1], np.uint8)
    cv2.fillConvexPoly(mask, np.round(lit.cards[0].corners).astype(np.int32), 1)
    diff = np.abs(lit.image.astype(int) - unlit.image).max(axis=2)
    assert (diff[mask > 0] > 40).sum() > 20  # glare on the card
    outside = cv2.dilate(mask, np.ones((5, 5), np.uint8)) == 0
    assert diff[outside].max() <= 6  # the felt does not shine (noise only)

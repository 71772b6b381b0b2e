"""Nothing vanishes: a card laid that the card finder never found is asked before the next card
(``TrackerSettings.audit``, :mod:`vision.landings`)."""

from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vision.landings import TableAudit
from vision.simulator import GroundTruthRecogniser, TableSimulator, Trick, french_deal_script
from vision.sources import Frame
from vision.tracker import Tracker, TrackerSettings

CARD = (90.0, 160.0)  # a card's short and long side, pixels of the 960 x 540 frame
WHERE = np.ones((90, 160), bool)  # the zones: the whole frame (at the tracker's motion scale)


def table(seed=0):
    rng = np.random.default_rng(seed)
    img = np.empty((540, 960, 3), np.uint8)
    img[:] = (40, 110, 30)
    return np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)


def quad_at(x, y, w=90, h=160):
    return np.float32([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])


def with_card(img, quad, ink=(150, 40, 20)):
    out = img.copy()
    cv2.fillConvexPoly(out, np.round(quad).astype(np.int32), (215, 225, 230))
    x0, y0 = quad.min(0).astype(int) + 20
    cv2.rectangle(out, (int(x0), int(y0)), (int(x0) + 50, int(y0) + 100), ink, -1)
    return out


def with_hand(img, centre=(445, 370)):
    out = img.copy()
    cv2.ellipse(out, centre, (150, 60), 20, 0, 360, (70, 100, 150), -1)
    return out


def near(a, b, px=15.0):
    return float(np.mean(np.linalg.norm(np.asarray(a, np.float32) - np.asarray(b, np.float32), axis=1))) <= px


def same_rectangle(found, quad, px=15.0):
    """Whether ``found`` has ``quad``'s corners, in any order (a rectangle's corners from its pixels)."""
    return all(min(np.linalg.norm(np.asarray(found) - c, axis=1)) <= px for c in quad)


def test_a_card_laid_unseen_is_found_and_a_card_reported_is_not():
    audit = TableAudit()
    before = table()
    audit.reset(before)
    a = quad_at(300, 150)
    got = audit.audit(with_card(before, a), WHERE, [], CARD)
    assert len(got) == 1 and same_rectangle(got[0].quad, a, 6)
    assert 0.8 <= got[0].area <= 1.2 and got[0].card_like
    # the next card is reported by the tracker (its quad explains it): nothing found
    b = quad_at(360, 250)
    assert audit.audit(with_card(with_card(before, a), b), WHERE, [b], CARD) == []
    # and the table still: nothing
    assert audit.audit(with_card(with_card(before, a), b), WHERE, [], CARD) == []


def test_the_light_the_noise_and_a_sweep_are_no_card():
    audit = TableAudit()
    a, b = quad_at(300, 150), quad_at(360, 250)
    pile = with_card(with_card(table(), a), b)
    audit.reset(pile)
    dim = (pile.astype(np.float32) * 0.6 + 10).astype(np.uint8)
    assert audit.audit(dim, WHERE, [], CARD) == []  # the lamp dimmed
    assert audit.audit(table(5), WHERE, [a, b], CARD) == []  # swept: the cards taken explain it
    assert audit.audit(table(6), WHERE, [], CARD) == []  # another frame's noise


def test_a_hand_lingering_is_no_card_and_the_card_under_it_is_found_once_it_has_gone():
    audit = TableAudit()
    before = table()
    audit.reset(before)
    a = quad_at(400, 200)
    card = with_card(before, a)
    assert audit.audit(with_hand(card), WHERE, [], CARD) == []  # card and hand: one region, no card's shape
    got = audit.audit(card, WHERE, [], CARD)  # the hand gone: the old table was kept under it
    assert len(got) == 1 and same_rectangle(got[0].quad, a, 8)


def test_without_a_card_size_nothing_is_found_and_the_table_is_taken_again():
    audit = TableAudit()
    audit.reset(table())
    a = quad_at(300, 150)
    assert audit.audit(with_card(table(), a), WHERE, [], None) == []
    assert audit.audit(with_card(table(), a), WHERE, [], CARD) == []  # it was taken as the table


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.4, 1.6), st.integers(-30, 30))
def test_no_card_on_a_table_that_only_changed_its_light(seed, gain, offset):
    before = table(seed % 7)
    audit = TableAudit()
    audit.reset(before)
    after = np.clip(before.astype(np.float32) * gain + offset, 0, 255).astype(np.uint8)
    assert audit.audit(after, WHERE, [], CARD) == []


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 180), st.floats(40, 70), st.floats(1.3, 1.9), st.floats(-20, 20), st.floats(-20, 20))
def test_a_region_keeps_its_corners_in_the_order_every_quad_keeps(angle, short, aspect, dx, dy):
    """Clockwise on screen, a short edge first, whichever corner this OpenCV's boxPoints starts at: the card
    found there later is compared with it corner by corner (OpenCV 4's and 5's start at different corners)."""
    from vision.landings import regions_of

    rect = ((200 + dx, 150 + dy), (short, short * aspect), angle)
    mask = np.zeros((300, 400), np.uint8)
    cv2.fillConvexPoly(mask, np.round(cv2.boxPoints(rect)).astype(np.int32), 1)
    regions = regions_of(mask > 0, (short, short * aspect), 1.0)
    assert len(regions) == 1
    q = np.asarray(regions[0][0].quad, np.float64)
    edges = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    assert edges[0] < edges[1] and edges[2] < edges[3]  # a short edge first
    (ax, ay), (bx, by) = q[1] - q[0], q[2] - q[1]
    assert ax * by - ay * bx > 0  # clockwise on screen (y down)


# ------------------------------------------------------------ in the tracker, on the simulated table

def play_trick(missed: str, audit: bool, seed: int = 2, until: int = 10**9):
    """A four-card trick on the simulated table whose card finder does not find ``missed``
    before frame ``until``."""
    script = french_deal_script([Trick(1, ("H07", "H10", "HK", "H02"), 3)], players=4, idle=12)
    sim = TableSimulator(script, players=4, seed=seed, size=(960, 540))
    oracle = GroundTruthRecogniser(sim)

    def finder(image):
        late = oracle.current is not None and oracle.current.index >= until
        return [q for q in oracle.localise(image) if late or oracle.crop(image, q) != missed]

    tracker = Tracker(sim.zones, localiser=finder, namer=oracle, cropper=oracle.crop,
                      settings=replace(TrackerSettings(), audit=audit))
    events = []
    for f in oracle.frames():
        events += tracker.process(Frame(f.image, f.timestamp, f.index))
    return tracker, events + tracker.flush()


def test_a_card_the_finder_never_finds_is_asked_before_the_next_card():
    _, events = play_trick("H10", audit=False)
    assert [(e.type, e.card) for e in events if e.type != "cleared"] == [("appeared", "H07"), ("appeared", "HK"), ("appeared", "H02")]
    tracker, events = play_trick("H10", audit=True)
    cards = [(e.type, e.card) for e in events]
    assert cards[:4] == [("appeared", "H07"), ("uncertain", None), ("appeared", "HK"), ("appeared", "H02")]
    asked = events[1]
    assert asked.candidates and asked.candidates[0][0] == "H10"  # the namer's best for what changed
    assert tracker.stats.unseen == 1 and tracker.stats.audits >= 4
    assert cards[-1] == ("cleared", None) and len(cards) == 5  # swept with the others, no second question


def test_a_card_asked_and_then_found_is_not_asked_again():
    tracker, events = play_trick("H10", audit=True, until=80)  # asked at frame 68, found from 80 on
    assert [(e.type, e.card) for e in events] == [("appeared", "H07"), ("uncertain", None), ("appeared", "HK"),
                                                  ("appeared", "H02"), ("cleared", None)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_trick_the_finder_sees_whole_is_never_audited_into_a_question(seed):
    tracker, events = play_trick("none", audit=True, seed=seed)
    assert [(e.type, e.card) for e in events] == [("appeared", c) for c in ("H07", "H10", "HK", "H02")] + [("cleared", None)]
    assert tracker.stats.unseen == 0 and tracker.stats.audits >= 4


def test_the_first_card_of_the_next_trick_is_asked_too():
    """After a sweep no card lies on the table, but the cards' size is remembered."""
    tricks = [Trick(1, ("H07", "H10", "HK", "H02"), 3), Trick(3, ("S05", "S01", "S09", "SN"), 1)]
    script = french_deal_script(tricks, players=4, idle=12)
    sim = TableSimulator(script, players=4, seed=2, size=(960, 540))
    oracle = GroundTruthRecogniser(sim)

    def finder(image):
        return [q for q in oracle.localise(image) if oracle.crop(image, q) != "S05"]

    tracker = Tracker(sim.zones, localiser=finder, namer=oracle, cropper=oracle.crop,
                      settings=replace(TrackerSettings(), audit=True))
    events = []
    for f in oracle.frames():
        events += tracker.process(Frame(f.image, f.timestamp, f.index))
    cards = [(e.type, e.card) for e in events + tracker.flush()]
    assert cards[5:9] == [("uncertain", None), ("appeared", "S01"), ("appeared", "S09"), ("appeared", "SN")]
    assert events[5].candidates[0][0] == "S05"

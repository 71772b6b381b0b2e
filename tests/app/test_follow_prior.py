"""A card that does not follow the trick needs a void: the follow prior (``follow_weight``, off
unless set) makes it less likely among the possible cards, once for each void not yet proven."""

import pytest
from hypothesis import given, strategies as st

from device.games.french_tarot.controller import follow_prior, led_suit, proven_voids
from engine.cards import CODES
from engine.tarot import random_deal

from .test_controller import log, play_through, tarot  # noqa: F401 - the fixture

SUITS = ("S", "H", "D", "C")


def test_the_led_suit_is_the_first_card_other_than_the_excuse():
    assert led_suit(()) is None
    assert led_suit(("EX",)) is None
    assert led_suit(("EX", "H05", "T02")) == "H"
    assert led_suit(("T03", "H05")) == "T"


@given(code=st.sampled_from(CODES), led=st.sampled_from((None, "T", *SUITS)),
       absent=st.one_of(st.sets(st.sampled_from(CODES), max_size=20),
                        st.sampled_from(SUITS + ("T",)).map(lambda s: {c for c in CODES if c[0] == s})),
       weight=st.floats(0.05, 1.0))
def test_the_prior_is_one_for_a_card_that_follows_and_a_weight_per_unproven_void(code, led, absent, weight):
    prior = follow_prior(code, led, proven_voids(absent), weight)
    void = {s for s in ("S", "H", "D", "C", "T") if all(c in absent for c in CODES if c[0] == s and c != "EX")}
    if led is None or code == "EX" or code[0] == led:
        assert prior == 1.0
    elif code[0] == "T" or led == "T":
        assert prior == pytest.approx(1.0 if led in void or (led == "T" and "T" in void) else weight)
    else:  # another plain suit on a plain lead: no card of the led suit, and no trump
        needs = [s for s in (led, "T") if s not in void]
        assert prior == pytest.approx(weight ** len(needs))
    assert weight ** 2 - 1e-12 <= prior <= 1.0


def test_the_possible_cards_favour_the_led_suit_when_the_prior_is_set(log):
    truth = random_deal(4, 11)
    controller = tarot(log, truth)
    second = next(i for i, op in enumerate(truth.operations) if op.to_dict()["op"] == "play") + 1
    play_through(controller, truth, stop_before=second)
    led = led_suit(controller.session.state.current_trick.cards)
    plain = controller.possible_cards().weights
    controller.follow_weight = 0.3
    weighted = controller.possible_cards().weights
    assert set(weighted) == set(plain)  # nothing made impossible
    for code, w in weighted.items():
        if code == "EX" or code[0] == led:
            assert w == pytest.approx(plain[code])
        else:
            assert w < plain[code]
    # a question offers the led suit first
    assert all(c[0] == led or c == "EX" for c in controller.question_cards(controller.possible_cards(), [])[:5])

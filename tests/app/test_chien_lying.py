"""The chien turned face up lies in the middle until the taker takes it: what the camera finds
there meanwhile (a quad across its cards, one of them seen again) is the chien's, never the
first trick's card, and its sweep is no trick swept short. While it is being shown, an unclear
quad waits for its end: the chien shown whole says it was none."""

from device.app.controller import APPLIED, CONFIRM, INFO
from engine.tarot import random_deal
from tests.app.test_controller import log, seen, tarot  # noqa: F401 (the log fixture)
from vision.events import TableEvent


def chien_being_shown(controller, truth):
    """Bids as decisions; the chien's cards (returned) not yet shown."""
    for op in truth.operations:
        d = op.to_dict()
        if d["op"] == "bid":
            controller.on_decision(("bid", d["seat"], d["bid"]))
        elif d["op"] == "chien":
            return d["cards"]
    raise AssertionError("no chien in this deal")


def chien_shown(controller, truth):
    """Bids as decisions, the chien's cards as table events; the chien left lying. Returns the
    chien's cards and the écart's operation."""
    chien = chien_being_shown(controller, truth)
    for card in chien:
        notices = controller.on_event(seen(card))
    assert notices[-1].kind == APPLIED
    return chien, next(o.to_dict() for o in truth.operations if o.to_dict()["op"] == "ecart")


def unclear():
    return TableEvent("uncertain", 0, 0.0, "middle", None, candidates=[("H02", 0.3)])


def test_a_quad_on_the_chien_after_the_ecart_asks_nothing_and_its_sweep_asks_for_no_card(log):  # noqa: F811
    truth = random_deal(4, 8)
    controller = tarot(log, truth)
    chien, ecart = chien_shown(controller, truth)
    assert controller.on_decision(("ecart", ecart["cards"]))[0].kind == APPLIED  # entered before the chien is taken
    prompts = controller.prompts
    assert controller.on_event(unclear())[-1].kind == INFO
    assert controller.on_event(seen(chien[0]))[-1].kind == INFO  # a chien card found again
    assert controller.on_event(TableEvent("cleared", 0, 0.0, "middle"))[-1].kind == INFO
    assert controller.prompts == prompts and not controller.pending
    assert controller.session.operations_count == len(truth.operations[:6])  # bids, chien, écart
    # the chien taken: an unclear quad in the middle is asked again
    assert controller.on_event(unclear())[-1].kind == CONFIRM


def test_the_first_card_played_ends_the_chien_even_when_its_sweep_was_missed(log):  # noqa: F811
    truth = random_deal(4, 8)
    controller = tarot(log, truth)
    chien, ecart = chien_shown(controller, truth)
    controller.on_decision(("ecart", ecart["cards"]))
    first = next(o.to_dict() for o in truth.operations if o.to_dict()["op"] == "play")
    assert first["card"] not in chien
    notices = controller.on_event(seen(first["card"]))
    assert notices[-1].kind == APPLIED and not controller.chien_lying
    assert controller.on_event(unclear())[-1].kind == CONFIRM


def test_an_unclear_quad_while_the_chien_is_shown_asks_nothing_when_the_chien_is_shown_whole(log):  # noqa: F811
    truth = random_deal(4, 8)
    controller = tarot(log, truth)
    chien = chien_being_shown(controller, truth)
    prompts = controller.prompts
    for k, card in enumerate(chien):
        if k == 2:  # a quad across the first two cards
            assert controller.on_event(unclear())[-1].kind == INFO
        notices = controller.on_event(seen(card))
    assert notices[-1].kind == APPLIED  # the chien, whole
    assert controller.prompts == prompts and not controller.pending
    assert len(controller.no_card) == 1 and not controller.chien_unclear


def test_a_chien_taken_short_asks_its_missing_card_with_the_unclear_quads_candidates_first(log):  # noqa: F811
    truth = random_deal(4, 8)
    controller = tarot(log, truth)
    chien = chien_being_shown(controller, truth)
    prompts = controller.prompts
    for card in chien[:-1]:
        controller.on_event(seen(card))
    last = chien[-1]
    other = next(c for c in ("H02", "S09", "C10") if c not in chien)
    weak = TableEvent("uncertain", 0, 0.0, "middle", None, candidates=[(other, 0.2), (last, 0.45)])
    assert controller.on_event(weak)[-1].kind == INFO  # kept, not asked
    assert controller.prompts == prompts
    notices = controller.on_event(TableEvent("cleared", 0, 0.0, "middle"))
    assert notices[-1].kind == CONFIRM and controller.prompts == prompts + 1
    assert controller.pending[0].reason == "missing" and controller.pending[0].possible[:2] == (last, other)
    assert controller.on_decision(("correct_card", last))[-1].kind == APPLIED
    assert not controller.pending and not controller.chien_unclear and not controller.no_card


def test_a_quad_the_camera_nearly_names_while_the_chien_is_shown_is_asked_at_once(log):  # noqa: F811
    truth = random_deal(4, 8)
    controller = tarot(log, truth)
    chien = chien_being_shown(controller, truth)
    controller.on_event(seen(chien[0]))
    sure = TableEvent("uncertain", 0, 0.0, "middle", None, candidates=[(chien[1], 0.6)])
    assert controller.on_event(sure)[-1].kind == CONFIRM and not controller.chien_unclear


def test_a_chien_completed_from_questions_once_taken_lies_no_more_and_the_first_tricks_unclear_card_is_asked(log):  # noqa: F811
    truth = random_deal(4, 8)
    controller = tarot(log, truth)
    chien = chien_being_shown(controller, truth)
    for card in chien[:2]:
        controller.on_event(seen(card))
    assert controller.on_event(unclear())[-1].kind == INFO  # kept while the chien is shown
    notices = controller.on_event(TableEvent("cleared", 0, 0.0, "middle"))  # taken with 2 of 6 seen
    for card in chien[2:]:
        assert notices[-1].kind == CONFIRM and controller.pending[0].reason == "missing"
        notices = controller.on_decision(("correct_card", card))
    assert notices[-1].kind == APPLIED and not controller.pending  # the chien, from the answers
    assert not controller.chien_lying  # taken before it was whole: nothing of it lies in the middle
    ecart = next(o.to_dict() for o in truth.operations if o.to_dict()["op"] == "ecart")
    assert controller.on_decision(("ecart", ecart["cards"]))[0].kind == APPLIED
    prompts = controller.prompts
    assert controller.on_event(unclear())[-1].kind == CONFIRM  # the first trick's card, asked
    assert controller.prompts == prompts + 1


def test_a_chien_seen_whole_still_lies_and_an_unclear_quad_on_it_asks_nothing(log):  # noqa: F811
    truth = random_deal(4, 8)
    controller = tarot(log, truth)
    chien, _ = chien_shown(controller, truth)
    assert controller.chien_lying and not controller.swept_short
    assert controller.on_event(unclear())[-1].kind == INFO

"""A card the camera reported, then saw surely as another card (a ``renamed`` event): the card is
fixed where it lies, in the chien being shown or in the operation that holds it, never entered
again; a renaming to a card the deal already holds changes nothing."""

from device.app.controller import APPLIED, INFO
from engine.cards import CODES
from engine.tarot import random_deal
from tests.app.test_fix_card import controller_at, first, log  # noqa: F401 (the log fixture)
from tests.app.test_controller import seen
from vision.events import TableEvent


def renamed(was, card):
    return TableEvent("renamed", 0, 0.0, "middle", card, confidence=0.995, was=was)


def test_a_chien_card_renamed_while_the_chien_is_shown_is_fixed_among_its_cards(log):  # noqa: F811
    truth = random_deal(4, 5)
    k = first(truth, "chien")
    c = controller_at(log, truth, stop_before=k)
    right = list(truth.operations[k].to_dict()["cards"])
    outside = next(code for code in CODES if code not in right)
    c.on_event(seen(outside))  # the first card misread
    notices = c.on_event(renamed(outside, right[0]))
    assert notices[-1].kind == INFO and f"{outside} is {right[0]}" in notices[-1].text
    for code in right[1:]:
        notices = c.on_event(seen(code))
    assert notices[-1].kind == APPLIED
    assert c.session.state.operations[k].to_dict()["cards"] == right
    assert c.prompts == 0


def test_a_played_card_renamed_is_fixed_in_its_trick(log):  # noqa: F811
    truth = random_deal(4, 5)
    k = first(truth, "play")
    c = controller_at(log, truth, stop_before=k + 2)  # two cards of the first trick played
    ops = [op.to_dict() for op in c.session.state.operations]
    played = ops[k + 1]["card"]
    held = {o.get("card") for o in ops} | set(ops[first(truth, "chien")]["cards"])
    for wrong in CODES:  # the camera read the second card as another card the rules allowed
        if wrong not in held and c.on_decision(("fix_card", k + 1, played, wrong))[-1].kind == APPLIED:
            break
    assert c.session.state.operations[k + 1].to_dict()["card"] == wrong
    # now it sees that card surely as the card played
    notices = c.on_event(renamed(wrong, played))
    assert notices[-1].kind == APPLIED and notices[-1].text == f"fixed: {wrong} is {played}"
    assert [op.to_dict() for op in c.session.state.operations] == ops
    assert c.session.log.operations(c.session.deal.id) == ops  # logged in place, nothing entered again


def test_a_renaming_to_a_card_the_deal_holds_or_of_a_card_it_does_not_changes_nothing(log):  # noqa: F811
    truth = random_deal(4, 5)
    k = first(truth, "play")
    c = controller_at(log, truth, stop_before=k + 2)
    before = [op.to_dict() for op in c.session.state.operations]
    a, b = before[k]["card"], before[k + 1]["card"]
    assert c.on_event(renamed(b, a))[-1].kind == INFO  # a lies in the trick already
    out = [code for code in CODES if code not in {o.get("card") for o in before} | set(before[first(truth, "chien")]["cards"])]
    assert "no " in c.on_event(renamed(out[0], out[1]))[-1].text  # the deal holds no such card
    assert [op.to_dict() for op in c.session.state.operations] == before


def test_a_trivium_card_renamed_while_its_group_is_laid_is_fixed_in_the_group(log):  # noqa: F811
    from tests.app.test_controller import replay_trivium

    renames = []

    def lay(controller, d):
        zone = f"seat{d['seat'] + 1}"
        cards = list(d["cards"])
        if not renames and len(cards) == 3:  # the first tercia's first card misread, then renamed
            other = next(c for c in CODES if c not in cards)
            controller.on_event(seen(other, zone))
            notices = controller.on_event(TableEvent("renamed", 0, 0.0, zone, cards[0], confidence=0.995, was=other))
            assert notices[-1].kind == INFO and controller.groups == {d["seat"]: [cards[0]]}
            renames.append(other)
            return [controller.on_event(seen(card, zone)) for card in cards[1:]][-1]
        return [controller.on_event(seen(card, zone)) for card in cards][-1]

    truth, session, _ = replay_trivium(log, lay)
    assert renames and session.deal_over and list(session.state.scores) == list(truth.scores)


def test_a_card_the_camera_renamed_itself_is_not_told_back_to_it(log):  # noqa: F811
    import dataclasses

    truth = random_deal(4, 5)
    k = first(truth, "play")
    c = controller_at(log, truth, stop_before=k + 1)
    ops = [op.to_dict() for op in c.session.state.operations]
    held = {o.get("card") for o in ops} | set(ops[first(truth, "chien")]["cards"])
    real = truth.operations[k + 1].to_dict()["card"]
    spot = [[300.0, 200.0], [350.0, 200.0], [350.0, 290.0], [300.0, 290.0]]
    wrong = next(code for code in CODES if code not in held and code != real
                 and c.on_event(dataclasses.replace(seen(code), corners=spot))[-1].kind == APPLIED)
    notices = c.on_event(renamed(wrong, real))
    assert notices[-1].kind == APPLIED and notices[-1].text == f"fixed: {wrong} is {real}"
    assert not c.fixed and c.reported[real] == spot  # the tracker knows: it renamed the card

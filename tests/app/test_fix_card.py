"""A card the camera got wrong is fixed where it lies (``fix_card``): the chien or a trick's card
replaced in place, in the log and the state, never re-entered; refused when the deal would not replay."""

import dataclasses

import pytest
from hypothesis import given, settings, strategies as st

from device.app.controller import ALERT, APPLIED
from device.app.fixes import cards_of, fixable, swap_card
from device.app.registry import game_for
from device.app.session import GameSession
from device.games.french_tarot.controller import TarotController
from device.storage.deal_log import DealLog
from engine.cards import CODES
from engine.tarot import random_deal
from tests.app.test_controller import NAMES, play_through, seen


@pytest.fixture
def log(tmp_path):
    with DealLog.open(tmp_path / "log.db") as opened:
        yield opened


def controller_at(log, truth, stop_before):
    session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="t",
                                          first_setup={"dealer": truth.dealer})
    c = TarotController(session)
    play_through(c, truth, stop_before=stop_before)
    return c


def first(truth, kind):
    return next(i for i, op in enumerate(truth.operations) if op.to_dict()["op"] == kind)


def test_a_wrong_chien_card_is_fixed_in_place(log):
    truth = random_deal(4, 5)
    k = first(truth, "chien")
    c = controller_at(log, truth, stop_before=k)
    right = list(truth.operations[k].to_dict()["cards"])
    outside = next(code for code in CODES if code not in right)
    seen_cards = right[:2] + [outside] + right[3:]  # the camera read the third card wrong
    for code in seen_cards:
        c.on_event(seen(code))
    assert c.session.state.operations[k].to_dict()["cards"] == seen_cards
    notices = c.on_decision(("fix_card", k, outside, right[2]))
    assert notices[-1].kind == APPLIED, notices
    assert c.session.state.operations[k].to_dict()["cards"] == right
    assert c.session.log.operations(c.session.deal.id)[k]["cards"] == right  # logged, same position
    assert c.session.operations_count == k + 1  # nothing undone, nothing entered again
    again = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="t")
    assert [op.to_dict() for op in again.state.operations] == [op.to_dict() for op in c.session.state.operations]


def test_a_fix_that_breaks_the_deal_is_refused_and_changes_nothing(log):
    truth = random_deal(4, 5)
    k = first(truth, "play")
    c = controller_at(log, truth, stop_before=k + 3)  # three cards of the first trick played
    before = [op.to_dict() for op in c.session.state.operations]
    played = before[k]["card"]
    later = before[k + 1]["card"]  # a card played after it cannot be played twice
    notices = c.on_decision(("fix_card", k, played, later))
    assert notices[-1].kind == ALERT and "refused" in notices[-1].text
    assert [op.to_dict() for op in c.session.state.operations] == before
    assert c.session.log.operations(c.session.deal.id) == before
    assert c.on_decision(("fix_card", 999, played, later))[-1].kind == ALERT
    assert c.on_decision(("fix_card", k, "T21" if played != "T21" else "T20", later))[-1].kind == ALERT


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_swap_card_replaces_one_card_and_nothing_else(data):
    truth = random_deal(data.draw(st.sampled_from([3, 4, 5])), data.draw(st.integers(0, 500)))
    op = data.draw(st.sampled_from([o for o in truth.operations if cards_of(o)]))
    wrong = data.draw(st.sampled_from(cards_of(op)))
    right = data.draw(st.sampled_from([c for c in CODES if c not in cards_of(op)]))
    fixed = swap_card(op, wrong, right)
    before, after = cards_of(op), cards_of(fixed)
    assert len(before) == len(after) and after[before.index(wrong)] == right
    assert [a for a, b in zip(before, after) if a != b] == [wrong]
    assert {f.name: getattr(fixed, f.name) for f in dataclasses.fields(op) if getattr(op, f.name) != getattr(fixed, f.name)}
    assert swap_card(op, right, wrong) is None  # it holds no ``right``


def test_fixable_lists_the_latest_cards_first():
    truth = random_deal(4, 7)
    ops = list(truth.operations)
    got = fixable(ops, last=2)
    idx = [i for i, o in enumerate(ops) if cards_of(o)]
    assert {i for i, _, _ in got} == set(idx[-2:]) and got[0][0] == idx[-1]
    assert all(seat == getattr(ops[i], "seat", None) for i, _, seat in got)


def test_the_game_menu_fixes_a_card_read_in_a_few_presses():
    from device.games.french_tarot.menus import GameMenu

    assert "Fix a card read" not in [label for label, _ in GameMenu(NAMES).step.options]  # nothing read yet
    flow = GameMenu(NAMES, fixable=[(9, "H03", 1), (8, "S07", 0)])
    labels = [label for label, _ in flow.step.options]
    down, ok = ("down", "press"), ("ok", "press")
    decisions = []
    for _ in range(labels.index("Fix a card read")):
        decisions += flow.handle(down)
    decisions += flow.handle(ok)
    assert [label for label, _ in flow.step.options][0].startswith("Luis: ")  # whose card, the latest first
    decisions += flow.handle(ok)  # the 3 of hearts is wrong; then the category (trumps first), then the card
    categories = [label for label, _ in flow.step.options]
    decisions += flow.handle(down)  # past the trumps: the first suit
    while not decisions:
        decisions += flow.handle(ok)
    (decision,) = decisions
    assert decision[:3] == ("fix_card", 9, "H03") and decision[3] != "H03" and len(categories) >= 5
    assert "Rectifier une carte lue" in [label for label, _ in GameMenu(NAMES, lang="fr", fixable=[(0, "EX", 0)]).step.options]


def test_correct_a_card_offers_only_the_cards_that_can_still_be_played(log):
    """A card the camera missed, entered from "Correct a card": a card already played is not
    offered (the engine would refuse it), and the lists are shorter as the deal goes on."""
    from types import SimpleNamespace

    from device.demo.presses import events_for, presses_for
    from device.games.french_tarot.menus import GameMenu, TarotMenus

    truth = random_deal(4, 5)
    ops = [op.to_dict() for op in truth.operations]
    k = [i for i, d in enumerate(ops) if d["op"] == "play"][60]  # late in the deal
    c = controller_at(log, truth, k)
    app = SimpleNamespace(session=c.session, controller=c, lang="en", style="french")
    factory = lambda: TarotMenus.ok_menu(app)  # noqa: E731
    played = ops[k - 1]["card"]
    assert events_for(factory, ("correct_card", played)) is None
    missed = ops[k]["card"]
    events = events_for(factory, ("correct_card", missed))
    assert events is not None
    flow = factory()
    for event in events:
        decisions = flow.handle(event)
    assert decisions == [("correct_card", missed)]
    assert c.on_decision(decisions[0])[-1].kind == APPLIED
    every = presses_for(lambda: GameMenu(NAMES), ("correct_card", missed))
    assert len(events) <= every


SPOT = [[300.0, 200.0], [350.0, 200.0], [350.0, 290.0], [300.0, 290.0]]


def test_a_card_fixed_where_the_camera_saw_it_is_told_to_the_tracker_there(log):
    truth = random_deal(4, 5)
    k = first(truth, "play")
    c = controller_at(log, truth, stop_before=k + 1)  # the first card of the first trick played
    ops = [op.to_dict() for op in c.session.state.operations]
    held = {o.get("card") for o in ops} | set(ops[first(truth, "chien")]["cards"])
    real = truth.operations[k + 1].to_dict()
    wrong = next(code for code in CODES if code not in held and code != real["card"]
                 and c.on_event(dataclasses.replace(seen(code), corners=SPOT))[-1].kind == APPLIED)
    assert c.reported[wrong] == SPOT and not c.fixed
    assert c.on_decision(("fix_card", k + 1, wrong, real["card"]))[-1].kind == APPLIED
    assert c.fixed == [(SPOT, wrong, real["card"])]  # the tracker: the card seen there as ``wrong`` is the real one
    assert wrong not in c.reported and c.reported[real["card"]] == SPOT
    # the trick's first card came without corners (as a card entered by hand): where it lies is not
    # known, so its fix tells the tracker nothing
    c.fixed.clear()
    assert ops[k]["card"] not in c.reported
    c.on_decision(("fix_card", k, ops[k]["card"], wrong))
    assert not c.fixed


def test_where_the_cards_were_seen_is_forgotten_with_the_deal(log):
    truth = random_deal(4, 5)
    c = controller_at(log, truth, stop_before=len(truth.operations))
    c.reported["H07"] = SPOT
    assert c.session.deal_over
    assert c.on_decision(("new_deal",))[-1].kind == APPLIED
    assert c.reported == {}  # a card fixed in the next deal is never looked for where this one lay

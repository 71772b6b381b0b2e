"""Trivium: a card the camera never saw is entered from the OLED's menu ("Card not seen…"):
where it lies (a seat laying a tercia first, with the cards seen of it), then which card; a
tercia showing two cards offers the cards that make them 21 first. The winning tercia, after
which nothing else is played, is the case no later card can reveal."""

from types import SimpleNamespace

import pytest

from device.app.controller import ALERT, APPLIED
from device.app.flows import Flow
from device.app.registry import game_for
from device.app.session import GameSession
from device.demo.presses import events_for
from device.games.trivium.controller import TriviumController
from device.games.trivium.menus import TriviumMenu, TriviumMenus
from device.storage.deal_log import DealLog
from engine.cards import CODES
from engine.trivium import random_game, table_view
from engine.trivium.combinations import completions
from tests.app.test_controller import trivium_step
from vision.events import TableEvent

NAMES = ["Ana", "Luis", "Marta", "Pau"]
ENDS_WITH_A_TERCIA = (1, 2, 7, 12)  # seeds whose game is won by laying the third tercia


@pytest.fixture
def log(tmp_path):
    with DealLog.open(tmp_path / "log.db") as opened:
        yield opened


def seen(code, zone="middle"):
    return TableEvent("appeared", 0, 0.0, zone, code)


def played(log, seed, upto=None):
    """Seed ``seed``'s game played, every card seen, up to operation ``upto`` (None: all but
    the last); returns the controller and the operations."""
    controller = TriviumController(GameSession.resume_or_start(log, game_for("trivium"), NAMES, label="t"))
    ops = [op.to_dict() for op in table_view(random_game(NAMES, seed))]
    for d in ops[:len(ops) - 1 if upto is None else upto]:
        notices = trivium_step(controller, d, lay_whole)
        assert notices[-1].kind == APPLIED, (d, notices)
    return controller, ops


def lay_whole(controller, d):
    """Every card of the tercia ``d`` seen in its seat's zone; the last notices."""
    for code in d["cards"]:
        notices = controller.on_event(seen(code, f"seat{d['seat'] + 1}"))
    return notices


def until_the_last_tercia(log, seed):
    """Seed ``seed``'s game played to its last operation (a tercia); the controller and it."""
    controller, ops = played(log, seed)
    assert ops[-1]["op"] == "lay_tercia"
    return controller, ops[-1]


def menu_of(controller):
    app = SimpleNamespace(session=controller.session, controller=controller, lang="en", style="french")
    return lambda: TriviumMenus.ok_menu(app)


def press(factory, events):
    flow: Flow = factory()
    decisions = []
    for event in events:
        decisions = flow.handle(event)
    return flow, decisions


@pytest.mark.parametrize("seed", ENDS_WITH_A_TERCIA)
@pytest.mark.parametrize("seen_count", [0, 1, 2])
def test_the_winning_tercia_seen_short_is_completed_from_the_menu(log, seed, seen_count):
    controller, tercia = until_the_last_tercia(log, seed)
    seat, cards = tercia["seat"], tercia["cards"]
    for code in cards[:seen_count]:
        controller.on_event(seen(code, f"seat{seat + 1}"))
    session = controller.session
    assert not session.deal_over  # nothing else will be played: only the players can say
    for code in cards[seen_count:]:
        factory = menu_of(controller)
        events = events_for(factory, ("lay_card", seat, code), depth=4)
        assert events is not None, code
        _, decisions = press(factory, events)
        assert decisions == [("lay_card", seat, code)]
        notices = controller.on_decision(decisions[0])
    assert notices[-1].kind == APPLIED and session.deal_over
    truth = random_game(NAMES, seed)
    assert list(session.state.scores) == list(truth.scores) and session.state.winner == truth.winner


@pytest.mark.parametrize("seed", ENDS_WITH_A_TERCIA)
def test_a_tercia_showing_two_cards_offers_the_cards_that_make_21_first(log, seed):
    controller, tercia = until_the_last_tercia(log, seed)
    seat, cards = tercia["seat"], tercia["cards"]
    for code in cards[:2]:
        controller.on_event(seen(code, f"seat{seat + 1}"))
    flow = menu_of(controller)()
    items = [label for label, _ in flow.step.options]
    flow.step.selected = items.index("Card not seen…")
    flow.handle(("ok", "press"))
    places = flow.step.options
    assert places[0] == (f"{NAMES[seat]}: {cards[0]} {cards[1]}…", seat)  # the seat laying, first
    assert ("The olla: a discard", "olla") in places
    flow.handle(("ok", "press"))
    fits = controller.completing(seat)
    assert cards[2] in fits and set(fits) <= set(completions(cards[:2], [c for c in controller.free_cards()]))
    offered = [value for _, value in flow.step.options]
    assert offered[:len(fits)] == [f"card:{c}" for c in fits]  # by name, before the suits
    # the card missed costs at most OK, the item, OK, OK, its place in the list, OK
    assert len(events_for(menu_of(controller), ("lay_card", seat, cards[2]))) <= 4 + 1 + len(fits)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_missed_discard_is_entered_on_the_olla(log, seed):
    ops = [op.to_dict() for op in table_view(random_game(NAMES, seed))]
    k = max(i for i, d in enumerate(ops) if d["op"] == "draw_from_pozo")
    controller, _ = played(log, seed, upto=k)
    factory = menu_of(controller)
    events = events_for(factory, ("correct_card", ops[k]["discard"]))
    _, decisions = press(factory, events)
    assert decisions == [("correct_card", ops[k]["discard"])]
    notices = controller.on_decision(decisions[0])
    assert notices[-1].kind == APPLIED and controller.session.state.operations[-1].to_dict() == ops[k]


def test_cards_not_seen_offers_only_cards_whose_place_is_unknown(log):
    controller, tercia = until_the_last_tercia(log, 2)
    seat = tercia["seat"]
    controller.on_event(seen(tercia["cards"][0], f"seat{seat + 1}"))
    free = controller.free_cards()
    where = controller.session.state.state.located()
    assert tercia["cards"][0] not in free and tercia["cards"][1] in free
    assert not any(where.get(c, ("", None))[0] in ("olla", "laid") for c in free)
    # a card already laid cannot be entered again: no button sequence reaches it
    laid = next(c for c, (place, _) in where.items() if place == "laid")
    assert events_for(menu_of(controller), ("lay_card", seat, laid)) is None


@pytest.mark.parametrize("decision", [("lay_card", 9, "S05"), ("lay_card", -1, "S05"), ("lay_card", "1", "S05"),
                                      ("lay_card", 0, "ZZ"), ("lay_card", True, "S05")])
def test_a_card_laid_by_hand_needs_a_seat_and_a_card(log, decision):
    controller, _ = until_the_last_tercia(log, 1)
    before = (len(controller.session.state.operations), dict(controller.groups))
    notices = controller.on_decision(decision)
    assert notices[-1].kind == ALERT
    assert (len(controller.session.state.operations), dict(controller.groups)) == before


def test_the_menu_lists_the_seats_laying_first_then_the_olla_then_the_others():
    game = random_game(NAMES, 1)  # only its to_play is read here
    menu = TriviumMenu(game, NAMES, laying={2: ("S06",), 0: ()}, completing={2: ()}, free=None)
    menu.step.selected = [label for label, _ in menu.step.options].index("Card not seen…")
    menu.handle(("ok", "press"))
    assert [value for _, value in menu.step.options] == [2, "olla", 0, 1, 3]
    assert menu.step.options[0][0] == "Marta: S06…"


def test_the_demo_prices_each_trivium_decision_on_the_menus(tmp_path):
    """The scripted player's presses are those of the real menus: a card not seen, the
    declaration (its cards then shown to the camera) and who starts."""
    from device.demo.presses import price

    def app_of(controller):
        return SimpleNamespace(session=controller.session, controller=controller, lang="en", style="french")

    with DealLog.open(tmp_path / "a.db") as log:
        controller, tercia = until_the_last_tercia(log, 1)
        assert price(app_of(controller), ("lay_card", tercia["seat"], tercia["cards"][0])) >= 4
    with DealLog.open(tmp_path / "b.db") as log:
        declared, ops = played(log, 4)
        assert ops[-1]["op"] == "declare"
        assert price(app_of(declared), ("declare", ops[-1]["seat"], tuple(ops[-1]["cards"]))) >= 2
    with DealLog.open(tmp_path / "c.db") as log:
        starting = TriviumController(GameSession.resume_or_start(log, game_for("trivium"), NAMES, label="s"))
        assert price(app_of(starting), ("deal", 2)) == 3  # "Who starts?": down twice, OK


@pytest.mark.parametrize("seed", ENDS_WITH_A_TERCIA)
def test_a_card_of_a_tercia_read_wrong_is_fixed_where_it_lies(log, seed):
    """A tercia's card read as another that also makes 21 (the tercia is valid, so the rules
    say nothing): "Fix a card read", the card, then the right one, offered first among the
    cards that make the other two 21. The tercia is replaced in place, the game replays."""
    controller, ops = played(log, seed)
    index = max(i for i, d in enumerate(ops[:-1]) if d["op"] == "lay_tercia")
    seat, cards = ops[index]["seat"], ops[index]["cards"]
    session = controller.session
    while len(session.state.operations) > index:  # back to that tercia, then read with a wrong card
        session.undo()
    controller.reset_collections()
    others = list(cards[:2])
    wrong = next(c for c in completions(others, controller.free_cards()) if c not in (cards[2], "EX"))
    for code in [*others, wrong]:
        notices = controller.on_event(seen(code, f"seat{seat + 1}"))
    assert notices[-1].kind == APPLIED, notices
    factory = menu_of(controller)
    flow = factory()
    assert "Fix a card read" in [label for label, _ in flow.step.options]
    events = events_for(factory, ("fix_card", index, wrong, cards[2]))
    assert events is not None
    flow, decisions = press(factory, events)
    assert decisions == [("fix_card", index, wrong, cards[2])]
    right_step = flow.steps[-1]  # the right card: the cards that make the other two 21 first
    assert f"card:{cards[2]}" in [value for _, value in right_step.options[:len(completions(others, CODES))]]
    notices = controller.on_decision(decisions[0])
    assert notices[-1].kind == APPLIED
    assert session.state.operations[index].to_dict() == ops[index]
    again = GameSession.resume_or_start(log, game_for("trivium"), NAMES, label="t")
    assert [op.to_dict() for op in again.state.operations] == [op.to_dict() for op in session.state.operations]


def test_the_table_screen_shows_the_cards_seen_of_a_tercia_being_laid(log):
    """The seat's next box fills by thirds with the cards seen of a tercia being laid, and the
    bottom line names them in turn with the Loco: a card that never comes is noticed."""
    import dataclasses

    from device.games.trivium.screens import game_view
    from device.screens import render
    from device.screens.draw import ROTATE_TICKS

    controller, tercia = until_the_last_tercia(log, 1)
    seat, cards = tercia["seat"], tercia["cards"]
    app = SimpleNamespace(session=controller.session, controller=controller, lang="en", style="french")
    images = []
    for code in cards[:2]:
        controller.on_event(seen(code, f"seat{seat + 1}"))
        view = game_view(app)
        assert [s.laying for s in view.seats] == [tuple(cards[:len(images) + 1]) if i == seat else ()
                                                  for i in range(len(NAMES))]
        images.append(render(view, tick=ROTATE_TICKS).tobytes())
    plain = dataclasses.replace(view, seats=tuple(dataclasses.replace(s, laying=()) for s in view.seats))
    assert len({*images, render(plain, tick=ROTATE_TICKS).tobytes()}) == 3

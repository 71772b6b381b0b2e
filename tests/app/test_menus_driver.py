"""The buttons drive the menu the game's state asks for."""

import pytest

from device.app import TableApp
from device.menus_driver import MenuDriver
from device.rules import TarotRules, TriviumRules
from device.session import GameSession
from device.store import DealLog
from engine.tarot import random_deal
from vision.events import TableEvent

NAMES = ["Ana", "Luis", "Marta", "Pau"]
OK, DOWN = ("ok", "press"), ("down", "press")


@pytest.fixture
def log(tmp_path):
    with DealLog.open(tmp_path / "log.db") as opened:
        yield opened


def app_for(log, rules, **setup):
    session = GameSession.resume_or_start(log, rules, NAMES, label="m", first_setup=setup)
    app = TableApp(session)
    driver = MenuDriver(app)
    app.hooks.append(driver.sync)
    return app, driver


def test_bidding_resumes_in_the_menu_after_a_restart(log):
    truth = random_deal(4, 2)
    app, driver = app_for(log, TarotRules(), dealer=truth.dealer)
    first_seat, first_bid = truth.bids[0]
    app.on_decision(("bid", first_seat, first_bid))
    # a new driver (as after a restart) asks the next seat, not the first one again
    driver = MenuDriver(app)
    assert driver.flow.seat_to_bid() == truth.bids[1][0]
    driver.on_button(OK)  # the first option is "pass"
    assert app.session.state.bids[-1] == (truth.bids[1][0], "pass")


def test_uncertain_card_opens_the_confirmation(log):
    truth = random_deal(4, 3)
    app, driver = app_for(log, TarotRules(), dealer=truth.dealer)
    for op in truth.operations:
        if op.to_dict()["op"] == "play":
            break
        app.session.apply(op)
    card = truth.tricks[0].cards[0]
    app.on_events([TableEvent("uncertain", 1, 0.1, "middle", candidates=[(card, 0.5), ("H01", 0.2)])])
    assert type(driver.flow).__name__ == "ConfirmCardFlow"
    assert app.current_view().card == card
    driver.on_button(OK)
    assert app.session.state.current_trick.cards == (card,)
    assert not app.controller.pending


def test_game_menu_undo(log):
    app, driver = app_for(log, TarotRules(), dealer=0)
    app.on_decision(("bid", 1, "pass"))
    assert driver.flow is not None  # the bidding menu is open
    driver.flow = None
    driver.on_button(OK)  # OK with nothing open: the game menu; its first item is undo
    assert type(driver.flow).__name__ == "GameMenu"
    driver.on_button(OK)
    assert app.session.state.bids == ()


def test_trivium_who_starts_and_the_olla(log):
    app, driver = app_for(log, TriviumRules(), dealer=0)
    assert driver.flow is not None and app.current_view().title == "Who starts?"
    driver.on_button(DOWN)
    driver.on_button(OK)
    assert app.session.state.to_play == 1
    driver.on_button(OK)  # the Trivium menu
    driver.on_button(DOWN)  # "From the olla"
    driver.on_button(OK)
    assert app.controller.exchange_from == "olla"
    assert driver.flow is None

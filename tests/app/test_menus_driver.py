"""The buttons drive the menu the game's state asks for."""

import pytest

from device.app.table import TableApp
from device.app.menu_driver import MenuDriver
from device.games.registry import game_for
from device.app.session import GameSession
from device.storage.deal_log import DealLog
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
    app, driver = app_for(log, game_for("french-tarot"), dealer=truth.dealer)
    first_seat, first_bid = truth.bids[0]
    app.on_decision(("bid", first_seat, first_bid))
    # a new driver (as after a restart) asks the next seat, not the first one again
    driver = MenuDriver(app)
    assert driver.flow.seat_to_bid() == truth.bids[1][0]
    driver.on_button(OK)  # the first option is "pass"
    assert app.session.state.bids[-1] == (truth.bids[1][0], "pass")


def test_uncertain_card_opens_the_confirmation(log):
    truth = random_deal(4, 3)
    app, driver = app_for(log, game_for("french-tarot"), dealer=truth.dealer)
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
    app, driver = app_for(log, game_for("french-tarot"), dealer=0)
    app.on_decision(("bid", 1, "pass"))
    assert driver.flow is not None  # the bidding menu is open
    driver.flow = None
    driver.on_button(OK)  # OK with nothing open: the game menu; its first item is undo
    assert type(driver.flow).__name__ == "GameMenu"
    driver.on_button(OK)
    assert app.session.state.bids == ()


def test_trivium_who_starts_and_the_olla(log):
    app, driver = app_for(log, game_for("trivium"), dealer=0)
    assert driver.flow is not None and app.current_view().title == "Who starts?"
    driver.on_button(DOWN)
    driver.on_button(OK)
    assert app.session.state.to_play == 1
    driver.on_button(OK)  # the Trivium menu
    driver.on_button(DOWN)  # "From the olla"
    driver.on_button(OK)
    assert app.controller.exchange_from == "olla"
    assert driver.flow is None


def test_ok_says_ecart_done_then_opens_the_end_of_deal_choices(log):
    truth = next(d for d in (random_deal(4, s) for s in range(1, 60)) if d.contract in ("prise", "garde"))
    app, driver = app_for(log, game_for("french-tarot"), dealer=truth.dealer)
    ops = list(truth.operations)
    for op in ops[: len(truth.bids) + 1]:  # the bids and the chien
        app.session.apply(op)
    driver.sync()
    assert driver.flow is None and app.session.state.phase == "ecart"
    driver.on_button(OK)
    assert app.session.state.phase == "play" and app.session.state.ecart is None  # écart made, unseen
    for op in ops[len(truth.bids) + 2:]:
        if op.to_dict()["op"] == "play":
            assert app.on_decision(("card", op.card))[-1].kind == "applied"
        else:
            app.session.apply(op)
    assert app.session.state.phase == "done"
    assert type(app.current_view()).__name__ == "DealEndView"  # the result shows until OK
    driver.on_button(OK)
    assert app.current_view().items == ("New deal", "End the game")
    driver.on_button(OK)  # "New deal"
    assert app.session.deal.number == 2 and type(driver.flow).__name__ == "BiddingFlow"
    assert log.deals(app.session.game.id)[0].scores == list(truth.result().scores)

"""A misdeal from the device's menu: the deal is cancelled (kept in the log,
no score) and the same dealer deals again; the deals after it rotate from there."""

import pytest

from device.app.menu_driver import MenuDriver
from device.app.session import GameSession
from device.app.table import TableApp
from device.games.french_tarot.menus import GameMenu
from device.app.registry import game_for
from device.storage.deal_log import DealLog
from engine.tarot import next_dealer

NAMES = ["Ana", "Luis", "Marta", "Pau"]
OK, DOWN = ("ok", "press"), ("down", "press")


@pytest.fixture
def log(tmp_path):
    with DealLog.open(tmp_path / "log.db") as opened:
        yield opened


def test_the_game_menu_offers_a_misdeal():
    flow = GameMenu(NAMES)
    labels = [label for label, _ in flow.step.options]
    assert "Misdeal" in labels
    decisions = []
    for _ in range(labels.index("Misdeal")):
        decisions += flow.handle(DOWN)
    decisions += flow.handle(OK)  # "Same dealer again?" No / Yes
    decisions += flow.handle(DOWN) + flow.handle(OK)
    assert decisions == [("misdeal",)]
    assert "Maldonne" in [label for label, _ in GameMenu(NAMES, lang="fr").step.options]


def test_a_misdeal_keeps_the_dealer_and_the_rotation_goes_on_from_it(log):
    session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="t", first_setup={"dealer": 2})
    app = TableApp(session)
    MenuDriver(app)
    app.on_decision(("bid", 3, "pass"))
    notices = app.on_decision(("misdeal",))
    assert "Marta deals again" in notices[0].text
    deals = log.deals(session.game.id)
    assert [d.setup["dealer"] for d in deals] == [2, 2] == [2, next_dealer(2, 4, misdeal=True)]
    assert deals[0].finished is not None and deals[0].scores is None  # kept, no score
    assert session.state.dealer == 2 and session.state.operations == ()
    for seat in (3, 0, 1, 2):  # everybody passes: the next player deals
        app.on_decision(("bid", seat, "pass"))
    app.on_decision(("new_deal",))
    assert session.deal.setup["dealer"] == 3 == next_dealer(2, 4)


def test_the_check_card_screen_says_whose_card_and_where(log):
    from engine.tarot import random_deal
    from vision.events import TableEvent

    truth = random_deal(4, 3)
    session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="c",
                                          first_setup={"dealer": truth.dealer})
    app = TableApp(session)
    driver = MenuDriver(app)
    app.hooks.append(driver.sync)
    for op in truth.operations:
        if op.to_dict()["op"] == "play":
            break
        session.apply(op)
    card = truth.tricks[0].cards[0]
    app.on_events([TableEvent("uncertain", 1, 0.1, "middle", candidates=[(card, 0.5), ("H01", 0.2)])])
    view = app.current_view()
    assert view.seat == NAMES[truth.tricks[0].leader] and view.trick == 1 and view.place == "trick"

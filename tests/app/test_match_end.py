"""A game of several deals ends on the device: a Michelsen French tarot game
to 1000 and a Trivium match to a target, with the right winner, from a fresh
start and after ``kill -9`` at a random operation."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from device.app.flows import ChoiceFlow
from device.app.menu_driver import MenuDriver
from device.app.session import GameSession
from device.app.table import TableApp
from device.app.registry import game_for
from device.screens.views import GameOverView
from device.storage.deal_log import DealLog
from engine.match import Match

ROOT = Path(__file__).resolve().parents[2]
NAMES = {"french-tarot": ["Ana", "Luis", "Marta", "Pau"], "trivium": ["Ana", "Luis", "Marta"]}
OPTIONS = {"french-tarot": {"game_target": 1000}, "trivium": {}}  # Michelsen: play to 1000
SETUP = {"french-tarot": {"dealer": 1}, "trivium": {"dealer": 0, "target": 120}}
KILL_AT = {"french-tarot": (37, 61), "trivium": (9, 14)}  # operations applied before each kill


def truth(kind: str, number: int, dealer: int):
    """The truth of deal ``number``: a random legal deal (or bot game) and its operations as the table sees them."""
    if kind == "french-tarot":
        from engine.tarot import TarotOptions, random_deal

        deal = random_deal(4, 500 + number, dealer=dealer, poignee_rate=0.5,
                           options=TarotOptions.from_dict(OPTIONS[kind]))
        return [op.to_dict() for op in deal.operations], list(deal.scores)
    from engine.trivium import random_game, table_view

    game = random_game(NAMES[kind], 700 + number)
    return [op.to_dict() for op in table_view(game)], list(game.scores)


def expected_match(kind: str) -> Match:
    """The same game summed by the engine alone, deal after deal until its target."""
    match = Match(len(NAMES[kind]), first_dealer=SETUP[kind]["dealer"],
                  target=OPTIONS[kind].get("game_target") or SETUP[kind].get("target"))
    while not match.is_over():
        _, scores = truth(kind, match.deals + 1, match.dealer)
        match.add(scores)
    return match


def play(path: str, kind: str, kill_at: int | None = None) -> TableApp:
    """Play the game on the device's stack (deal log, session, controller, menus,
    table app) until its end; with ``kill_at``, SIGKILL this process at that operation."""
    log = DealLog.open(path)
    session = GameSession.resume_or_start(log, game_for(kind), NAMES[kind], OPTIONS[kind], label="device",
                                          first_setup=SETUP[kind])
    app = TableApp(session)
    menus = MenuDriver(app)
    app.hooks.append(menus.sync)
    applied = 0
    while not session.match_over:
        ops, _ = truth(kind, session.deal.number, session.deal.setup["dealer"])
        done = len(session.state.operations)
        if done < len(ops):
            notices = app.controller.apply(session.rules.op_from_dict(ops[done]), "the table")
            assert notices[0].kind == "applied", notices[0].text
            menus.sync()  # as after a table event: the menu follows the state
            applied += 1
            if applied == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
        else:
            app.on_decision(("new_deal",))
    return app


def check_the_end(app: TableApp, kind: str) -> None:
    if app.session.deal.finished is None:
        assert not isinstance(app.current_view(), GameOverView)  # the last deal's own end first
        notices = app.on_decision(("new_deal",))  # OK, "New deal": the deal is closed, the game is over
        assert "game over" in notices[0].text
    expected = expected_match(kind)
    match = app.session.match
    assert match.is_over() and match.totals == expected.totals and match.deals == expected.deals
    assert match.winner == expected.winner
    view = app.current_view()
    assert isinstance(view, GameOverView) and view.winner == expected.winner
    assert view.totals == tuple(round(t) for t in expected.totals)
    menu = MenuDriver(app).ok_menu()
    assert isinstance(menu, ChoiceFlow) and menu.view().items[0] == "New game"
    notices = app.on_decision(("new_deal",))  # no next deal once the game is over
    assert "game over" in notices[0].text and app.session.match_over


@pytest.mark.parametrize("kind", ["french-tarot", "trivium"])
def test_the_game_ends_at_its_target_with_the_right_winner(tmp_path, kind):
    app = play(str(tmp_path / "log.db"), kind)
    check_the_end(app, kind)
    app.on_decision(("end_game",))  # OK on "New game": the game is closed, a new one starts
    assert not app.session.match_over and app.session.deal.number == 1 and app.session.match.deals == 0


@pytest.mark.parametrize("kind", ["french-tarot", "trivium"])
def test_kill_9_then_resume_ends_the_same(tmp_path, kind):
    path = str(tmp_path / "log.db")
    code = f"from tests.app.test_match_end import play; play({path!r}, {kind!r}, kill_at={{}})"
    for kill_at in KILL_AT[kind]:  # twice, at operations of different deals
        proc = subprocess.run([sys.executable, "-c", code.format(kill_at)], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == -signal.SIGKILL, proc.stderr
    app = play(path, kind)
    check_the_end(app, kind)
    app.session.log.close()  # one writer at a time, also within a process
    # started again once over: the end is shown again, from the log alone
    again = play(path, kind)
    check_the_end(again, kind)


def test_the_configured_target_goes_with_the_first_deal_into_the_log():
    from device.app.loop import first_setup
    from device.config import config_from_dict

    assert first_setup(config_from_dict({"game": {"kind": "trivium", "target": 150, "dealer": 2}})) == \
        {"dealer": 2, "target": 150}
    assert first_setup(config_from_dict({})) == {"dealer": 0}

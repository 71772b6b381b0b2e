"""The controllers' decisions are declared (@decides) and checked against the handler's signature before it
runs: a malformed decision is an alert naming the argument; an error inside a handler stays an error."""

from __future__ import annotations

import pytest

from device.app.controller import ALERT, APPLIED, INFO
from device.app.decisions import MalformedDecision, decides, handlers_of
from device.app.registry import game_for
from device.app.session import GameSession
from device.games.french_tarot.controller import TarotController
from device.games.trivium.controller import TriviumController
from device.storage.deal_log import DealLog

NAMES = ["Ana", "Luis", "Marta", "Pau"]


@pytest.fixture
def session(tmp_path):
    with DealLog.open(tmp_path / "log.db") as log:
        yield GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="t",
                                          first_setup={"dealer": 3})


@pytest.mark.parametrize("decision, argument, problem", [
    (("bid", "Ana", "garde"), "seat", "expected int, got 'Ana'"),
    (("bid", True, "garde"), "seat", "expected int, got True"),
    (("bid", 0), "arguments", "expected 2 (seat, bid), got 1"),
    (("bid", 0, "garde", "extra"), "arguments", "expected 2 (seat, bid), got 3"),
    (("chien", "T01 T02"), "cards", "expected tuple or list, got 'T01 T02'"),
    (("poignee", 0, "simple", 7), "shown", "expected tuple or list or nothing, got 7"),
])
def test_a_malformed_decision_is_an_alert_naming_the_argument_and_changes_nothing(session, decision, argument,
                                                                                 problem):
    controller = TarotController(session)
    notices = controller.on_decision(decision)
    assert [n.kind for n in notices] == [ALERT]
    assert notices[0].text == f"decision {decision!r} is malformed ({argument}: {problem})"
    assert session.operations_count == 0


def test_a_well_formed_decision_reaches_its_handler(session):
    controller = TarotController(session)
    seat = session.state.to_speak
    notices = controller.on_decision(("bid", seat, "pass"))
    assert [n.kind for n in notices] == [APPLIED] and session.operations_count == 1
    assert controller.on_decision(("undo", "from the menu"))[0].kind == APPLIED  # ``*_``: extra arguments ignored
    assert controller.on_decision(("exchange", "pozo"))[0].kind == INFO  # a Trivium decision: no meaning here


def test_an_error_inside_a_handler_is_not_taken_for_a_malformed_decision(session):
    class Broken(TarotController):
        @decides("bid")
        def _decide_bid(self, seat: int, bid: str):
            return len(None)  # a bug: TypeError inside the handler

    with pytest.raises(TypeError):
        Broken(session).on_decision(("bid", 0, "pass"))


def test_each_game_declares_its_own_decisions_over_the_shared_ones():
    tarot, trivium = handlers_of(TarotController), handlers_of(TriviumController)
    shared = {"confirm_card", "correct_card", "card", "reject_card", "cancel", "undo", "new_deal", "end_game"}
    assert shared <= set(tarot) and shared <= set(trivium)
    assert {"bid", "chien", "ecart", "poignee"} <= set(tarot) - set(trivium)
    assert {"deal", "exchange", "steal", "declare", "op"} <= set(trivium) - set(tarot)
    assert tarot["card"].method == "_decide_card" and [p.name for p in trivium["deal"].params] == ["starter", "dealer"]
    with pytest.raises(MalformedDecision, match="deal: starter: expected int, got None"):
        trivium["deal"].check((None,))

"""A trick's card on the side of a player still to play, while another is to play: the card of
the player to play was missed, and taking this one for it would score two wrong cards. The
table asks for the missed card and takes the seen one after the answer."""

import pytest

from device.app.controller import APPLIED, CONFIRM, INFO, SKIPPED_CARD
from device.app.registry import game_for
from device.app.session import GameSession
from device.games.french_tarot.controller import TarotController
from device.storage.deal_log import DealLog
from engine.tarot import random_deal
from tests.app.test_controller import NAMES, play_through
from vision.events import TableEvent


def laid(card, seat, kind="appeared", candidates=()):
    """``card`` seen in the middle on the side of engine seat ``seat`` (zone seat ``seat + 1``)."""
    return TableEvent(kind, 0, 0.0, "middle", card, candidates=list(candidates), toward=seat + 1)


@pytest.fixture
def at_first_trick(tmp_path):
    truth = random_deal(4, 8)
    with DealLog.open(tmp_path / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="t",
                                              first_setup={"dealer": truth.dealer})
        controller = TarotController(session)
        first_play = next(i for i, op in enumerate(truth.operations) if op.to_dict()["op"] == "play")
        play_through(controller, truth, stop_before=first_play)
        yield controller, truth.tricks[0], first_play


def applied(notices):
    return [(n.seat, n.card) for n in notices if n.kind == APPLIED]


def test_a_card_on_a_later_players_side_asks_for_the_missed_card_first(at_first_trick):
    controller, trick, start = at_first_trick
    leader = trick.leader
    first, second, third = trick.cards[:3]
    notices = controller.on_event(laid(second, (leader + 1) % 4))  # the leader's card was never seen
    assert notices[-1].kind == CONFIRM and NAMES[leader] in notices[-1].text and second in notices[-1].text
    assert controller.session.operations_count == start
    assert controller.pending[0].reason == SKIPPED_CARD and controller.pending[0].seat == leader
    assert controller.asked[-1] == SKIPPED_CARD and len(controller.asked) == controller.prompts
    assert first in controller.pending[0].possible
    # what the camera sees meanwhile waits too
    assert "waits" in controller.on_event(laid(third, (leader + 2) % 4))[-1].text
    notices = controller.on_decision(("correct_card", first))
    assert applied(notices) == [(leader, first), ((leader + 1) % 4, second), ((leader + 2) % 4, third)]
    assert not controller.pending and not controller.held


def test_a_missed_card_named_as_the_seen_one_makes_it_the_players_card(at_first_trick):
    """The player laid it on a neighbour's side: naming the seen card gives it to the player to play."""
    controller, trick, start = at_first_trick
    leader = trick.leader
    first = trick.cards[0]
    controller.on_event(laid(first, (leader + 2) % 4))
    notices = controller.on_decision(("correct_card", first))
    assert applied(notices) == [(leader, first)]
    assert any(n.kind == INFO and "already in this trick" in n.text for n in notices)
    assert not controller.pending and not controller.held


def test_a_dismissed_question_takes_the_card_for_the_player_to_play(at_first_trick):
    controller, trick, start = at_first_trick
    leader = trick.leader
    second = trick.cards[1]
    controller.on_event(laid(second, (leader + 1) % 4))
    notices = controller.on_decision(("reject_card",))
    assert not any(n.kind == CONFIRM for n in notices), "the same question again"
    assert controller.session.operations_count == start + 1  # taken as it came: the leader's
    assert not controller.pending and not controller.held


def test_no_question_on_the_players_own_side_a_played_seats_side_or_without_sides(at_first_trick):
    controller, trick, start = at_first_trick
    leader = trick.leader
    first, second, third, fourth = trick.cards
    assert applied(controller.on_event(laid(first, leader))) == [(leader, first)]
    # on the side of a seat that has played: no clue, taken for the seat to play
    assert applied(controller.on_event(laid(second, leader))) == [((leader + 1) % 4, second)]
    controller.seat_sides = False
    assert applied(controller.on_event(laid(third, (leader + 3) % 4))) == [((leader + 2) % 4, third)]
    controller.seat_sides = True
    untold = TableEvent("appeared", 0, 0.0, "middle", fourth)  # no side known
    assert applied(controller.on_event(untold)) == [((leader + 3) % 4, fourth)]


def test_an_unclear_card_on_a_later_side_asks_for_the_missed_card_then_for_itself(at_first_trick):
    controller, trick, start = at_first_trick
    leader = trick.leader
    first, second = trick.cards[:2]
    controller.on_event(laid(None, (leader + 1) % 4, "uncertain", [(second, 0.5)]))
    assert controller.pending[0].reason == SKIPPED_CARD
    notices = controller.on_decision(("correct_card", first))
    assert applied(notices) == [(leader, first)]
    assert notices[-1].kind == CONFIRM and controller.pending[0].best == second
    assert applied(controller.on_decision(("confirm_card", second))) == [((leader + 1) % 4, second)]

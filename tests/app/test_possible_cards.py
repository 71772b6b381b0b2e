"""The game helps the camera: possible cards from the engine's state, questions about them, tricks with a size."""

import pytest

from device.app.controller import APPLIED, CONFIRM, INFO
from device.app.flows import ConfirmCardFlow
from engine.cards import CODES
from engine.tarot import random_deal
from vision.events import TableEvent

from .test_controller import first_deal_with, log, play_through, seen, tarot  # noqa: F401 - the fixture


def plays(truth):
    return [i for i, op in enumerate(truth.operations) if op.to_dict()["op"] == "play"]


def test_cards_already_played_are_impossible_and_the_rest_possible(log):
    truth = random_deal(4, 11)
    controller = tarot(log, truth)
    at = plays(truth)[6]  # trick 2, third card
    play_through(controller, truth, stop_before=at)
    possible = controller.possible_cards()
    played = set(controller.session.state.played)
    assert played and not played & set(possible)
    assert truth.operations[at].card in possible
    assert len(possible) <= 78 - len(played)


def test_a_proven_void_makes_a_suit_unlikely_never_impossible(log):
    # find a deal where a seat fails to follow suit, then look at its next turn
    for seed in range(1, 80):
        truth = random_deal(4, seed)
        controller = None
        for i in plays(truth):
            d = truth.operations[i].to_dict()
            trick = (plays(truth).index(i)) // 4
            cards = truth.tricks[trick].cards
            led = cards[0][0] if cards[0] != "EX" else cards[1][0]
            if d["card"][0] != led and led != "T" and d["card"] != "EX":
                seat, suit = d["seat"], led
                # the seat's next play
                later = [j for j in plays(truth) if j > i and truth.operations[j].to_dict()["seat"] == seat]
                if later:
                    controller = tarot(log, truth)
                    play_through(controller, truth, stop_before=later[0])
                    break
        if controller is not None:
            break
    deal = controller.session.state
    assert deal.to_play == seat
    weights = controller.possible_cards().weights
    unplayed = [c for c in CODES if c.startswith(suit) and c not in deal.played and c in weights]
    assert unplayed and all(weights[c] == pytest.approx(0.05) for c in unplayed)
    assert max(weights.values()) == 1.0


def test_no_card_is_possible_for_the_camera_during_the_bidding_nor_after_the_deal(log):
    truth = random_deal(4, 12)
    controller = tarot(log, truth)
    assert controller.possible_cards() is None
    play_through(controller, truth)
    assert controller.session.deal_over and controller.possible_cards() is None


def test_the_chien_being_shown_excludes_its_cards_seen_so_far(log):
    truth, at = first_deal_with("chien")
    controller = tarot(log, truth)
    play_through(controller, truth, stop_before=at)
    controller.on_event(seen(truth.chien[0]))
    possible = controller.possible_cards()
    assert truth.chien[0] not in possible and truth.chien[1] in possible and len(possible) == 77


def test_a_question_lists_possible_cards_only_best_first(log):
    truth = random_deal(4, 13)
    controller = tarot(log, truth)
    first = plays(truth)[4]
    play_through(controller, truth, stop_before=first + 1)  # trick 2 has begun
    already = truth.tricks[0].cards[0]
    card = truth.operations[first + 1].card
    event = TableEvent("uncertain", 9, 0.3, "middle", None, candidates=[(already, 0.5), (card, 0.3), (None, 0.1)])
    assert controller.on_event(event)[-1].kind == CONFIRM
    question = controller.pending[0]
    assert question.best == card  # the card already played is not offered
    assert already not in question.possible and question.possible[0] == card
    flow = ConfirmCardFlow(question.best, question.confidence, question.alternatives[:3], others=question.possible)
    flow.handle(("up", "press"))  # "Other card…"
    flow.handle(("ok", "press"))
    offered = [code for _, code in flow.step.options]
    # grouped by suit: only the categories that hold a possible card
    assert all(any(c.startswith(cat) or c == cat for c in question.possible) for cat in offered)
    assert controller.prompts == 1


def test_without_the_rules_help_questions_offer_every_card(log):
    truth = random_deal(4, 13)
    controller = tarot(log, truth)
    controller.rules_help = False
    first = plays(truth)[4]
    play_through(controller, truth, stop_before=first + 1)
    already = truth.tricks[0].cards[0]
    event = TableEvent("uncertain", 9, 0.3, "middle", None, candidates=[(already, 0.5)])
    controller.on_event(event)
    assert controller.pending[0].best == already and controller.pending[0].possible is None


def test_a_trick_swept_short_asks_for_the_card_of_the_seat_whose_turn_it_was(log):
    truth = random_deal(4, 14)
    controller = tarot(log, truth)
    at = plays(truth)[3]  # the fourth card of trick 1 is never seen
    play_through(controller, truth, stop_before=at)
    missing = truth.operations[at].to_dict()
    notices = controller.on_event(TableEvent("cleared", 0, 0.0, "middle"))
    assert notices[-1].kind == CONFIRM and missing["seat"] == notices[-1].seat
    assert "which card did" in notices[-1].text
    question = controller.pending[0]
    assert question.reason == "missing" and missing["card"] in question.possible
    assert not set(truth.tricks[0].cards[:3]) & set(question.possible)
    assert controller.on_decision(("correct_card", missing["card"]))[0].kind == APPLIED
    assert controller.session.state.trick_number == 2 and not controller.pending


def test_two_cards_missing_are_asked_one_after_the_other(log):
    truth = random_deal(4, 15)
    controller = tarot(log, truth)
    at = plays(truth)[2]
    play_through(controller, truth, stop_before=at)
    controller.on_event(TableEvent("cleared", 0, 0.0, "middle"))
    first, second = (truth.operations[at + k].to_dict() for k in (0, 1))
    assert controller.pending[0].seat == first["seat"]
    controller.on_decision(("correct_card", first["card"]))
    assert controller.pending and controller.pending[0].seat == second["seat"]
    controller.on_decision(("correct_card", second["card"]))
    assert not controller.pending and controller.session.state.trick_number == 2
    assert controller.prompts == 2


def test_cards_after_the_end_of_the_deal_are_ignored_without_an_alert(log):
    truth = random_deal(4, 16)
    controller = tarot(log, truth)
    play_through(controller, truth)
    last = truth.tricks[-1].cards[-1]
    for event in (seen(last), TableEvent("uncertain", 1, 0.1, "middle", None, candidates=[(last, 0.4)]),
                  TableEvent("cleared", 2, 0.1, "middle")):
        notices = controller.on_event(event)
        assert all(n.kind == INFO for n in notices), notices
        assert all("done" not in n.text for n in notices)
    assert not controller.pending


def test_trivium_knows_the_olla_and_the_laid_tercias(log):
    from device.app.session import GameSession
    from device.app.registry import game_for
    from device.games.trivium.controller import TriviumController

    session = GameSession.resume_or_start(log, game_for("trivium"), ["Ana", "Luis"], label="tv")
    controller = TriviumController(session)
    assert controller.possible_cards() is None  # before the deal
    assert controller.on_decision(("deal", 0))[-1].kind == APPLIED
    assert len(controller.possible_cards()) == 78
    # Ana's exchange first: she draws from the pozo and discards C05 onto the olla
    assert controller.on_event(seen("C05"))[-1].kind == APPLIED
    assert "C05" not in controller.possible_cards() and len(controller.possible_cards()) == 77
    controller.on_event(seen("H01", zone="seat1"))
    assert "H01" not in controller.possible_cards()  # being laid
    for code in ("H02", "H03"):
        notices = controller.on_event(seen(code, zone="seat1"))
    # 1 + 2 + 3 is no tercia where 1 + 2 + 18 would be: the table asks whether a card was missed;
    # the player says H03 is the third (a group the rules flag)
    assert notices[-1].kind == CONFIRM, notices[-1]
    notices = controller.on_decision(("correct_card", "H03"))
    assert notices[0].kind == APPLIED, notices[0]
    assert not {"H01", "H02", "H03", "C05"} & set(controller.possible_cards())
    assert len(controller.possible_cards()) == 74


def test_a_card_asked_on_a_deck_the_model_cannot_read_says_so_on_the_screen(log):
    from device.app.views import confirm_view

    truth = random_deal(4, 13)
    controller = tarot(log, truth)
    first = plays(truth)[4]
    play_through(controller, truth, stop_before=first + 1)
    card = truth.operations[first + 1].card
    unread = TableEvent("uncertain", 9, 0.3, "middle", None, candidates=[(card, 0.3)], unread=True)
    assert unread == TableEvent("uncertain", 9, 0.3, "middle", None, candidates=[(card, 0.3)])  # not part of equality
    assert "unread" not in unread.to_dict()
    controller.on_event(unread)
    question = controller.pending[0]
    assert question.unread and confirm_view(question, controller.session.names).unread
    flow = ConfirmCardFlow(question.best, question.confidence, question.alternatives[:3], unread=question.unread)
    assert flow.step.title == "Deck not read" and flow.view().unread
    assert ConfirmCardFlow(question.best, question.confidence).step.title == "Check card"

"""A card the camera misread slips into a trick unnoticed; later the real card lands, and the
camera sees a card already played. One of the two readings is wrong: the table asks, and when
the player says the new card is that card, asks which card the earlier one was and fixes it where
it lies, so that no wrong card reaches the score."""

import numpy as np
import pytest

from device.app.controller import ALERT, APPLIED, CONFIRM, EARLIER_CARD, SEEN_AGAIN, UNCERTAIN_CARD
from device.app.registry import game_for
from device.app.session import GameSession
from device.games.french_tarot.controller import TarotController
from device.storage.deal_log import DealLog
from engine.tarot import random_deal
from engine.tarot.tables import INDEX_OF_CODE, trick_winner_index
from tests.app.test_controller import NAMES
from vision.events import TableEvent
from vision.possible import PossibleCards
from vision.votes import Vote, excluded_card, pip_neighbours


def seen(card):
    return TableEvent("appeared", 0, 0.0, "middle", card)


def unclear(excluded=None, candidates=()):
    return TableEvent("uncertain", 0, 0.0, "middle", None, candidates=list(candidates), excluded=excluded)


def misread_case(seed):
    """(truth, index of a trick-1 play, the card read there instead, index of that card's own play)
    for a deal where the same seat plays a card of the same suit later: the misread (a card of
    the seat's own hand, so that the misread play is one the rules take)."""
    truth = random_deal(4, seed)
    plays = [(i, op.to_dict()) for i, op in enumerate(truth.operations) if op.to_dict()["op"] == "play"]
    first_trick = plays[:4]
    for i, d in first_trick[1:]:  # not the leader's: its suit leads
        card = d["card"]
        if card[0] not in "SHDC":
            continue
        later = [(j, e) for j, e in plays[4:] if e["card"][0] == card[0] and e["seat"] == d["seat"]]
        cards = [e["card"] for _, e in first_trick]
        for j, e in later:
            misread = [e["card"] if c == card else c for c in cards]
            if winner_at(misread) == winner_at(cards):  # the rest of the deal plays as dealt
                return truth, i, e["card"], j
    return None


def winner_at(cards):
    return trick_winner_index([INDEX_OF_CODE[c] for c in cards])


def first_case():
    return next(case for case in map(misread_case, range(1, 60)) if case is not None)


@pytest.fixture
def misread(tmp_path):
    truth, wrong_at, wrong, real_at = first_case()
    with DealLog.open(tmp_path / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="t",
                                              first_setup={"dealer": truth.dealer})
        controller = TarotController(session)
        for i, op in enumerate(truth.operations[:real_at]):
            d = op.to_dict()
            if d["op"] == "play":
                notices = controller.on_event(seen(wrong if i == wrong_at else d["card"]))
                assert notices[-1].kind == APPLIED, notices
            elif d["op"] == "chien":
                for card in d["cards"]:
                    controller.on_event(seen(card))
            else:
                controller.on_decision(_decision(d))
        assert len(controller.session.state.operations) == real_at
        yield controller, truth, wrong_at, wrong, real_at


def test_a_card_seen_again_is_asked_and_the_earlier_misread_fixed_where_it_lies(misread):
    controller, truth, wrong_at, wrong, real_at = misread
    earlier = truth.operations[wrong_at].to_dict()
    now = truth.operations[real_at].to_dict()
    assert controller.session.state.operations[wrong_at].card == wrong  # the misread, unnoticed
    notices = controller.on_event(unclear(excluded=(wrong, 0.9)))
    assert notices[-1].kind == CONFIRM and f"{wrong} again" in notices[-1].text and "trick 1" in notices[-1].text
    pending = controller.pending[0]
    assert pending.reason == SEEN_AGAIN and pending.best == wrong and pending.possible[0] == wrong
    assert controller.asked[-1] == SEEN_AGAIN and controller.prompts == len(controller.asked)

    # the player: this card is that card; then, which card was the earlier one
    notices = controller.on_decision(("confirm_card", wrong))
    assert notices[-1].kind == CONFIRM and NAMES[earlier["seat"]] in notices[-1].text
    follow = controller.pending[0]
    assert follow.reason == EARLIER_CARD and follow.seat == earlier["seat"] and follow.trick == 1
    assert earlier["card"] in follow.possible and wrong not in follow.possible
    near = [c for c in pip_neighbours(wrong) if c in follow.possible]  # the camera's usual misread first
    same_suit = [c for c in follow.possible if c[0] == wrong[0] and c not in near]
    assert list(follow.possible[:len(near) + len(same_suit)]) == near + same_suit

    notices = controller.on_decision(("correct_card", earlier["card"]))
    kinds = [(n.kind, n.card) for n in notices]
    assert (APPLIED, earlier["card"]) in kinds and (APPLIED, now["card"]) in kinds, notices
    ops = controller.session.state.operations
    assert ops[wrong_at].card == earlier["card"] and ops[-1].card == now["card"] and ops[-1].seat == now["seat"]
    assert [op.to_dict() for op in ops] == [op.to_dict() for op in truth.operations[:real_at + 1]]
    assert not controller.pending and controller.prompts == 2


def test_a_card_seen_again_that_is_another_card_is_taken_as_answered(misread):
    controller, truth, wrong_at, wrong, real_at = misread
    controller.on_event(unclear(excluded=(wrong, 0.9)))
    # the real card is another one (the camera saw the earlier card's look-alike): nothing is fixed
    other = next(c for c in controller.pending[0].possible if c != wrong)
    notices = controller.on_decision(("correct_card", other))
    assert [(n.kind, n.card) for n in notices if n.kind == APPLIED] == [(APPLIED, other)]
    assert controller.session.state.operations[wrong_at].card == wrong and not controller.pending


def test_the_earlier_card_cannot_be_the_card_seen_again_nor_a_card_that_does_not_replay(misread):
    controller, truth, wrong_at, wrong, real_at = misread
    controller.on_event(unclear(excluded=(wrong, 0.9)))
    controller.on_decision(("confirm_card", wrong))
    notices = controller.on_decision(("correct_card", wrong))
    assert notices[-1].kind == ALERT and controller.pending[0].reason == EARLIER_CARD
    played_later = controller.session.state.operations[wrong_at + 1].card  # already in the deal
    notices = controller.on_decision(("correct_card", played_later))
    assert any(n.kind == ALERT for n in notices) and controller.pending[0].reason == EARLIER_CARD
    assert controller.session.state.operations[wrong_at].card == wrong  # nothing changed


def test_a_dismissed_follow_up_changes_nothing(misread):
    controller, truth, wrong_at, wrong, real_at = misread
    controller.on_event(unclear(excluded=(wrong, 0.9)))
    controller.on_decision(("confirm_card", wrong))
    controller.on_decision(("reject_card",))
    assert not controller.pending
    assert controller.session.state.operations[wrong_at].card == wrong
    assert len(controller.session.state.operations) == real_at


def test_without_a_card_seen_again_the_question_is_the_usual_one(misread):
    controller, *_ = misread
    controller.on_event(unclear(excluded=None, candidates=[("T21", 0.4)]))
    assert controller.pending[0].reason == UNCERTAIN_CARD
    controller.pending.clear()
    controller.rules_help = False  # without the rules nothing is ruled out: nothing seen again
    controller.on_event(unclear(excluded=("T21", 0.9)))
    assert controller.pending[0].reason == UNCERTAIN_CARD


LABELS = ["H02", "H03", "H04", "unknown"]


def vote(probs, conflict=True):
    return Vote(None, 0.0, [("H03", 0.5)], conflict, 0.0, None, np.array(probs, np.float32))


def test_the_namers_own_card_is_reported_when_the_rules_ruled_it_out():
    possible = PossibleCards.of(["H03", "H04"])
    assert excluded_card([vote([0.8, 0.1, 0.05, 0.05]), vote([0.7, 0.2, 0.05, 0.05])], LABELS, possible) == \
        pytest.approx(("H02", 0.75))
    assert excluded_card([vote([0.4, 0.3, 0.2, 0.1])], LABELS, possible) is None  # not sure enough
    assert excluded_card([vote([0.1, 0.8, 0.05, 0.05])], LABELS, possible) is None  # a possible card
    assert excluded_card([vote([0.05, 0.05, 0.1, 0.8])], LABELS, possible) is None  # not a card face
    assert excluded_card([vote([0.8, 0.1, 0.05, 0.05], conflict=False)], LABELS, possible) is None  # no conflict
    assert excluded_card([vote([0.8, 0.1, 0.05, 0.05])], LABELS, None) is None  # nothing was ruled out
    assert excluded_card([vote([0.8, 0.1])], LABELS, possible) is None  # another model's probabilities


def test_the_check_card_screen_shows_the_earlier_player_and_trick(misread):
    from types import SimpleNamespace

    from device.games.french_tarot.screens import pending_place

    controller, truth, wrong_at, wrong, real_at = misread
    app = SimpleNamespace(session=controller.session)
    controller.on_event(unclear(excluded=(wrong, 0.9)))
    now = pending_place(app, controller.pending[0])  # the card on the table: the seat to play, this trick
    assert now == {"seat": controller.session.state.to_play, "trick": controller.session.state.trick_number, "place": "trick"}
    controller.on_decision(("confirm_card", wrong))
    earlier = truth.operations[wrong_at].to_dict()
    assert pending_place(app, controller.pending[0]) == {"seat": earlier["seat"], "trick": 1, "place": "trick"}


def test_on_the_buttons_the_card_seen_again_then_the_earlier_card(tmp_path):
    from device.app.menu_driver import MenuDriver
    from device.app.table import TableApp

    truth, wrong_at, wrong, real_at = first_case()
    earlier = truth.operations[wrong_at].to_dict()
    with DealLog.open(tmp_path / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="b",
                                              first_setup={"dealer": truth.dealer})
        app = TableApp(session)
        driver = MenuDriver(app)
        app.hooks.append(driver.sync)
        for i, op in enumerate(truth.operations[:real_at]):
            if i == wrong_at:
                app.on_events([seen(wrong)])
            elif op.to_dict()["op"] in ("play", "chien"):
                session.apply(op)
            else:
                app.on_decision(tuple(_decision(op.to_dict())))
        assert len(session.state.operations) == real_at
        app.on_events([unclear(excluded=(wrong, 0.9))])
        view = app.current_view()
        assert type(driver.flow).__name__ == "ConfirmCardFlow" and view.card == wrong
        driver.on_button(("ok", "press"))  # yes, this is that card
        view = app.current_view()
        assert type(driver.flow).__name__ == "ConfirmCardFlow"
        assert (view.seat, view.trick) == (NAMES[earlier["seat"]], 1)  # whose card, in which trick
        app.on_decision(("correct_card", earlier["card"]))
        assert [op.to_dict() for op in session.state.operations] == [op.to_dict() for op in truth.operations[:real_at + 1]]
        assert not app.controller.pending


def _decision(d):
    if d["op"] == "bid":
        return ("bid", d["seat"], d["bid"])
    if d["op"] == "ecart":
        return ("ecart", d["cards"])
    if d["op"] == "call":
        return ("call", d["card"])
    if d["op"] == "poignee":
        return ("poignee", d["seat"], d["level"], d["shown"])
    raise AssertionError(d)


def test_the_earlier_card_fixed_is_not_told_to_the_tracker_where_the_new_one_lies(misread):
    # the misread was seen at a spot of trick 1, long swept; the card the camera now sees as
    # ``wrong`` is the real one: the tracker must keep it as ``wrong``
    controller, truth, wrong_at, wrong, real_at = misread
    spot = [[300.0, 200.0], [350.0, 200.0], [350.0, 290.0], [300.0, 290.0]]
    controller.reported[wrong] = spot
    earlier = truth.operations[wrong_at].to_dict()
    controller.on_event(unclear(excluded=(wrong, 0.9)))
    controller.on_decision(("confirm_card", wrong))
    notices = controller.on_decision(("correct_card", earlier["card"]))
    assert (APPLIED, earlier["card"]) in [(n.kind, n.card) for n in notices]
    assert controller.fixed == [] and controller.reported[earlier["card"]] == spot

"""The controller: table events and menu decisions become engine operations."""

import pytest

from device.app.controller import ALERT, APPLIED, CONFIRM, INFO, seat_of_zone
from device.games.french_tarot.controller import TarotController
from device.app.registry import game_for
from device.games.trivium.controller import TriviumController
from device.app.session import GameSession
from device.storage.deal_log import DealLog
from engine.tarot import random_deal
from vision.events import TableEvent

NAMES = ["Ana", "Luis", "Marta", "Pau"]


def seen(card, zone="middle", kind="appeared"):
    return TableEvent(kind, 0, 0.0, zone, card)


@pytest.fixture
def log(tmp_path):
    with DealLog.open(tmp_path / "log.db") as opened:
        yield opened


def tarot(log, truth):
    session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="t", first_setup={"dealer": truth.dealer})
    return TarotController(session)


def play_through(controller, truth, stop_before=None):
    """Bids and the écart as decisions, the chien and the cards as table events."""
    for i, op in enumerate(truth.operations):
        if i == stop_before:
            return
        d = op.to_dict()
        if d["op"] == "play":
            notices = controller.on_event(seen(d["card"]))
            assert notices[-1].kind == APPLIED, notices
            assert notices[-1].seat == d["seat"]
        elif d["op"] == "chien":
            for card in d["cards"]:
                notices = controller.on_event(seen(card))
            assert notices[-1].kind == APPLIED
            controller.on_event(TableEvent("cleared", 0, 0.0, "middle"))  # the taker takes the chien
        elif d["op"] == "bid":
            assert controller.on_decision(("bid", d["seat"], d["bid"]))[0].kind == APPLIED
        elif d["op"] == "ecart":
            assert controller.on_decision(("ecart", d["cards"]))[0].kind == APPLIED
        elif d["op"] == "poignee":
            assert controller.on_decision(("poignee", d["seat"], d["level"], d["shown"]))[0].kind == APPLIED
        elif d["op"] == "call":
            assert controller.on_decision(("call", d["card"]))[0].kind == APPLIED


@pytest.mark.parametrize("seed", [2, 3])
def test_a_whole_deal_from_events_scores_like_the_engine(log, seed):
    truth = random_deal(4, seed, poignee_rate=0.5)
    controller = tarot(log, truth)
    play_through(controller, truth)
    assert controller.session.deal_over
    assert controller.session.state.result().scores == truth.result().scores


def test_cards_go_to_the_seat_whose_turn_it_is(log):
    truth = random_deal(4, 5)
    controller = tarot(log, truth)
    first_play = next(i for i, op in enumerate(truth.operations) if op.to_dict()["op"] == "play")
    play_through(controller, truth, stop_before=first_play)
    leader = controller.session.state.to_play
    card = truth.tricks[0].cards[0]
    notice = controller.on_event(seen(card))[-1]
    assert (notice.kind, notice.seat, notice.card) == (APPLIED, leader, card)
    # the same card seen again (the tracker lost and found it) changes nothing
    again = controller.on_event(seen(card))[-1]
    assert again.kind == INFO and controller.session.operations_count == first_play + 1
    second = truth.tricks[0].cards[1]
    assert controller.on_event(seen(second))[-1].seat == (leader + 1) % 4


def test_a_refused_card_is_an_alert_with_the_engines_reason(log):
    # a card the taker discarded (the écart was entered), seen as if played: the engine refuses it
    truth = next(t for t in (random_deal(4, s) for s in range(6, 60)) if t.ecart)
    controller = tarot(log, truth)
    first_play = next(i for i, op in enumerate(truth.operations) if op.to_dict()["op"] == "play")
    play_through(controller, truth, stop_before=first_play)
    refused = truth.ecart[0]
    count = controller.session.operations_count
    notices = controller.on_event(seen(refused))
    assert notices[-1].kind == ALERT
    assert refused in notices[-1].text and "refused" in notices[-1].text
    assert controller.session.operations_count == count


def test_a_card_seen_again_after_it_was_played_is_no_alert(log):
    truth = random_deal(4, 6)
    controller = tarot(log, truth)
    first_trick_end = [i for i, op in enumerate(truth.operations) if op.to_dict()["op"] == "play"][3]
    play_through(controller, truth, stop_before=first_trick_end + 1)
    replayed = truth.tricks[0].cards[0]  # played at trick 1, seen again at trick 2
    count = controller.session.operations_count
    notices = controller.on_event(seen(replayed))
    assert notices[-1].kind == INFO and "seen again" in notices[-1].text and replayed in notices[-1].text
    assert controller.session.operations_count == count


def test_a_card_during_the_bidding_is_an_alert_without_the_phase_name(log):
    controller = tarot(log, random_deal(4, 7))
    notices = controller.on_event(seen("H07"))
    assert notices[-1].kind == ALERT and "H07" in notices[-1].text
    assert "bidding" not in notices[-1].text and "during the" not in notices[-1].text


def test_uncertain_card_waits_for_confirmation_or_correction(log):
    truth = random_deal(4, 8)
    controller = tarot(log, truth)
    first_play = next(i for i, op in enumerate(truth.operations) if op.to_dict()["op"] == "play")
    play_through(controller, truth, stop_before=first_play)
    card = truth.tricks[0].cards[0]
    event = TableEvent("uncertain", 5, 0.2, "middle", None, candidates=[("H01", 0.4), (card, 0.3)])
    notices = controller.on_event(event)
    assert notices[-1].kind == CONFIRM and controller.pending
    assert controller.session.operations_count == first_play  # nothing guessed
    notice = controller.on_decision(("correct_card", card))[-1]
    assert notice.kind == APPLIED and notice.card == card and not controller.pending


def test_the_cards_seen_while_a_card_waits_to_be_confirmed_wait_for_it(log):
    """A player answers the question after the next card was laid: that card is still the next seat's."""
    truth = random_deal(4, 8)
    controller = tarot(log, truth)
    first_play = next(i for i, op in enumerate(truth.operations) if op.to_dict()["op"] == "play")
    play_through(controller, truth, stop_before=first_play)
    trick = truth.tricks[0]
    first, second, third = trick.cards[:3]
    controller.on_event(TableEvent("uncertain", 5, 0.2, "middle", None, candidates=[(first, 0.4)]))
    for card in (second, third):
        notice = controller.on_event(seen(card))[-1]
        assert notice.kind == INFO and "waits" in notice.text
    assert controller.session.operations_count == first_play and len(controller.held) == 2
    notices = controller.on_decision(("confirm_card", first))
    applied = [(n.seat, n.card) for n in notices if n.kind == APPLIED]
    leader = trick.leader
    assert applied == [(leader, first), ((leader + 1) % 4, second), ((leader + 2) % 4, third)]
    assert not controller.held and not controller.pending
    # a held card that is unclear too asks in its turn, and what came after it waits again
    fourth = trick.cards[3]
    controller.on_event(TableEvent("uncertain", 9, 0.4, "middle", None, candidates=[(fourth, 0.4)]))
    controller.on_event(TableEvent("cleared", 12, 0.5, "middle"))
    assert [e.type for e in controller.held] == ["cleared"]
    notices = controller.on_decision(("correct_card", fourth))
    assert [(n.seat, n.card) for n in notices if n.kind == APPLIED] == [((leader + 3) % 4, fourth)]
    assert not controller.held and controller.session.operations_count == first_play + 4


def test_manual_card_entry_and_undo(log):
    truth = random_deal(4, 9)
    controller = tarot(log, truth)
    first_play = next(i for i, op in enumerate(truth.operations) if op.to_dict()["op"] == "play")
    play_through(controller, truth, stop_before=first_play)
    card = truth.tricks[0].cards[0]
    assert controller.on_decision(("card", card))[-1].kind == APPLIED
    undone = controller.on_decision(("undo",))[-1]
    assert undone.kind == APPLIED and undone.op.card == card
    assert controller.session.operations_count == first_play
    # the menu's "correct a card" with nothing pending enters the card by hand
    assert controller.on_decision(("correct_card", card))[-1].kind == APPLIED


def first_deal_with(kind, **options):
    """The first random deal (by seed) that has an operation of ``kind``, and its index."""
    for seed in range(1, 200):
        truth = random_deal(4, seed, **options)
        for i, op in enumerate(truth.operations):
            if op.to_dict()["op"] == kind:
                return truth, i
    raise AssertionError(f"no random deal with {kind}")


def test_chien_is_collected_from_the_middle(log):
    truth, chien_at = first_deal_with("chien")
    controller = tarot(log, truth)
    play_through(controller, truth, stop_before=chien_at)
    cards = truth.chien
    for card in cards[:-1]:
        assert controller.on_event(seen(card))[-1].kind == INFO
    # swept too early: the missing card is asked for, among the cards not yet seen
    assert controller.on_event(TableEvent("cleared", 0, 0.0, "middle"))[-1].kind == CONFIRM
    question = controller.pending[0]
    assert question.reason == "missing" and cards[-1] in question.possible
    assert not set(cards[:-1]) & set(question.possible)
    # shown again instead: the chien is complete and the question is gone
    for card in cards:
        notices = controller.on_event(seen(card))
    assert notices[-1].kind == APPLIED and controller.session.state.phase == "ecart"
    assert not controller.pending


def test_poignee_from_the_menu_reads_the_trumps_from_the_camera(log):
    truth, at = first_deal_with("poignee", poignee_rate=1.0)
    controller = tarot(log, truth)
    play_through(controller, truth, stop_before=at)
    op = truth.operations[at].to_dict()
    assert controller.on_decision(("poignee", op["seat"], op["level"]))[-1].kind == INFO
    for card in op["shown"]:
        notices = controller.on_event(seen(card))
    assert notices[-1].kind == APPLIED
    assert controller.session.state.poignees[0].seat == op["seat"]


def test_zone_names_map_to_seats():
    assert seat_of_zone("seat1") == 0 and seat_of_zone("seat4") == 3
    assert seat_of_zone("middle") is None and seat_of_zone("seatx") is None


def replay_trivium(log, lay):
    """A bot's Trivium game seen by the controller: ``lay(controller, op)`` lays each tercia (and
    returns the last notices), discards are seen on the olla, the rest comes from the menus.
    Returns the truth, the session and the last notices."""
    from engine.trivium import random_game, table_view

    truth = random_game(NAMES, 1)
    session = GameSession.resume_or_start(log, game_for("trivium"), NAMES, label="tv")
    controller = TriviumController(session)
    for d in (op.to_dict() for op in table_view(truth)):
        notices = trivium_step(controller, d, lay)
        assert notices[-1].kind == APPLIED, (d, notices)
    return truth, session, notices


def trivium_step(controller, d, lay):
    """One operation ``d`` of a bot's Trivium game as the table gets it: ``lay(controller, d)``
    lays a tercia, a discard is seen on the olla (the olla's card taken away first when it was
    taken), the rest comes from the menus. Returns the last notices."""
    if d["op"] == "lay_tercia":
        return lay(controller, d)
    if d["op"] in ("draw_from_pozo", "take_from_olla"):
        if d["op"] == "take_from_olla":
            controller.on_event(TableEvent("removed", 0, 0.0, "middle", controller.session.state.olla_top))
        return controller.on_event(seen(d["discard"]))
    if d["op"] == "deal":
        return controller.on_decision(("deal", d["starter"], d["dealer"]))
    return controller.on_decision(("op", d))


def test_trivium_tercia_laid_in_a_seat_zone(log):
    def lay(controller, d):
        zone = f"seat{d['seat'] + 1}"
        for card in d["cards"][:-1]:
            assert controller.on_event(seen(card, zone))[-1].kind == INFO
        return controller.on_event(seen(d["cards"][-1], zone))

    truth, session, notices = replay_trivium(log, lay)
    assert session.deal_over and list(session.state.scores) == list(truth.scores)
    assert notices[-1].announcement is not None


def test_bad_decisions_are_alerts_not_crashes(log):
    controller = tarot(log, random_deal(4, 7))
    assert controller.on_decision(("card", "ZZ"))[-1].kind == ALERT
    assert controller.on_decision(("bid", 1))[-1].kind == ALERT
    assert controller.on_decision(("launch_rocket",))[-1].kind == INFO


def test_end_game_mid_deal_keeps_the_log_and_starts_a_new_game(log):
    truth = random_deal(4, 3)
    controller = tarot(log, truth)
    play_through(controller, truth, stop_before=len(truth.bids) + 1)
    old_game = controller.session.game.id
    notice = controller.on_decision(("end_game",))[-1]
    assert notice.kind == APPLIED and notice.text.startswith("game over")
    assert log.game(old_game).finished is not None
    assert log.deals(old_game)[0].finished is not None and log.deals(old_game)[0].scores is None
    assert controller.session.game.id != old_game and controller.session.state.phase == "bidding"
    assert controller.on_decision(("undo",))[-1].kind == INFO  # nothing to undo in the new game


def test_trumps_shown_with_the_ecart_are_recorded(log):
    truth, at = first_deal_with("ecart")
    controller = tarot(log, truth)
    play_through(controller, truth, stop_before=at)
    trump = next(f"T{n:02d}" for n in range(2, 21) if f"T{n:02d}" not in truth.chien)
    assert controller.on_event(seen(trump))[-1].kind == INFO
    assert controller.on_event(seen("H03"))[-1].kind == ALERT  # only trumps are shown
    assert controller.on_decision(("ecart", None))[-1].kind == APPLIED
    assert controller.session.state.operations[-1].trumps_shown == (trump,)


def test_a_tercia_entered_by_hand_takes_its_cards_out_of_the_group_the_camera_was_collecting(log):
    """The camera saw one card of a tercia and missed the others; the player entered the tercia
    from the menu. The card seen is laid with it: the seat's next tercia, seen whole, is that
    tercia alone, not the card left over from the one before with two of the new one."""
    by_hand = []

    def lay(controller, d):
        zone = f"seat{d['seat'] + 1}"
        if not by_hand and len(d["cards"]) == 3:  # the first tercia: one card seen, the whole tercia by hand
            assert controller.on_event(seen(d["cards"][0], zone))[-1].kind == INFO
            assert controller.groups == {d["seat"]: [d["cards"][0]]}
            notices = controller.on_decision(("op", d))
            assert d["seat"] not in controller.groups  # nothing left over to join the seat's next tercia
            by_hand.append(d)
            return notices
        return [controller.on_event(seen(card, zone)) for card in d["cards"]][-1]

    truth, session, _ = replay_trivium(log, lay)
    assert len(by_hand) == 1 and session.deal_over and list(session.state.scores) == list(truth.scores)

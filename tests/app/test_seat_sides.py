"""A trick's card on the side of a player still to play, while another is to play: the card of
the player to play was missed, and taking this one for it would score two wrong cards. The
table asks for the missed card and takes the seen one after the answer."""

import pytest
from hypothesis import given, settings, strategies as st

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


def at_spot(card, seat, toward=None):
    """``card`` seen at engine seat ``seat``'s spot (25 px from (300, 200) towards it), the
    zones saying ``toward`` (an engine seat, or nobody)."""
    import math

    x, y = 300 + 25 * math.sin(math.radians(90 * seat)), 200 + 25 * math.cos(math.radians(90 * seat))
    corners = [[x - 20, y - 36], [x + 20, y - 36], [x + 20, y + 36], [x - 20, y + 36]]
    return TableEvent("appeared", 0, 0.0, "middle", card, corners=corners,
                      toward=None if toward is None else toward + 1)


def test_once_every_seat_has_played_where_its_cards_lay_says_whose_side_a_card_is_on(at_first_trick):
    """The zones' directions can be off (a tilted camera, a pile off the middle's centre): the
    spots where the first trick's cards lay, whose seats the order of play proved, decide."""
    controller, trick, start = at_first_trick
    for k, code in enumerate(trick.cards):  # the first trick, on nobody's side by the zones
        seat = (trick.leader + k) % 4
        assert applied(controller.on_event(at_spot(code, seat))) == [(seat, code)]
    second = random_deal(4, 8).tricks[1]
    leader = controller.deal.to_play
    assert leader == second.leader
    first, nxt = second.cards[:2]
    # the zones put the leader's card on a later seat's side; it lies at the leader's spot
    assert applied(controller.on_event(at_spot(first, leader, toward=(leader + 2) % 4))) == [(leader, first)]
    # the zones see no side for the next card; it lies at the spot of the seat after it
    notices = controller.on_event(at_spot(nxt, (leader + 2) % 4))
    assert notices[-1].kind == CONFIRM and controller.pending[0].reason == SKIPPED_CARD
    assert controller.pending[0].seat == (leader + 1) % 4


def spots_learned(controller, trick):
    """The first trick played with each card at its seat's spot; the second trick's leader."""
    for k, code in enumerate(trick.cards):
        controller.on_event(at_spot(code, (trick.leader + k) % 4))
    return controller.deal.to_play


def second_trick_led(controller, trick):
    """The first trick played at the seats' spots, then the second trick's leader's card laid at
    its spot: (the leader, the second trick's cards)."""
    leader = spots_learned(controller, trick)
    cards = random_deal(4, 8).tricks[1].cards
    controller.on_event(at_spot(cards[0], leader))
    return leader, cards


def unclear_in_the_middle_of_the_pile(candidates=(("T03", 0.4),)):
    corners = [[280, 164], [320, 164], [320, 236], [280, 236]]  # centred on the pile: nobody's spot
    return TableEvent("uncertain", 0, 0.0, "middle", None, corners=corners, candidates=list(candidates))


def test_an_unclear_quad_where_nobody_lays_a_card_is_dropped_when_the_player_to_play_lays_theirs(at_first_trick):
    controller, trick, start = at_first_trick
    leader, cards = second_trick_led(controller, trick)
    second = cards[1]
    prompts = controller.prompts
    notices = controller.on_event(unclear_in_the_middle_of_the_pile())
    assert not any(n.kind == CONFIRM for n in notices) and controller.aside is not None
    notices = controller.on_event(at_spot(second, (leader + 1) % 4))
    assert applied(notices) == [((leader + 1) % 4, second)]
    assert controller.prompts == prompts and not controller.pending and len(controller.no_card) == 1


def test_an_unclear_quad_set_aside_is_asked_when_the_next_card_lies_at_a_later_seats_spot(at_first_trick):
    """The quad may be the card of the player to play, seen badly: the next card, at the next
    seat's spot, says so; the quad is asked about first and that card waits."""
    controller, trick, start = at_first_trick
    leader, cards = second_trick_led(controller, trick)
    second, third = cards[1:3]
    controller.on_event(unclear_in_the_middle_of_the_pile([(second, 0.45)]))
    notices = controller.on_event(at_spot(third, (leader + 2) % 4))
    assert notices[-1].kind == CONFIRM and controller.pending[0].best == second and not controller.no_card
    assert applied(controller.on_decision(("confirm_card", second))) == [((leader + 1) % 4, second),
                                                                          ((leader + 2) % 4, third)]


def test_an_unclear_quad_after_a_whole_trick_is_dropped_when_the_trick_is_swept(at_first_trick):
    controller, trick, start = at_first_trick
    spots_learned(controller, trick)
    prompts = controller.prompts
    controller.on_event(unclear_in_the_middle_of_the_pile())
    notices = controller.on_event(TableEvent("cleared", 0, 0.0, "middle"))
    assert not any(n.kind == CONFIRM for n in notices)
    assert controller.prompts == prompts and len(controller.no_card) == 1 and controller.aside is None


def test_an_unclear_quad_at_the_spot_of_a_seat_that_has_played_waits_too(at_first_trick):
    controller, trick, start = at_first_trick
    leader, cards = second_trick_led(controller, trick)
    second = cards[1]
    unclear = at_spot(None, leader)
    unclear = TableEvent("uncertain", 0, 0.0, "middle", None, corners=unclear.corners, candidates=[("T03", 0.4)])
    assert not any(n.kind == CONFIRM for n in controller.on_event(unclear))
    assert applied(controller.on_event(at_spot(second, (leader + 1) % 4))) == [((leader + 1) % 4, second)]
    assert controller.no_card and not controller.pending


def test_an_unclear_quad_named_nearly_surely_or_covered_by_the_next_card_is_asked(at_first_trick):
    """A quad the camera names a card on at 0.5 or more is a card: asked at once. And a next card
    lying over the quad may be the quad's own card, found again under another name: it does not
    show the quad was no card."""
    controller, trick, start = at_first_trick
    leader, cards = second_trick_led(controller, trick)
    second = cards[1]
    notices = controller.on_event(unclear_in_the_middle_of_the_pile([(second, 0.9)]))
    assert notices[-1].kind == CONFIRM and controller.aside is None
    controller.on_decision(("reject_card",))
    nxt = at_spot(second, (leader + 1) % 4)
    under = TableEvent("uncertain", 0, 0.0, "middle", None, corners=[[x + 6, y + 6] for x, y in nxt.corners],
                       candidates=[(None, 0.3)])
    elsewhere = TableEvent("uncertain", 0, 0.0, "middle", None, corners=at_spot(None, (leader + 3) % 4).corners,
                           candidates=[(None, 0.3)])
    assert not controller.aside_was_no_card(under, nxt)
    assert controller.aside_was_no_card(elsewhere, nxt)


def _sweep():
    return TableEvent("cleared", 0, 0.0, "middle")


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_false_quads_anywhere_in_the_pile_never_change_whose_card_is_whose(tmp_path_factory, data):
    """Three tricks played with every card at its seat's spot, and unclear quads found across the
    pile (between spots, on a played card's spot, or at the spot of the player to play) before
    any card: whatever is set aside, asked (and answered "not a card") or dropped, every card is
    the right seat's, in order, and nothing is left waiting."""
    truth = random_deal(4, 8)
    with DealLog.open(tmp_path_factory.mktemp("log") / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), NAMES, label="t",
                                              first_setup={"dealer": truth.dealer})
        controller = TarotController(session)
        first_play = next(i for i, op in enumerate(truth.operations) if op.to_dict()["op"] == "play")
        play_through(controller, truth, stop_before=first_play)

        def answer(notices):
            while controller.pending:  # every question is about a false quad: "not a card"
                notices = controller.on_decision(("reject_card",))
            return notices

        for trick in truth.tricks[:3]:
            for k, code in enumerate(trick.cards):
                if data.draw(st.booleans(), label="a false quad first"):
                    where = data.draw(st.sampled_from(["pile", "played", "to play"]), label="where")
                    if where == "pile" or k == 0:
                        quad = unclear_in_the_middle_of_the_pile().corners
                    else:
                        seat = trick.leader if where == "played" else (trick.leader + k) % 4
                        quad = at_spot(None, seat).corners
                    best = data.draw(st.floats(0.05, 0.95), label="its best candidate")
                    answer(controller.on_event(TableEvent("uncertain", 0, 0.0, "middle", None, corners=quad,
                                                          candidates=[("T03", best)])))
                answer(controller.on_event(at_spot(code, (trick.leader + k) % 4)))
            answer(controller.on_event(_sweep()))
        played = [(op.seat, op.card) for op in controller.session.state.operations if type(op).__name__ == "Play"]
        expected = [((t.leader + k) % 4, c) for t in truth.tricks[:3] for k, c in enumerate(t.cards)]
        assert played == expected
        assert not controller.pending and not controller.held and controller.aside is None


def test_an_unclear_quad_set_aside_in_a_trick_swept_short_is_asked_once_as_the_missing_card(at_first_trick):
    controller, trick, start = at_first_trick
    leader, cards = second_trick_led(controller, trick)
    second = cards[1]
    prompts = controller.prompts
    controller.on_event(unclear_in_the_middle_of_the_pile([(second, 0.3)]))
    notices = controller.on_event(_sweep())
    assert [n.kind for n in notices].count(CONFIRM) == 1 and controller.prompts == prompts + 1
    assert controller.pending[0].reason == "missing" and controller.pending[0].seat == (leader + 1) % 4
    assert applied(controller.on_decision(("correct_card", second))) == [((leader + 1) % 4, second)]


def test_an_unclear_quad_at_a_seats_spot_after_a_whole_trick_is_dropped_when_the_trick_is_swept(at_first_trick):
    """Every card of the trick seen, the trick not yet swept: an unclear quad, even at the spot of
    a seat and named half surely, is one found on the trick's cards (a card nudged, half hidden);
    taken as the next trick's lead it would ask for a skipped card, itself and a missing card."""
    controller, trick, start = at_first_trick
    spots_learned(controller, trick)
    assert controller.whole_trick_lying()
    prompts = controller.prompts
    other = next(c for c in random_deal(4, 8).tricks[1].cards if c not in trick.cards)
    quad = at_spot(None, (controller.deal.to_play + 2) % 4).corners
    notices = controller.on_event(TableEvent("uncertain", 0, 0.0, "middle", None, corners=quad,
                                             candidates=[(other, 0.7)]))
    assert not any(n.kind == CONFIRM for n in notices) and controller.aside is not None
    notices = controller.on_event(_sweep())
    assert not any(n.kind == CONFIRM for n in notices) and not controller.whole_trick_lying()
    assert controller.prompts == prompts and len(controller.no_card) == 1 and not controller.pending
    # the trick swept: an unclear quad at a seat's spot other than the leader's asks again
    notices = controller.on_event(TableEvent("uncertain", 0, 0.0, "middle", None, corners=quad,
                                             candidates=[(other, 0.7)]))
    assert any(n.kind == CONFIRM for n in notices)


def test_a_quad_set_aside_on_a_whole_trick_that_stays_when_the_trick_is_taken_is_asked(at_first_trick):
    """The next trick's lead laid before the last trick was swept, seen unclearly: the trick's
    cards are then taken one by one (not the whole middle), and the quad is asked as the lead."""
    controller, trick, start = at_first_trick
    leader = spots_learned(controller, trick)
    lead = random_deal(4, 8).tricks[1].cards[0]
    quad = at_spot(None, leader).corners
    controller.on_event(TableEvent("uncertain", 0, 0.0, "middle", None, corners=quad, candidates=[(lead, 0.4)]))
    assert controller.aside is not None
    notices = controller.on_event(TableEvent("removed", 0, 0.0, "middle", trick.cards[0]))
    assert notices[-1].kind == CONFIRM and controller.pending[0].best == lead
    assert applied(controller.on_decision(("confirm_card", lead))) == [(leader, lead)]
    assert not controller.whole_trick_lying()


def test_a_whole_trick_lies_only_until_the_next_card_or_the_sweep(at_first_trick):
    controller, trick, start = at_first_trick
    assert not controller.whole_trick_lying()  # no trick played yet
    for k, code in enumerate(trick.cards[:3]):
        controller.on_event(at_spot(code, (trick.leader + k) % 4))
        assert not controller.whole_trick_lying()
    controller.on_decision(("card", trick.cards[3]))  # the last card entered by hand completes it too
    assert controller.whole_trick_lying()
    lead = random_deal(4, 8).tricks[1].cards[0]
    assert applied(controller.on_event(at_spot(lead, controller.deal.to_play)))
    assert not controller.whole_trick_lying()


def test_a_trick_swept_short_and_completed_by_the_answer_lies_no_more(at_first_trick):
    """The last card of a trick never seen, the trick swept, the card answered: the middle is
    empty, so the next trick's unclear lead at its seat's spot is asked, not set aside as a quad
    found on a trick still lying."""
    controller, trick, start = at_first_trick
    for k, code in enumerate(trick.cards[:3]):
        controller.on_event(at_spot(code, (trick.leader + k) % 4))
    notices = controller.on_event(_sweep())
    assert notices[-1].kind == CONFIRM and controller.pending[0].reason == "missing"
    assert applied(controller.on_decision(("correct_card", trick.cards[3]))) == [((trick.leader + 3) % 4, trick.cards[3])]
    assert not controller.whole_trick_lying()
    leader = controller.deal.to_play
    lead = random_deal(4, 8).tricks[1].cards[0]
    quad = at_spot(None, leader).corners
    notices = controller.on_event(TableEvent("uncertain", 0, 0.0, "middle", None, corners=quad,
                                             candidates=[(lead, 0.7)]))
    assert any(n.kind == CONFIRM for n in notices) and controller.aside is None

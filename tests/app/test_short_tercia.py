"""A Trivium tercia laid with a card the camera never saw: once another seat discards, that
seat's turn is over, and the table asks for the missing card (the cards that complete the
tercia offered first) before it takes the discard."""

import pytest
from hypothesis import given, settings, strategies as st

from device.app.controller import APPLIED, CONFIRM, SKIPPED_CARD
from device.app.registry import game_for
from device.app.session import GameSession
from device.games.trivium.controller import TriviumController, starts_another
from device.storage.deal_log import DealLog
from engine.cards import CODES, card
from engine.trivium import random_game, table_view
from engine.trivium.combinations import check_tercia, completions, tercia_value
from vision.events import TableEvent

NAMES = ["Ana", "Luis", "Marta", "Pau"]
DISCARDS = ("draw_from_pozo", "take_from_olla")


def seen(code, zone="middle"):
    return TableEvent("appeared", 0, 0.0, zone, code)


@pytest.fixture
def log(tmp_path):
    with DealLog.open(tmp_path / "log.db") as opened:
        yield opened


def short_before_a_discard(ops, i):
    """Whether the tercia ``ops[i]`` is followed by another seat's discard (the moment the table
    can tell it was laid short)."""
    d = ops[i]
    following = ops[i + 1] if i + 1 < len(ops) else None
    return (d["op"] == "lay_tercia" and len(d["cards"]) == 3 and following is not None
            and following["op"] in DISCARDS and following["seat"] != d["seat"])


def followed_by_its_own_tercia(ops, i):
    """Whether the tercia ``ops[i]`` is followed by the same seat's next tercia, whose first card
    cannot complete the first two cards of this one (the table can tell this one was short)."""
    d = ops[i]
    following = ops[i + 1] if i + 1 < len(ops) else None
    return (d["op"] == "lay_tercia" and len(d["cards"]) == 3 and following is not None
            and following["op"] == "lay_tercia" and following["seat"] == d["seat"]
            and following["cards"][0] not in completions(d["cards"][:2], CODES))


def play(log, seed, missed_per_tercia, answer, short_when=short_before_a_discard):
    """A bot's game seen by the controller, the camera missing the last ``missed_per_tercia``
    cards of every tercia for which ``short_when(ops, i)`` holds; each question is answered by
    ``answer(controller, pending, missing)``. Returns the truth, the session, the questions
    (pending cards as asked, with the cards then missing) and how many tercias were laid short."""
    truth = random_game(NAMES, seed)
    ops = [op.to_dict() for op in table_view(truth)]
    session = GameSession.resume_or_start(log, game_for("trivium"), NAMES, label="tv")
    controller = TriviumController(session)
    questions, short, missing = [], 0, {}

    def answered(notices):
        while controller.pending:
            pending = controller.pending[0]
            questions.append((pending, list(missing.get(pending.seat, []))))
            notices = answer(controller, pending, missing)
        return notices

    for i, d in enumerate(ops):
        if d["op"] == "lay_tercia":
            zone = f"seat{d['seat'] + 1}"
            cut = len(d["cards"]) - (missed_per_tercia if short_when(ops, i) else 0)
            for code in d["cards"][:cut]:
                notices = answered(controller.on_event(seen(code, zone)))
            if cut < len(d["cards"]):
                short += 1
                missing[d["seat"]] = list(d["cards"][cut:])
                assert notices[-1].kind != APPLIED  # short: nothing laid yet
                continue
        elif d["op"] in DISCARDS:
            if d["op"] == "take_from_olla":
                controller.on_event(TableEvent("removed", 0, 0.0, "middle", session.state.olla_top))
            notices = answered(controller.on_event(seen(d["discard"])))
        elif d["op"] == "deal":
            notices = controller.on_decision(("deal", d["starter"], d["dealer"]))
        else:
            notices = controller.on_decision(("op", d))
        assert notices[-1].kind == APPLIED, (d, notices)
    return truth, session, questions, short


def at_a_short_tercia(log, seen_count=2):
    """The first tercia of seed 1's game that another seat's discard follows, ``seen_count`` of
    its cards seen, then that discard seen in the middle. Returns the controller, the tercia
    and the discard (operations as dicts) and the notices of the discard."""
    controller = TriviumController(GameSession.resume_or_start(log, game_for("trivium"), NAMES, label="tv"))
    ops = [op.to_dict() for op in table_view(random_game(NAMES, 1))]
    i = next(k for k in range(len(ops)) if short_before_a_discard(ops, k))
    for d in ops[:i]:
        controller.on_decision(("deal", d["starter"], d["dealer"]) if d["op"] == "deal" else ("op", d))
    tercia, discard = ops[i], ops[i + 1]
    for code in tercia["cards"][:seen_count]:
        controller.on_event(seen(code, f"seat{tercia['seat'] + 1}"))
    if discard["op"] == "take_from_olla":
        controller.on_event(TableEvent("removed", 0, 0.0, "middle", controller.session.state.olla_top))
    return controller, tercia, discard, controller.on_event(seen(discard["discard"]))


def name_it(controller, pending, missing):
    return controller.on_decision(("confirm_card", missing[pending.seat].pop(0)))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_tercia_laid_short_is_asked_for_at_the_next_discard(log, seed):
    truth, session, questions, short = play(log, seed, 1, name_it)
    assert short > 0 and len(questions) == short
    for pending, missing in questions:
        assert pending.reason == SKIPPED_CARD and pending.zone == f"seat{pending.seat + 1}"
        # two cards seen leave one value (or El Loco): the card missed is among the first offered
        done = completions([c for c in truth_tercia(truth, pending.seat, missing)], CODES)
        assert missing[0] in pending.possible[:len(done)]
    assert session.deal_over and list(session.state.scores) == list(truth.scores)


def truth_tercia(truth, seat, missing):
    """The cards seen of the tercia of ``seat`` that misses ``missing``."""
    for op in table_view(truth):
        d = op.to_dict()
        if d["op"] == "lay_tercia" and d["seat"] == seat and set(missing) <= set(d["cards"]):
            return [c for c in d["cards"] if c not in missing]
    raise AssertionError("no such tercia")


@pytest.mark.parametrize("seed", [1, 3, 9])
def test_a_tercia_laid_short_is_asked_for_when_the_seats_next_tercia_starts(log, seed):
    """The seat lays its next tercia at once: its first card, which cannot make the two cards
    seen 21, waits while the third card of the first tercia is asked for; then both are laid."""
    truth, session, questions, short = play(log, seed, 1, name_it, followed_by_its_own_tercia)
    assert short > 0 and len(questions) == short
    for pending, missing in questions:
        assert pending.reason == SKIPPED_CARD and missing[0] in pending.possible
    assert session.deal_over and list(session.state.scores) == list(truth.scores)


def followed_by_a_tercia_it_cannot_share(ops, i):
    """Whether the tercia ``ops[i]`` is followed by the same seat's next tercia, whose first card
    can be in no tercia with this one's first card (seen alone, this one was laid short)."""
    d = ops[i]
    following = ops[i + 1] if i + 1 < len(ops) else None
    return (d["op"] == "lay_tercia" and len(d["cards"]) == 3 and following is not None
            and following["op"] == "lay_tercia" and following["seat"] == d["seat"]
            and starts_another(d["cards"][0], following["cards"][0]))


@pytest.mark.parametrize("seed", [10, 21, 27, 29])
def test_a_tercia_seen_as_one_card_is_asked_for_when_the_seats_next_tercia_cannot_share_it(log, seed):
    """Only the first card of a tercia seen, then the seat's next tercia, whose first card can be
    in no tercia with it: both missing cards are asked for, one after the other (the second with
    the cards that make the two 21 first), the next card waiting; then both tercias are laid."""
    truth, session, questions, short = play(log, seed, 2, name_it, followed_by_a_tercia_it_cannot_share)
    assert short > 0 and len(questions) == 2 * short
    for k, (pending, missing) in enumerate(questions):
        assert pending.reason == SKIPPED_CARD and missing[0] in pending.possible
        if k % 2:  # two cards seen now: one value completes them
            seen_two = truth_tercia(truth, pending.seat, missing)
            assert missing[0] in pending.possible[:len(completions(seen_two, CODES))]
    assert session.deal_over and list(session.state.scores) == list(truth.scores)


def test_a_card_that_may_share_the_one_card_seen_asks_nothing(log):
    """T15 seen alone in Ana's zone, then H05 (15 + 5 + 1 = 21): it may be the same tercia's,
    so nothing is asked; T15 then H10 (25 already): it cannot, and the tercia's cards are asked."""
    controller = TriviumController(GameSession.resume_or_start(log, game_for("trivium"), NAMES, label="tv"))
    controller.on_decision(("deal", 0, 0))
    controller.on_event(seen("C01"))  # Ana, who starts, discards first
    controller.on_event(seen("T15", "seat1"))
    assert controller.on_event(seen("H05", "seat1"))[-1].kind != CONFIRM and controller.groups[0] == ["T15", "H05"]
    controller.on_event(TableEvent("cleared", 0, 0.0, "seat1"))  # taken back
    controller.on_event(seen("T15", "seat1"))
    assert controller.on_event(seen("H10", "seat1"))[-1].kind == CONFIRM
    assert controller.groups[0] == ["T15"] and controller.held[0].card == "H10"
    assert not starts_another("T15", "HK") and not starts_another("T21", "EX") and not starts_another("SK", "T15")


def test_the_card_just_seen_named_as_the_third_makes_the_group_the_rules_flag(log):
    """The player laid a group that is no tercia: answering with the card just seen lays it
    (flagged by the rules), and that card is not collected again for a next group."""
    controller = TriviumController(GameSession.resume_or_start(log, game_for("trivium"), NAMES, label="tv"))
    controller.on_decision(("deal", 0, 0))
    assert controller.on_event(seen("C01"))[-1].kind == APPLIED  # Ana, who starts, discards first
    for code in ("S03", "H08"):
        controller.on_event(seen(code, "seat1"))
    assert controller.on_event(seen("S05", "seat1"))[-1].kind == CONFIRM  # 3 + 8 + 5: not 21
    pending = controller.pending[0]
    # the cards that make 3 + 8 twenty-one first, the card just seen third (the OLED's first choices)
    assert pending.possible[:7] == ("T10", "EX", "S05", "S10", "H10", "D10", "C10")
    controller.on_decision(("correct_card", "S05"))
    laid = controller.session.state.state.laid[0]  # Ana's, who starts
    assert [g.cards for g in laid] == [("S03", "H08", "S05")] and not laid[0].valid
    assert not controller.pending and 0 not in controller.groups  # S05 is not the start of another group


def test_two_cards_missed_are_asked_one_after_the_other(log):
    truth, session, questions, short = play(log, 1, 2, name_it)
    assert short > 0 and len(questions) == 2 * short
    assert session.deal_over and list(session.state.scores) == list(truth.scores)


def test_the_question_names_the_seat_and_holds_the_discard(log):
    controller, d, discard, notices = at_a_short_tercia(log)
    assert notices[-1].kind == CONFIRM and notices[-1].seat == d["seat"] and NAMES[d["seat"]] in notices[-1].text
    before = controller.session.operations_count
    assert controller.held and controller.session.operations_count == before  # the discard waits
    notices = controller.on_decision(("confirm_card", d["cards"][2]))
    assert [n.kind for n in notices if n.kind == APPLIED] == [APPLIED, APPLIED]  # the tercia, then the discard
    assert [op.to_dict()["op"] for op in controller.session.state.operations[-2:]] == ["lay_tercia", discard["op"]]


def test_not_a_card_lets_the_short_tercia_be(log):
    """The player says no card was missed: the discard is taken, and the same short group is
    not asked about again at the next discard."""
    controller, d, _, notices = at_a_short_tercia(log)
    assert notices[-1].kind == CONFIRM
    notices = controller.on_decision(("reject_card",))
    assert any(n.kind == APPLIED for n in notices) and not controller.pending  # the discard, taken as seen
    assert controller._short_tercia(besides=None) is None  # dismissed while it stays as it is
    controller.on_event(seen(d["cards"][2], f"seat{d['seat'] + 1}"))  # the third card seen after all: laid
    assert d["seat"] not in controller.groups


def test_a_seat_discarding_with_its_own_tercia_short_is_not_asked(log):
    truth = random_game(NAMES, 1)
    ops = [op.to_dict() for op in table_view(truth)]
    controller = TriviumController(GameSession.resume_or_start(log, game_for("trivium"), NAMES, label="tv"))
    k = next(k for k, d in enumerate(ops) if d["op"] in DISCARDS)
    for d in ops[:k]:
        controller.on_decision(("deal", d["starter"], d["dealer"]) if d["op"] == "deal" else ("op", d))
    seat = ops[k]["seat"]
    held = [c for c in CODES if tercia_value(card(c)) and c not in {ops[k]["discard"]}
            and c in controller.possible_cards()][:1]
    controller.groups[seat] = held  # one card of the discarding seat's own tercia, laid before its discard
    if ops[k]["op"] == "take_from_olla":
        controller.on_event(TableEvent("removed", 0, 0.0, "middle", controller.session.state.olla_top))
    notices = controller.on_event(seen(ops[k]["discard"]))
    assert notices[-1].kind == APPLIED and not controller.pending


VALUED = [c for c in CODES if tercia_value(card(c)) is not None]


@given(st.sampled_from(VALUED), st.sampled_from(VALUED))
def test_the_cards_that_complete_two_are_those_of_the_value_left_and_el_loco(a, b):
    got = set(completions([a, b], CODES))
    left = 21 - tercia_value(card(a)) - tercia_value(card(b))
    if a == b or card(a).rank == 21 and card(a).is_trump or card(b).rank == 21 and card(b).is_trump:
        return  # not two cards of a tercia
    want = {c for c in VALUED if tercia_value(card(c)) == left and c not in (a, b) and not (card(c).is_trump and left == 21)}
    if 1 <= left <= 20:
        want.add("EX")
    assert got == want
    assert all(check_tercia([a, b, c]).is_combination for c in got)


def test_xxi_or_loco_alone_is_completed_by_the_other():
    assert completions(["T21"], CODES) == ("EX",) and completions(["EX"], CODES) == ("T21",)
    assert completions(["S05"], CODES) == ()
    assert completions(["T21"], CODES, allow_pair=False) == ()


def test_the_check_card_screen_says_whose_card_it_is(log):
    """A short tercia's question is its seat's card; a card in the middle, the discard onto the
    olla of the seat whose exchange it is."""
    from types import SimpleNamespace

    from device.games.trivium.screens import pending_place
    from device.screens.status import whose_card
    from device.app.views import confirm_view

    controller, d, _, _ = at_a_short_tercia(log)
    app = SimpleNamespace(session=controller.session)
    pending = controller.pending[0]
    assert pending_place(app, pending) == {"seat": d["seat"]}
    assert whose_card(confirm_view(pending, NAMES, **pending_place(app, pending)), "en") == f"Played by {NAMES[d['seat']]}"
    controller.on_decision(("confirm_card", d["cards"][2]))
    unclear = TableEvent("uncertain", 0, 0.0, "middle", None, candidates=(("S05", 0.5),))
    controller.on_event(unclear)
    olla = controller.pending[0]
    seat = controller.session.state.next_to_exchange
    assert pending_place(app, olla) == {"seat": seat, "place": "olla"}
    assert whose_card(confirm_view(olla, NAMES, **pending_place(app, olla)), "en") == f"{NAMES[seat]} · the olla"


def test_an_answer_that_adds_no_card_lets_the_short_tercia_be(log):
    """Answered with a card already in the group, the question is not asked again and again:
    the discard is taken, the group left as it is."""
    controller, d, discard, notices = at_a_short_tercia(log)
    assert notices[-1].kind == CONFIRM
    notices = controller.on_decision(("correct_card", d["cards"][0]))
    assert not controller.pending and any(n.kind == APPLIED for n in notices)
    assert controller.session.state.operations[-1].to_dict()["op"] == discard["op"]
    assert controller.groups[d["seat"]] == d["cards"][:2]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 2), st.sampled_from(CODES)), min_size=1, max_size=4), st.integers(1, 2))
def test_whatever_is_answered_the_question_ends_and_the_discard_is_taken(answers, seen_count):
    """A short tercia's question answered with any cards at all (one already in the group, one
    already played, one that makes no tercia): within two answers nothing is asked any more about
    it, and the discard it held is taken; no exception, no question asked for ever."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp, DealLog.open(Path(tmp) / "log.db") as log:
        controller, d, _, _ = at_a_short_tercia(log, seen_count)
        asked = 0
        for answer in answers:  # a card of the tercia (by its place in it), or any card
            if not controller.pending:
                break
            asked += 1
            controller.on_decision(("correct_card", d["cards"][answer] if isinstance(answer, int) else answer))
        assert asked <= 2 and (not controller.pending or len(answers) < 2)
        if not controller.pending:
            assert not controller.held


ZONES = ("middle", "seat1", "seat2", "seat3", "seat4", "seat5", "nowhere")
EVENT = st.tuples(st.sampled_from(("appeared", "uncertain", "removed", "cleared", "moved")),
                  st.sampled_from(ZONES), st.sampled_from(CODES))
DECISION = st.one_of(st.tuples(st.sampled_from(("confirm_card", "correct_card", "card")), st.sampled_from(CODES)),
                     st.tuples(st.just("lay_card"), st.integers(-1, 4), st.sampled_from(CODES)),  # "Card not seen…"
                     st.sampled_from([("reject_card",), ("undo",), ("exchange", "olla"), ("exchange", "pozo")]))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(EVENT.map(lambda e: ("event", e)), DECISION.map(lambda d: ("decision", d))), max_size=40))
def test_whatever_the_camera_and_the_player_do_the_table_answers(actions):
    """Cards seen anywhere, unclear quads, zones swept, answers and undos in any order: every
    step answers with notices (no exception), the questions waiting stay few, and the log
    replays to the same state."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp, DealLog.open(Path(tmp) / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("trivium"), NAMES, label="tv")
        controller = TriviumController(session)
        controller.on_decision(("deal", 0, 0))
        for kind, what in actions:
            if kind == "event":
                kind_of, zone, code = what
                candidates = ((code, 0.5),) if kind_of == "uncertain" else ()
                event = TableEvent(kind_of, 0, 0.0, zone, None if kind_of in ("uncertain", "cleared") else code,
                                   candidates=candidates)
                notices = controller.on_event(event)
            else:
                notices = controller.on_decision(what)
            assert isinstance(notices, list)
            assert len(controller.pending) <= 2 and len(controller.held) <= len(actions)
        again = GameSession.resume_or_start(log, game_for("trivium"), NAMES, label="tv")
        assert [op.to_dict() for op in again.state.operations] == [op.to_dict() for op in session.state.operations]


def test_an_unclear_third_card_offers_the_cards_that_make_the_tercia_first(log):
    """Two cards of a tercia lie in Ana's zone (3 + 8): the unclear third is asked with the
    camera's candidates that make 21 first, then the other tens and El Loco, then the camera's
    other guesses; in a zone with no such pair, the camera's order stands."""
    controller = TriviumController(GameSession.resume_or_start(log, game_for("trivium"), NAMES, label="tv"))
    controller.on_decision(("deal", 0, 0))
    controller.on_event(seen("C01"))  # Ana, who starts, discards first
    for code in ("S03", "H08"):
        controller.on_event(seen(code, "seat1"))
    unclear = TableEvent("uncertain", 0, 0.0, "seat1", None, candidates=(("S09", 0.5), ("H10", 0.3), ("C04", 0.1)))
    assert controller.on_event(unclear)[-1].kind == CONFIRM
    pending = controller.pending[0]
    assert pending.best == "H10" and pending.confidence == 0.3
    fits = completions(["S03", "H08"], CODES)
    assert set(pending.alternatives[:len(fits) - 1]) == set(fits) - {"H10"}
    assert pending.alternatives[len(fits) - 1:len(fits) + 1] == ("S09", "C04")
    controller.on_decision(("reject_card",))
    elsewhere = TableEvent("uncertain", 0, 0.0, "seat2", None, candidates=(("S09", 0.5), ("H10", 0.3)))
    controller.on_event(elsewhere)
    assert controller.pending[0].best == "S09"  # no tercia being laid there

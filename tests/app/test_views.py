"""Engine states become view models that the screens draw, in every phase."""

from device.screens import render
from device.screens.views import BiddingView, DealEndView, MenuView, TargetView, TrickView, TriviumView
from device.games.french_tarot import screens as views
from device.games.trivium import screens as trivium_views
from engine.tarot import TarotDeal, random_deal

NAMES = ["Ana", "Luis", "Marta", "Pau"]


def replay_until(truth, stop):
    deal = TarotDeal(4, truth.dealer)
    for op in truth.operations[:stop]:
        deal.apply(op)
    return deal


def test_every_phase_of_a_deal_has_a_screen():
    truth = random_deal(4, 2)
    kinds = set()
    for k in range(len(truth.operations) + 1):
        deal = replay_until(truth, k)
        view = views.tarot_view(deal, NAMES, [])
        kinds.add(type(view))
        image = render(view, "en", "french")
        assert image.size == (128, 64)
        if deal.phase == "play":
            target = views.target_view(deal, NAMES)
            assert target.taker == NAMES[truth.taker]
            assert target.tricks_left == 18 - len(deal.tricks)
            render(target)
    assert {BiddingView, TrickView, DealEndView} <= kinds


def test_trick_view_marks_the_winner_between_tricks():
    truth = random_deal(4, 3)
    plays = [i for i, op in enumerate(truth.operations) if op.to_dict()["op"] == "play"]
    deal = replay_until(truth, plays[3] + 1)  # the first trick just completed
    view = views.trick_view(deal, NAMES)
    first = truth.tricks[0]
    assert [p.card for p in view.plays] == list(first.cards)
    assert view.plays[view.winner].seat == NAMES[first.winner]


def test_deal_end_view_matches_the_result():
    truth = random_deal(4, 5)
    view = views.deal_end_view(truth, NAMES)
    result = truth.result()
    assert view.made == result.won and view.score == result.scores[result.taker]
    assert view.points == result.attack_points


def test_violation_view_from_an_engine_violation():
    from engine.tarot import random_deal_with_revoke

    deal, fault = random_deal_with_revoke(4, 11)
    assert deal.violations
    view = views.violation_view(deal.violations[0], NAMES, deal)
    assert view.seat == NAMES[deal.violations[0].seat] and view.trick == deal.violations[0].trick
    render(view)


def test_trivium_view_follows_the_game():
    from engine.trivium import random_game

    game = random_game(NAMES, 3)
    view = trivium_views.trivium_view(game, NAMES)
    assert isinstance(view, TriviumView)
    laid = [len(s.tercias) for s in view.seats]
    assert laid == [len(s.laid) for s in game.seats]
    render(view)
    win = [a for a in game.announcements if a.kind == "win"][-1]
    announcement = trivium_views.announcement_view(win, NAMES)
    assert announcement.points == game.result.points
    render(announcement)

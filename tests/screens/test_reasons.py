"""The engines' reasons on the screen, in the screen's language (a message id
with arguments: seats as names, cards as labels, words translated)."""

from __future__ import annotations

import random

import pytest

from device.app.views import alert_view
from device.i18n import LANGUAGES, translator
from device.screens import render
from device.screens.draw import recording
from device.screens.reasons import reason_text
from engine.reasons import Reason
from engine.tarot import Bid, Play, TarotDeal, random_deal
from engine.trivium import TriviumGame
from engine.trivium.bot import random_game

NAMES = ["Ana", "Bertrand", "Carmen", "Dominique"]


def _refusals():
    """Refusals of both engines: cards played twice, out of turn, bids too low, Trivium turns."""
    out = []
    deal = TarotDeal(4, dealer=3)
    for seat, bid in [(0, "pass"), (1, "garde"), (2, "pass"), (3, "pass")]:
        deal.apply(Bid(seat, bid))
    out.append(deal.can(Bid(0, "prise")))
    for played in range(1, 60):
        full = random_deal(4, played)
        replayed = TarotDeal(4, full.dealer)
        ops = list(full.operations)
        rng = random.Random(played)
        k = rng.randrange(len(ops))
        for op in ops[:k]:
            replayed.apply(op)
        seat = replayed.to_play
        if seat is not None:
            earlier = [c for t in replayed.tricks for c in t.cards]
            if earlier:
                out.append(replayed.can(Play(seat, rng.choice(earlier))))
            out.append(replayed.can(Play((seat + 1) % 4, "EX")))
    game = random_game(3, 5)
    for op in game.operations[3:6]:
        trial = TriviumGame.replay(game.players, game.options, game.operations[:2])
        out.append(trial.can(op))
    return [r for r in out if r]


REFUSALS = _refusals()


def test_there_are_many_kinds_of_refusal():
    assert len({r.why.template for r in REFUSALS}) >= 4
    assert all(isinstance(r.why, Reason) for r in REFUSALS)


def _has_cards(why: Reason) -> bool:
    from engine.reasons import kind_of

    return any(kind_of(k) in ("card", "cards") or (isinstance(v, Reason) and _has_cards(v)) for k, v in why.args.items())


def test_english_reason_is_the_engine_message_with_card_labels():
    names = [f"seat {i}" for i in range(5)]
    plain = [r for r in REFUSALS if not _has_cards(r.why)]
    assert plain
    for r in plain:
        assert reason_text(r.why, "en", "french", names) == str(r)
    played_twice = next(r for r in REFUSALS if r.rule == "card_seen")
    card = played_twice.why.args["card"]
    from device.screens.labels import card_label
    assert reason_text(played_twice.why, "en", "french", names) == str(played_twice).replace(
        card, card_label(card, "en", "french"), 1)


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_every_refusal_is_translated_with_names(lang):
    tr = translator(lang)
    for r in REFUSALS:
        assert tr(r.why.template) != r.why.template, f"{lang}: {r.why.template!r} is not translated"
        text = reason_text(r.why, lang, "french", NAMES)
        assert "{" not in text and "seat " not in text, text


def test_the_reason_of_a_card_played_twice_in_french():
    deal = random_deal(4, 11, hidden=True)
    replay = TarotDeal(4, deal.dealer)
    ops = list(deal.operations)
    first_play = next(i for i, op in enumerate(ops) if isinstance(op, Play))
    for op in ops[:first_play + 5]:  # the first trick and one card of the second
        replay.apply(op)
    first = replay.tricks[0]
    refusal = replay.can(Play(replay.to_play, first.cards[0]))
    assert refusal.rule == "card_seen"
    view = alert_view(str(refusal), replay, NAMES, replay.to_play, first.cards[0], why=refusal.why)
    with recording() as items:
        render(view, "fr", "french")
    text = " ".join(i.shown for i in items)
    assert "a déjà été joué au pli 1 par" in text and NAMES[first.seats[0]] in text
    assert "was already played" not in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_words_in_reasons_are_translated(lang):
    why = Reason("{bid} does not outbid {contract}: every bid must be higher than the one before",
                 {"bid": "prise", "contract": "garde_sans"})
    text = reason_text(why, lang, "french", NAMES)
    assert {"en": "prise does not outbid garde sans", "fr": "prise ne couvre pas garde sans",
            "es": "toma no supera guarda sin"}[lang] in text


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_a_laid_group_that_is_not_a_tercia_is_explained_in_the_language(lang):
    from device.games.trivium.screens import announcement_view
    from engine.trivium.combinations import check_tercia
    from engine.trivium.state import Announcement

    verdict = check_tercia(["T10", "H06", "S04"])
    assert verdict.reason == "10 + 6 + 4 = 20, not 21" and not verdict.is_combination
    event = Announcement("not_tercia", 0, "Ana", f"Ana: not a tercia: {verdict.reason}",
                         why=Reason("not a tercia: {why}", {"why": verdict.why}))
    with recording() as items:
        render(announcement_view(event, NAMES), lang, "tarot")
    text = " ".join(i.shown for i in items)
    assert {"fr": "pas une tercia : 10 + 6 + 4 = 20, pas 21", "es": "no es una tercia: 10 + 6 + 4 = 20, no 21"}[lang] \
        in text.replace("  ", " ")
    assert "Ana: Ana" not in text

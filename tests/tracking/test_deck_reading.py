"""A deck the card model cannot read: the table's gauge of how surely the model reads the deck in
play (vision.deck_reading), and the tracker asking every card once the gauge says it is not read."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest
from hypothesis import given, strategies as st

from vision.deck_reading import READ_CARDS, READ_SURELY, DeckReading, ReadingNews, best_reading
import numpy as np

from vision.simulator import GroundTruthRecogniser, Idle, Play, TableSimulator
from vision.sources import Frame
from vision.tracker import Tracker
from vision.tracker import TrackerSettings
from vision.votes import Vote, scores

from .test_false_quads import SMALL, ScoredNamer, track

SCRIPT = [Idle(3), Play(1, "H01"), Play(2, "D03"), Play(3, "C10"), Play(4, "S10"), Idle(8)]


def _gauge(*readings: float) -> DeckReading:
    reading = DeckReading()
    for r in readings:
        reading.decided(r)
    return reading


def _read_at(p):
    """A namer naming every card as itself at ``p``, the rest of its mass spread over the other labels."""
    return lambda code, quad, view: {code: p} if code else {"unknown": 0.9}


# ----------------------------------------------------------------- the gauge


def test_the_deck_is_judged_only_once_enough_cards_were_decided():
    reading = _gauge(*[0.3] * (READ_CARDS - 1))
    assert reading.sure_share() is None and not reading.unread(0.2)
    reading.decided(0.3)
    assert reading.sure_share() == 0.0 and reading.unread(0.2)
    assert not reading.unread(0.0)  # the bar off
    reading.reset()
    assert reading.sure_share() is None


def test_the_share_read_surely_counts_the_latest_cards_only():
    reading = DeckReading(window=20)
    for _ in range(20):
        reading.decided(0.3)
    assert reading.unread(0.2)
    for _ in range(5):  # another deck, read: a quarter of the latest twenty
        reading.decided(0.95)
    assert reading.sure_share() == pytest.approx(0.25) and not reading.unread(0.2)
    assert len(reading.readings) == 20


@given(st.lists(st.floats(0.0, 1.0), max_size=80), st.floats(0.0, 1.0))
def test_unread_is_exactly_a_share_under_the_bar(readings, bar):
    reading = _gauge(*readings)
    share = reading.sure_share()
    assert share is None or 0.0 <= share <= 1.0
    assert reading.unread(bar) == (bar > 0 and share is not None and share < bar)
    if share is not None:
        latest = readings[-reading.window:]
        assert share == pytest.approx(sum(r >= READ_SURELY for r in latest) / len(latest))


def test_a_cards_reading_is_its_best_view_by_the_card_model_alone():
    fused = Vote("T11", 0.95, [("T11", 0.95)], model_top=[("T11", 0.55), ("CK", 0.2)])
    own = Vote("T11", 0.7, [("T11", 0.7)])  # no memory: the namer's own naming
    none_first = Vote(None, 0.9, [(None, 0.9), ("T11", 0.05)])
    assert best_reading([fused]) == pytest.approx(0.55)  # the memory's weighing is not the model's reading
    assert best_reading([fused, own, none_first]) == pytest.approx(0.7)
    assert best_reading([none_first]) == 0.0 and best_reading([]) == 0.0


# ----------------------------------------------------------------- the tracker


def test_on_a_deck_not_judged_yet_only_cards_read_surely_are_committed():
    # a deck never seen: a card the model names at 0.7 may be its look-alike; asked until the deck is judged
    reading = DeckReading()
    events, _ = track(SCRIPT, scores=_read_at(0.7), reading=reading)
    assert events == [("uncertain", None)] * 4
    assert len(reading.readings) == 4  # asked, and told to the gauge
    events, _ = track(SCRIPT, scores=_read_at(0.85), reading=DeckReading())
    assert events == [("appeared", c) for c in ("H01", "D03", "C10", "S10")]
    # the bar off: committed as the bars for one card say
    events, _ = track(SCRIPT, scores=_read_at(0.7), reading=DeckReading(),
                      settings=replace(TrackerSettings(), unjudged_sure=0.0))
    assert events == [("appeared", c) for c in ("H01", "D03", "C10", "S10")]


def test_once_the_deck_is_judged_read_middling_cards_are_committed_again():
    reading = _gauge(*[0.95] * (READ_CARDS - 2))
    events, _ = track(SCRIPT, scores=_read_at(0.7), reading=reading)  # judged read after two more cards
    assert events == [("uncertain", None)] * 2 + [("appeared", "C10"), ("appeared", "S10")]
    assert reading.sure_share() == pytest.approx((READ_CARDS - 2) / (READ_CARDS + 2))  # the four decided


def test_on_a_deck_the_model_cannot_read_every_card_is_asked():
    unread = _gauge(*[0.4] * 30)
    events, _ = track(SCRIPT, scores=_read_at(0.7), reading=unread)
    assert events == [("uncertain", None)] * 4
    assert len(unread.readings) == 34  # each card asked is decided, and told to the gauge
    # the same cards on a deck it reads, or with the bar off: named
    events, _ = track(SCRIPT, scores=_read_at(0.7), reading=_gauge(*[0.95] * 30))
    assert events == [("appeared", c) for c in ("H01", "D03", "C10", "S10")]
    events, _ = track(SCRIPT, scores=_read_at(0.7), reading=_gauge(*[0.4] * 30),
                      settings=replace(TrackerSettings(), unread_deck=0.0))
    assert [t for t, _ in events] == ["appeared"] * 4


def test_the_gauge_judges_the_deck_from_the_cards_it_decides():
    reading = _gauge(*[0.4] * (READ_CARDS - 2))
    events, _ = track(SCRIPT, scores=_read_at(0.7), reading=reading,  # two more cards, and it is judged
                      settings=replace(TrackerSettings(), unjudged_sure=0.0))
    assert events == [("appeared", "H01"), ("appeared", "D03"), ("uncertain", None), ("uncertain", None)]
    assert reading.sure_share() == 0.0


def test_a_deck_read_surely_keeps_being_named():
    reading = DeckReading()
    for _ in range(4):
        events, _ = track(SCRIPT, scores=_read_at(0.97), reading=reading)
        assert [t for t, _ in events] == ["appeared"] * 4
    assert reading.sure_share() == 1.0


class _Recalling(ScoredNamer):
    """A card model reading every card at 0.4, with a deck memory that names them alone at ``p``
    (``alone``, as vision.deck_memory.MemoryNamer does)."""

    def __init__(self, p):
        super().__init__(_read_at(0.4))
        self.p = p  # or scores(code, quad, view), as ScoredNamer takes them
        self.memory = ScoredNamer(p if callable(p) else _read_at(p))  # counting each card's views

    def alone(self):
        model, memory = self, self.memory

        class Alone:
            labels, names_alone = model.labels, True

            def run_with_model(self, crops):  # the memory's probabilities, and the card model's own apart
                return memory.run(crops)[0], None, model.run(crops)[0]

        return Alone()


def _asked(namer, reading, settings=TrackerSettings()):
    """(type, card, (best candidate, its score)) of each event the tracker gives on SCRIPT."""
    sim = TableSimulator(SCRIPT, players=4, seed=3, size=SMALL)
    oracle = GroundTruthRecogniser(sim, jitter=0.2)
    tracker = Tracker(sim.zones, localiser=oracle.localise, namer=namer, settings=settings, reading=reading,
                      cropper=lambda image, quad: (oracle.crop(image, quad), np.asarray(quad)))
    events = [e for f in oracle.frames() for e in tracker.process(Frame(f.image, f.timestamp, f.index))]
    events += tracker.flush()
    return [(e.type, e.card, e.candidates[0] if e.candidates else None) for e in events]


def test_on_a_deck_the_model_cannot_read_the_memory_alone_names_the_questions_candidates():
    cards = ("H01", "D03", "C10", "S10")
    asked = _asked(_Recalling(0.95), _gauge(*[0.4] * 30))
    assert [(t, card, best) for t, card, (best, _) in asked] == [("uncertain", None, c) for c in cards]
    assert [score for _, _, (_, score) in asked] == [pytest.approx(0.95, abs=0.01)] * 4  # asked, with the memory's reading
    off = replace(TrackerSettings(), unread_memory=False)  # the model's own candidates
    assert [score for _, _, (_, score) in _asked(_Recalling(0.95), _gauge(*[0.4] * 30), off)] == [
        pytest.approx(0.4, abs=0.01)] * 4
    # with a bar set, what the memory alone names at the bar or more, every view, is committed
    bar = replace(TrackerSettings(), memory_alone=0.9)
    assert _asked(_Recalling(0.95), _gauge(*[0.4] * 30), bar) == [("appeared", c, None) for c in cards]
    assert [t for t, _, _ in _asked(_Recalling(0.8), _gauge(*[0.4] * 30), bar)] == ["uncertain"] * 4
    # on a deck the model reads, the namer names as it always did (the model's own 0.4: asked)
    assert [t for t, _, _ in _asked(_Recalling(0.95), _gauge(*[0.95] * 30), bar)] == ["uncertain"] * 4
    # by default the bar is 0.99: named at 0.995 from the memory's pictures, committed; at 0.95, asked (above)
    assert TrackerSettings().memory_alone == 0.99
    assert _asked(_Recalling(0.995), _gauge(*[0.4] * 30)) == [("appeared", c, None) for c in cards]


def test_on_a_deck_the_model_cannot_read_one_view_the_memory_settles_names_a_card_every_view_puts_first():
    cards = ("H01", "D03", "C10", "S10")
    unread = [0.4] * 30

    def settled(code, quad, view):  # its second view's keypoints match a card's agreed views: 0.999
        return ({code: 0.9995} if view == 1 else {code: 0.8}) if code else {"unknown": 0.9}

    assert TrackerSettings().alone_sure_view == 0.999
    assert _asked(_Recalling(settled), _gauge(*unread)) == [("appeared", c, None) for c in cards]
    off = replace(TrackerSettings(), alone_sure_view=0.0)  # the mean of 0.87 under memory_alone: asked
    assert [t for t, _, _ in _asked(_Recalling(settled), _gauge(*unread), off)] == ["uncertain"] * 4

    # not when a view puts another card first, nor when a view was not named by the memory alone
    tracker = Tracker()
    sure, unsure = Vote("H01", 0.9995, [("H01", 0.9995)], alone=True), Vote("H01", 0.8, [("H01", 0.8)], alone=True)
    assert tracker._recalled([sure, unsure, unsure], "H01", 0.87)
    assert not tracker._recalled([sure, unsure, Vote(None, 0.29, [("T21", 0.29), ("H01", 0.28)], alone=True)], "H01", 0.87)
    assert not tracker._recalled([sure, unsure, Vote("H01", 0.8, [("H01", 0.8)])], "H01", 0.87)
    assert not tracker._recalled([unsure, unsure, unsure], "H01", 0.8)


def test_a_deck_named_by_the_memory_stays_judged_by_the_card_model():
    reading = _gauge(*[0.4] * 30)
    track(SCRIPT, namer=_Recalling(0.99), reading=reading)
    assert list(reading.readings)[-4:] == [pytest.approx(0.4)] * 4 and reading.unread(0.2)


class _NamesOnly:
    """A namer that gives only its best answer, on its own scale (as an enrolled deck's prototypes do)."""

    def __init__(self, p):
        self.p = p

    def name(self, crops):
        return [SimpleNamespace(card=code, confidence=self.p) for code, _quad in crops]


def test_a_namer_on_another_scale_than_the_card_models_is_never_judged():
    reading = _gauge(*[0.4] * 30)
    events, _ = track(SCRIPT, namer=_NamesOnly(0.7), reading=reading)
    assert events == [("appeared", c) for c in ("H01", "D03", "C10", "S10")]
    assert len(reading.readings) == 30  # nothing told


def test_the_news_is_said_once_per_change_of_judgement():
    reading = _gauge()
    tracker = SimpleNamespace(reading=reading, deck_unread=lambda: reading.unread(0.2))
    news = ReadingNews()
    assert news.news(tracker) is None and not news.unread  # read, as a deck is taken to be at first
    for _ in range(READ_CARDS):
        reading.decided(0.1)
    said = news.news(tracker)
    assert said is not None and "cannot read this deck" in said and news.unread
    assert news.news(tracker) is None and news.unread  # not said twice
    for _ in range(READ_CARDS * 5):
        reading.decided(0.95)
    assert "reads this deck again" in news.news(tracker) and not news.unread
    assert news.news(SimpleNamespace()) is None  # a tracker that does not judge the deck: never unread


def test_the_demos_scenes_share_one_gauge_and_say_when_the_deck_is_not_read():
    from device.demo.table import Recognition
    from vision.simulator import TableSimulator

    from .test_false_quads import ScoredNamer

    recognition = Recognition("truth", None, lambda _: None)
    recognition.kind, recognition.namer = "model", ScoredNamer()
    first, _ = recognition.tracker_and_frames(TableSimulator([Idle(2)], seed=1))
    second, _ = recognition.tracker_and_frames(TableSimulator([Idle(2)], seed=2))
    assert first.reading is second.reading  # one deck for the evening's scenes
    assert recognition.reading_news() is None  # read, as said at the start
    for _ in range(READ_CARDS):
        second.reading.decided(0.3)
    news = recognition.reading_news()
    assert news is not None and "cannot read this deck" in news and "0% of the latest 12 cards" in news
    assert recognition.reading_news() is None  # said once
    for _ in range(READ_CARDS):
        second.reading.decided(0.97)
    assert "reads this deck again" in recognition.reading_news()


def test_the_cards_asked_on_a_deck_not_read_say_why():
    from vision.simulator import GroundTruthRecogniser, TableSimulator
    from vision.sources import Frame
    from vision.tracker import Tracker

    from .helpers import SMALL
    from .test_false_quads import ScoredNamer

    def events_with(reading):
        sim = TableSimulator(SCRIPT, players=4, seed=3, size=SMALL)
        oracle = GroundTruthRecogniser(sim, jitter=0.2)
        tracker = Tracker(sim.zones, localiser=oracle.localise, namer=ScoredNamer(_read_at(0.7)), reading=reading,
                          cropper=lambda image, quad: (oracle.crop(image, quad), quad))
        out = []
        for f in oracle.frames():
            out += tracker.process(Frame(f.image, f.timestamp, f.index))
        return out + tracker.flush()

    asked = events_with(_gauge(*[0.4] * 30))
    assert [e.type for e in asked] == ["uncertain"] * 4 and all(e.unread for e in asked)
    assert not any(e.unread for e in events_with(_gauge(*[0.95] * 30)))


def test_a_card_asked_before_the_deck_is_judged_offers_the_models_card_first():
    asked = _asked(ScoredNamer(_read_at(0.7)), DeckReading())
    assert [(t, card, best) for t, card, (best, _) in asked] == [
        ("uncertain", None, c) for c in ("H01", "D03", "C10", "S10")]
    # an enrolled deck's prototypes (no card model's probabilities to gauge) are not held back
    class Prototypes:  # names on its own scale, its best answer only
        def name(self, crops):
            return [SimpleNamespace(card=code, confidence=0.7) for code, _ in crops]

    named = _asked(Prototypes(), DeckReading())
    assert [t for t, _, _ in named] == ["appeared"] * 4


def test_the_models_mean_over_all_views_counts_a_view_that_left_the_card_out_as_nothing():
    views = [Vote("CK", 0.9, [("CK", 0.9), ("CQ", 0.05)]), Vote(None, 0.8, [(None, 0.8), ("T19", 0.1)]),
             Vote("CK", 0.6, [("CK", 0.3)], model_top=[("CK", 0.3), ("T19", 0.2)])]
    model_mean = scores(views, model=True)
    assert model_mean.get("CK", 0.0) == pytest.approx(0.4)
    assert model_mean.get("T19", 0.0) == pytest.approx(0.1)
    assert scores([], model=True).get("CK", 0.0) == 0.0


def _sure_once_in_three(code, quad, view):
    """A card named at 0.85 on two views of three, the third taken for no card."""
    if not code:
        return {"unknown": 0.9}
    return {"unknown": 0.9} if view % 3 == 2 else {code: 0.85}


def test_before_the_deck_is_judged_a_card_the_model_names_surely_on_some_views_only_is_asked():
    judged = track(SCRIPT, scores=_sure_once_in_three, reading=_gauge(*[0.95] * 30))[0]
    assert judged == [("appeared", c) for c in ("H01", "D03", "C10", "S10")]
    # not judged yet: a view at 0.85, but a mean under 0.6 over its views
    assert track(SCRIPT, scores=_sure_once_in_three, reading=DeckReading())[0] == [("uncertain", None)] * 4
    off = replace(TrackerSettings(), unjudged_mean=0.0)
    assert track(SCRIPT, scores=_sure_once_in_three, reading=DeckReading(), settings=off)[0] == judged

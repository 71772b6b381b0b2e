"""The demo's summary counts are what happened at the table: every card the
camera had to see is read right, answered on the OLED, or entered by hand,
each counted here from the deal log and from what reached the table app (the
camera's events, the answers, the menu's cards), not from the demo's own
figures, over the whole deal even after a resume; the GIF's count is its
frames; --out errors are one line."""

from __future__ import annotations

import re
from collections import Counter
from contextlib import contextmanager

import pytest

from device.app.table import TableApp
from device.cli import EXIT_ERROR, main
from device.demo.table import DB_NAME, STATS_NAME, DemoSettings, run_demo
from device.games.french_tarot.controller import TarotController
from device.games.trivium.controller import TriviumController
from device.storage.deal_log import DealLog
from engine.errors import TarotmateError
from vision.namer import MODEL_FILE, models_dir

QUICK = dict(fast=True, display="none", recogniser="truth", frame_width=640, speed=3.0)
LINE = re.compile(r"(\d+) cards = (\d+) read right at once \+ (\d+) uncertain, answered on the OLED "
                  r"\+ (\d+) entered by hand")
VISUAL = {"play": "card", "chien": "cards", "lay_tercia": "cards", "draw_from_pozo": "discard",
          "take_from_olla": "discard"}  # the operations the camera sees, and where their cards are


def _camera_line(out):
    text = (out / "scores.txt").read_text()
    line = next(x for x in text.splitlines() if x.startswith("camera: "))
    total, right, uncertain, by_hand = map(int, LINE.search(line).groups())
    return total, right, uncertain, by_hand


class Witness:
    """Who gave each card of the log, seen at the table app's doors: ``camera`` (the
    tracker's events), ``oled`` (an answer to the OLED's question: confirm or correct
    the card shown, or name the missing one) or ``hand`` (a card, or a whole
    operation, entered from the menu)."""

    def __init__(self, monkeypatch, lose_every: int = 0):
        self.lose_every = lose_every  # the camera's events lost on the way: every n-th card appeared
        self.lost = 0
        self.source = None
        self.entries = []  # (operation index, card, source) of each card that counted: collected or committed
        self.commits = {}  # operation index -> the source of the call that committed it (the last time)
        self.appeared = Counter()  # cards the camera's events named
        witness = self

        def doors(name, source_of):
            original = getattr(TableApp, name)

            def door(app, arg):
                if name == "on_events":
                    arg = witness.passed(arg)
                before = len(app.session.state.operations)
                with witness.as_source(source_of(app, arg)):
                    notices = original(app, arg)
                    for k in range(before, len(app.session.state.operations)):
                        witness.commits[k] = witness.source
                return notices

            monkeypatch.setattr(TableApp, name, door)

        def events(app, events):
            for e in events:
                if e.type == "appeared" and e.card:
                    witness.appeared[e.card] += 1
            return "camera"

        def decision(app, d):
            if d[0] in ("confirm_card", "correct_card") and app.controller.pending:
                return "oled"
            return "hand" if d[0] in ("card", "op") else "menu"

        doors("on_events", lambda app, evs: events(app, evs))
        doors("on_decision", decision)
        for controller in (TarotController, TriviumController):
            self._watch_cards(monkeypatch, controller)

    def passed(self, events) -> list:
        """The events that reach the table app (``lose_every``: a card appeared now and then is lost)."""
        kept = []
        for e in events:
            if e.type == "appeared" and e.card and self.lose_every:
                self.lost += 1
                if self.lost % self.lose_every == 0:
                    continue
            kept.append(e)
        return kept

    @contextmanager
    def as_source(self, source):
        outer, self.source = self.source, self.source or source  # a nested call keeps the outer source
        try:
            yield
        finally:
            self.source = outer

    def _watch_cards(self, monkeypatch, controller):
        original = controller.card_seen
        witness = self

        def collected(c):
            return len(getattr(c, "chien_seen", ())) + sum(map(len, getattr(c, "groups", {}).values()))

        def card_seen(c, code, zone):
            k, held = len(c.session.state.operations), collected(c)
            notices = original(c, code, zone)
            if len(c.session.state.operations) > k or collected(c) > held:
                witness.entries.append((k, code, witness.source))
            return notices

        monkeypatch.setattr(controller, "card_seen", card_seen)

    def count(self, out) -> Counter:
        """{source: cards} over the visual operations of the deal (or game) in the demo's log."""
        with DealLog.open(out / DB_NAME, writer=False) as log:
            game = log.latest_game()
            deals = log.deals(game.id)
            assert len(deals) == 1, "one deal (or game) per run here"
            ops = log.operations(deals[0].id)
        sources = Counter()
        for k, op in enumerate(ops):
            if op["op"] not in VISUAL:
                continue
            cards = op[VISUAL[op["op"]]]
            for code in cards if isinstance(cards, list) else [cards]:
                given = [s for i, c, s in self.entries if i == k and c == code]
                sources[given[-1] if given else self.commits[k]] += 1
        return sources


def test_tarot_cards_add_up_to_the_deal(tmp_path, monkeypatch):
    # every fifth card the camera names is lost on its way: questions and hand entries follow
    witness = Witness(monkeypatch, lose_every=5)
    result = run_demo(DemoSettings(seed=3, out=tmp_path, **QUICK), report=lambda t: None)
    total, right, uncertain, by_hand = _camera_line(tmp_path)
    record = result["record"]
    chien = 6 if record["contract"] in ("prise", "garde") else 0
    sources = witness.count(tmp_path)
    assert total == 72 + chien == sum(sources.values())
    assert (right, uncertain, by_hand) == (sources["camera"], sources["oled"], sources["hand"])
    assert set(sources) == {"camera", "oled", "hand"}
    assert right > 0 and sum(witness.appeared.values()) >= right  # each read named by an event
    assert result["stats"].seen_right <= right  # measured at once: never more than the remainder


def test_trivium_cards_add_up(tmp_path, monkeypatch):
    witness = Witness(monkeypatch)
    run_demo(DemoSettings(game="trivium", seed=2, out=tmp_path, **QUICK), report=lambda t: None)
    total, right, uncertain, by_hand = _camera_line(tmp_path)
    sources = witness.count(tmp_path)
    assert total == sum(sources.values()) > 0
    assert (right, uncertain, by_hand) == (sources["camera"], sources["oled"], sources["hand"])


@pytest.mark.skipif(not (models_dir() / MODEL_FILE).is_file(), reason="needs the card model (models/cards.onnx)")
def test_the_counts_hold_on_the_card_model(tmp_path, monkeypatch):
    """The shipped model, not the simulator's truth, names the cards of one short game: its
    misreads, questions and hand entries are counted as they happened."""
    witness = Witness(monkeypatch)
    settings = DemoSettings(game="trivium", seed=5, out=tmp_path, conditions="hard", **{**QUICK, "recogniser": "model"})
    result = run_demo(settings, report=lambda t: None)
    assert "ONNX model" in result["stats"].recognition
    total, right, uncertain, by_hand = _camera_line(tmp_path)
    sources = witness.count(tmp_path)
    assert total == sum(sources.values()) > 0
    assert (right, uncertain, by_hand) == (sources["camera"], sources["oled"], sources["hand"])


def test_after_a_resume_the_counts_are_the_whole_deal(tmp_path, monkeypatch):
    # a card lost now and then, so that all three ways are counted on both sides of the stop
    Witness(monkeypatch, lose_every=5)
    whole = tmp_path / "whole"
    full = run_demo(DemoSettings(seed=3, out=whole, **QUICK), report=lambda t: None)
    monkeypatch.undo()
    witness = Witness(monkeypatch, lose_every=5)
    part = tmp_path / "part"
    with pytest.raises(TarotmateError, match="ran out of time"):
        run_demo(DemoSettings(seed=3, out=part, max_seconds=4, **QUICK), report=lambda t: None)
    assert (part / STATS_NAME).exists()
    stopped = witness.count(part)
    resumed = run_demo(DemoSettings(seed=3, out=part, **QUICK), report=lambda t: None)
    assert resumed["scores"] == full["scores"]
    total, right, uncertain, by_hand = _camera_line(part)
    sources = witness.count(part)
    assert 0 < sum(stopped.values()) < total == sum(sources.values())
    assert (right, uncertain, by_hand) == (sources["camera"], sources["oled"], sources["hand"])
    assert min(sources["camera"], sources["oled"], sources["hand"]) > 0
    assert _camera_line(part) == _camera_line(whole)  # the same scenes, the same cards lost
    assert resumed["stats"].frames >= full["stats"].frames * 0.9  # both parts counted, not only the resumed one


def test_the_gif_count_in_the_report_is_its_frames(tmp_path):
    from PIL import Image

    lines = []
    run_demo(DemoSettings(seed=3, out=tmp_path, **QUICK), report=lines.append)
    said = next(int(m.group(1)) for x in lines if (m := re.search(r"demo.gif \((\d+) screens\)", x)))
    with Image.open(tmp_path / "demo.gif") as gif:
        assert said == gif.n_frames


@pytest.mark.parametrize("where,why", [
    ("{tmp}/afile/out", "is a file, not a folder"),
    ("{tmp}/afile", "is a file, not a folder"),
    ("/proc/tarotmate/out", "cannot create it"),
])
def test_demo_out_that_cannot_be_used(tmp_path, capsys, where, why):
    (tmp_path / "afile").write_text("x")
    target = where.format(tmp=tmp_path)
    assert main(["demo", "--out", target, "--fast", "--display", "none", "--recogniser", "truth"]) == EXIT_ERROR
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.startswith("tarotmate demo: error: ")]
    assert len(lines) == 1 and "Traceback" not in err
    assert target in lines[0] and why in lines[0]

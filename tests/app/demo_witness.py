"""A witness of the demos: who gave each card of the deal log (the camera, an
answer on the OLED, the menu), counted at the table app's doors rather than
from the demo's own figures."""

from __future__ import annotations

from collections import Counter
from contextlib import contextmanager

from device.app.table import TableApp
from device.demo.table import DB_NAME
from device.games.french_tarot.controller import TarotController
from device.games.trivium.controller import TriviumController
from device.storage.deal_log import DealLog

VISUAL = {"play": "card", "chien": "cards", "lay_tercia": "cards", "draw_from_pozo": "discard",
          "take_from_olla": "discard"}  # the operations the camera sees, and where their cards are


class Witness:
    """Who gave each card of the log, seen at the table app's doors: ``camera`` (the
    tracker's events), ``oled`` (an answer to the OLED's question: confirm or correct
    the card shown, or name the missing one), ``hand`` (a card, or a whole
    operation, entered from the menu) or ``fix`` (a wrong card chosen and named
    right where it lay)."""

    def __init__(self, monkeypatch, lose_every: int = 0):
        self.lose_every = lose_every  # the camera's events lost on the way: every n-th card appeared
        self.lost = 0
        self.source = None
        self.entries = []  # (operation index, card, source) of each card that counted: collected or committed
        self.commits = {}  # operation index -> the source of the call that committed it (the last time)
        self.appeared = Counter()  # cards the camera's events named
        self.undone = []  # (operation index, operation) of each operation undone
        self.fixes = 0  # wrong cards fixed where they lay (fix_card applied)
        self.released = set()  # operation indexes committed, in the call under way, from events held behind a question
        witness = self

        def doors(name, source_of):
            original = getattr(TableApp, name)

            def door(app, arg):
                if name == "on_decision" and arg[0] == "undo" and app.session.state.operations:
                    ops = app.session.state.operations
                    witness.undone.append((len(ops) - 1, ops[-1].to_dict()))
                if name == "on_events":
                    arg = witness.passed(arg)
                before = len(app.session.state.operations)
                witness.released.clear()
                with witness.as_source(source_of(app, arg)):
                    notices = original(app, arg)
                    for k in range(before, len(app.session.state.operations)):
                        if k not in witness.released:  # committed from the camera's held events
                            witness.commits[k] = witness.source
                if name == "on_decision" and arg[0] == "fix_card" and notices and notices[-1].kind == "applied":
                    witness.entries.append((arg[1], arg[3], "fix"))
                    witness.fixes += 1
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
            # a card entered from the menu: "Correct a card" or Trivium's "Card not seen…"
            return "hand" if d[0] in ("card", "op", "lay_card", "correct_card") else "menu"

        doors("on_events", lambda app, evs: events(app, evs))
        doors("on_decision", decision)
        for controller in (TarotController, TriviumController):
            self._watch_cards(monkeypatch, controller)
        self._watch_held(monkeypatch)

    def _watch_held(self, monkeypatch):
        """The camera's events held behind a question are the camera's cards, even when the
        answer releases them."""
        from device.app.controller import Controller

        original = Controller._release_held
        witness = self

        def release(c):
            outer, witness.source = witness.source, "camera"
            before = len(c.session.state.operations)
            try:
                notices = original(c)
                for k in range(before, len(c.session.state.operations)):
                    witness.commits[k] = "camera"
                    witness.released.add(k)
                return notices
            finally:
                witness.source = outer

        monkeypatch.setattr(Controller, "_release_held", release)

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

    @staticmethod
    def operations(out) -> list[dict]:
        """The operations of the deal (or game) in the demo's log."""
        with DealLog.open(out / DB_NAME, writer=False) as log:
            game = log.latest_game()
            deals = log.deals(game.id)
            assert len(deals) == 1, "one deal (or game) per run here"
            return log.operations(deals[0].id)

    @staticmethod
    def cards(op: dict) -> list[str]:
        cards = op[VISUAL[op["op"]]]
        return cards if isinstance(cards, list) else [cards]

    def count(self, out) -> Counter:
        """{source: cards} over the visual operations of the deal (or game) in the demo's log."""
        sources = Counter()
        for k, op in enumerate(self.operations(out)):
            if op["op"] not in VISUAL:
                continue
            for code in self.cards(op):
                given = [s for i, c, s in self.entries if i == k and c == code]
                sources[given[-1] if given else self.commits[k]] += 1
        return sources

    def wrong(self, out) -> int:
        """The cards of the camera's operations that were undone for another in the log, or fixed where they lay."""
        ops = self.operations(out)
        wrong = 0
        for k, op in self.undone:
            if op["op"] in VISUAL and k < len(ops) and op != ops[k]:
                final = self.cards(ops[k]) if ops[k]["op"] in VISUAL else []
                wrong += len(set(self.cards(op)) - set(final)) or 1
        return wrong + self.fixes

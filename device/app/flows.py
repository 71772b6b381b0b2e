"""Menus for what the camera cannot see, driven by button events.

Pure state machines: feed them button events ``(button, kind)`` — button
``"up" | "down" | "ok" | "back"``, kind ``"press" | "long"`` — with
:meth:`Flow.handle`, which returns a list of *decisions* (tuples) for the app
to turn into engine operations:

==========================================  ==========================================
``('setup', game, variant, players)``       game, variant key, tuple of player names
``('bid', seat, bid)``                      seat index, ``pass|prise|garde|garde_sans|garde_contre``
``('all_passed',)``                         every seat passed
``('call', code)``                          the called King (or Queen) at 5 players
``('confirm_card', code)``                  the uncertain card is right
``('correct_card', code)``                  the card really is ``code``
``('poignee', seat, level)``                ``simple|double|triple``
``('chelem',)``                             the taker announces a chelem
``('undo',)``                               undo the last event
``('new_deal',)`` / ``('end_game',)``
``('cancel',)``                             the menu was left without a choice
==========================================  ==========================================

Keys: up/down move (a long press moves five), OK chooses, back returns to
the previous step (in the bidding: undoes the last bid), a long back leaves.
``flow.done`` is true once the flow has nothing more to ask; ``flow.view()``
is the view model to draw.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from device.i18n import N_, translator
from device.screens.labels import card_name, suit_name
from device.screens.views import ConfirmCardView, MenuView
from engine.cards import CODES, SUITS, card

Event = tuple[str, str]
Decision = tuple
BUTTONS = ("up", "down", "ok", "back")
KINDS = ("press", "long")
LONG_STEP = 5


@dataclass
class Step:
    """One list to choose from; ``on_pick(value)`` returns decisions."""

    title: str
    options: list[tuple[str, Any]]
    on_pick: Callable[[Any], list[Decision]]
    selected: int = 0
    hint: str = ""
    on_back: Callable[[], list[Decision]] | None = None
    marks: tuple[int, ...] = field(default_factory=tuple)

    def move(self, delta: int) -> None:
        self.selected = (self.selected + delta) % len(self.options)

    def view(self) -> MenuView:
        return MenuView(self.title, tuple(label for label, _ in self.options), self.selected, self.hint,
                        marks=self.marks)


class Flow:
    """A stack of steps; subclasses push the first one."""

    def __init__(self, lang: str = "en", style: str = "french") -> None:
        self.lang, self.style = lang, style
        self.tr = translator(lang)
        self.steps: list[Step] = []
        self.done = False

    @property
    def step(self) -> Step:
        return self.steps[-1]

    def push(self, step: Step) -> None:
        self.steps.append(step)

    def finish(self) -> None:
        self.done = True

    def handle(self, event: Event) -> list[Decision]:
        """Apply one button event; return the decisions it completes."""
        button, kind = event
        if button not in BUTTONS or kind not in KINDS:
            raise ValueError(f"not a button event: {event!r}")
        if self.done or not self.steps:
            return []
        step = self.step
        if button in ("up", "down"):
            delta = LONG_STEP if kind == "long" else 1
            step.move(-delta if button == "up" else delta)
            return []
        if button == "back":
            if kind == "long":
                self.finish()
                return [("cancel",)]
            if step.on_back is not None:
                return step.on_back()
            if len(self.steps) > 1:
                self.steps.pop()
                return []
            self.finish()
            return [("cancel",)]
        return step.on_pick(step.options[step.selected][1])

    def view(self):
        return self.step.view()


def yes_no(flow: Flow, title: str, decision: Decision) -> Step:
    def pick(yes: bool) -> list[Decision]:
        if not yes:
            flow.steps.pop()
            return []
        flow.finish()
        return [decision]

    return Step(title, [(flow.tr(N_("No")), False), (flow.tr(N_("Yes")), True)], pick)


def deck_memory_item(flow: Flow, known: int | None) -> list[tuple[str, Any]]:
    """The game menu's entry for the table's deck memory (none when the table does not learn):
    how many cards it knows by sight; choosing it offers to forget them."""
    if known is None:
        return []
    return [(flow.tr(N_("Deck: {n} cards known")).format(n=known), "deck_memory")]


def forget_deck(flow: Flow) -> Step:
    """"Forget the deck?" No / Yes: ``('forget_deck',)``."""
    return yes_no(flow, flow.tr(N_("Forget the deck?")), ("forget_deck",))


class CardPicker:
    """Pick a card in two steps: category (trumps, each suit, the Excuse), then rank.

    ``cards``: the cards to offer (e.g. the possible ones); ``None``: all 78.
    A category none of them belongs to is left out; one with a single card
    is that card. ``first``: cards offered by name before the categories (the
    likeliest ones), chosen in one step."""

    FIRST = "card:"

    def __init__(self, flow: Flow, title: str, on_card: Callable[[str], list[Decision]],
                 cards: Sequence[str] | None = None, first: Sequence[str] = ()) -> None:
        self.flow, self.title, self.on_card = flow, title, on_card
        self.cards = None if cards is None else frozenset(cards)
        self.first = tuple(first)

    def _codes(self, category: str) -> list[str]:
        if category == "EX":
            codes = ["EX"]
        elif category == "T":
            codes = [f"T{n:02d}" for n in range(21, 0, -1)]
        else:
            codes = [category + r for r in ("K", "Q", "N", "J")] + [f"{category}{n:02d}" for n in range(10, 0, -1)]
        return codes if self.cards is None else [c for c in codes if c in self.cards]

    def start(self) -> None:
        lang, style = self.flow.lang, self.flow.style
        categories = [(suit_name("T", lang, style), "T")]
        categories += [(suit_name(s, lang, style), s) for s in SUITS]
        categories += [(card_name("EX", lang, style), "EX")]
        categories = [(label, cat) for label, cat in categories if self._codes(cat)]
        named = [(card_name(code, lang, style), self.FIRST + code) for code in self.first]
        self.flow.push(Step(self.title, named + categories, self._category))

    def _category(self, category: str) -> list[Decision]:
        if category.startswith(self.FIRST):
            return self.on_card(category[len(self.FIRST):])
        codes = self._codes(category)
        if len(codes) == 1:
            return self.on_card(codes[0])
        lang, style = self.flow.lang, self.flow.style
        options = [(card_name(code, lang, style), code) for code in codes]
        self.flow.push(Step(self.title, options, self.on_card))
        return []


class FixCardPicker:
    """A card the camera read wrong, fixed where it lies: choose it among the cards read lately
    ("Which card is wrong?", each with its player), then name the right one:
    ``('fix_card', operation index, wrong, right)``.

    ``fixable``: (operation index, card, seat or None) of the cards read lately, the latest
    first (:func:`device.app.fixes.fixable`); ``first``: for a wrong card, the right cards most
    likely (offered by name before the suits)."""

    def __init__(self, flow: Flow, fixable: Sequence[tuple[int, str, int | None]], players: Sequence[str],
                 first: Callable[[int, str], Sequence[str]] | None = None) -> None:
        self.flow, self.fixable, self.players = flow, list(fixable), list(players)
        self.first = first

    def start(self) -> None:
        flow = self.flow
        options = []
        for index, code, seat in self.fixable:
            name = card_name(code, flow.lang, flow.style)
            options.append((f"{self.players[seat]}: {name}" if seat is not None and 0 <= seat < len(self.players)
                            else name, (index, code)))
        flow.push(Step(flow.tr(N_("Which card is wrong?")), options, self._which))

    def _which(self, chosen: tuple[int, str]) -> list[Decision]:
        index, wrong = chosen
        first = [c for c in (self.first(index, wrong) if self.first else ()) if c != wrong]
        CardPicker(self.flow, self.flow.tr(N_("The right card?")), lambda right: self._fixed(index, wrong, right),
                   cards=[c for c in CODES if c != wrong], first=first).start()
        return []

    def _fixed(self, index: int, wrong: str, right: str) -> list[Decision]:
        self.flow.finish()
        return [("fix_card", index, wrong, right)]


class ConfirmCardFlow(Flow):
    """An uncertain card: OK confirms it, an alternative or "Other card…" corrects it
    ("Other card…" offers ``others``, grouped by suit, or all 78 cards). ``unread``: asked
    because the card model cannot read the deck in play (the title says so)."""

    OTHER = "other"

    def __init__(self, code: str, confidence: float, alternatives: Sequence[str] = (), seat: str | None = None,
                 lang: str = "en", style: str = "french", trick: int | None = None, place: str = "trick",
                 others: Sequence[str] | None = None, unread: bool = False) -> None:
        super().__init__(lang, style)
        self.unread = unread
        self.others = None if others is None else tuple(others)  # what "Other card…" offers (None: all 78)
        self.code = card(code).code
        self.confidence = confidence
        self.alternatives = tuple(card(a).code for a in alternatives)
        self.seat = seat
        self.trick = trick
        self.place = place
        options = [(card_name(self.code, lang, style), self.code)]
        options += [(card_name(a, lang, style), a) for a in self.alternatives]
        options += [(self.tr(N_("Other card…")), self.OTHER)]
        self.push(Step(self.tr(N_("Deck not read") if unread else N_("Check card")), options, self._pick))

    def _pick(self, value: str) -> list[Decision]:
        if value == self.OTHER:
            CardPicker(self, self.tr(N_("Which card?")), self._corrected, self.others).start()
            return []
        self.finish()
        return [("confirm_card", value) if value == self.code else ("correct_card", value)]

    def _corrected(self, code: str) -> list[Decision]:
        self.finish()
        return [("confirm_card", code) if code == self.code else ("correct_card", code)]

    def view(self):
        if len(self.steps) == 1:
            return ConfirmCardView(self.code, self.confidence, self.alternatives, self.step.selected, self.seat,
                                   self.trick, self.place, self.unread)
        return self.step.view()


class ChoiceFlow(Flow):
    """A one-step menu whose pick is one decision."""

    def __init__(self, title: str, options: list[tuple[str, tuple]], lang: str = "en", style: str = "french"):
        super().__init__(lang, style)
        self.push(Step(title, options, self._pick))

    def _pick(self, decision: tuple) -> list[tuple]:
        self.finish()
        return [decision]

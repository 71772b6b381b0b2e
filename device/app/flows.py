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
from device.screens.labels import BID_NAMES, GAME_NAMES, POIGNEE_NAMES, card_name, suit_name
from device.screens.views import BIDS, POIGNEE_LEVELS, BiddingView, ConfirmCardView, MenuView
from engine.cards import SUITS, card
from engine.errors import TarotmateError

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


def _yes_no(flow: Flow, title: str, decision: Decision) -> Step:
    def pick(yes: bool) -> list[Decision]:
        if not yes:
            flow.steps.pop()
            return []
        flow.finish()
        return [decision]

    return Step(title, [(flow.tr(N_("No")), False), (flow.tr(N_("Yes")), True)], pick)


class CardPicker:
    """Pick any of the 78 cards in two steps: category, then rank."""

    def __init__(self, flow: Flow, title: str, on_card: Callable[[str], list[Decision]]) -> None:
        self.flow, self.title, self.on_card = flow, title, on_card

    def start(self) -> None:
        tr, lang, style = self.flow.tr, self.flow.lang, self.flow.style
        categories = [(suit_name("T", lang, style), "T")]
        categories += [(suit_name(s, lang, style), s) for s in SUITS]
        categories += [(card_name("EX", lang, style), "EX")]
        self.flow.push(Step(self.title, categories, self._category))

    def _category(self, category: str) -> list[Decision]:
        if category == "EX":
            return self.on_card("EX")
        lang, style = self.flow.lang, self.flow.style
        if category == "T":
            codes = [f"T{n:02d}" for n in range(21, 0, -1)]
        else:
            codes = [category + r for r in ("K", "Q", "N", "J")] + [f"{category}{n:02d}" for n in range(10, 0, -1)]
        options = [(card_name(code, lang, style), code) for code in codes]
        self.flow.push(Step(self.title, options, self.on_card))
        return []


class SetupFlow(Flow):
    """Game, player count, variant and the players' names (chosen from the config list)."""

    COUNTS = {"tarot": (3, 4, 5), "trivium": (2, 3, 4)}

    def __init__(self, names: Sequence[str], variants: dict[str, list[tuple[str, str]]] | None = None,
                 lang: str = "en", style: str = "french") -> None:
        super().__init__(lang, style)
        if len(names) < 2:
            raise TarotmateError("the config lists fewer than 2 player names")
        self.names = list(names)
        self.variants = variants or {"tarot": [("FFT", "fft")], "trivium": [("Trivium", "standard")]}
        self.game = self.variant = ""
        self.count = 0
        self.players: list[str] = []
        games = [(self.tr(GAME_NAMES[g]), g) for g in ("tarot", "trivium")]
        self.push(Step(self.tr(N_("Game")), games, self._game))

    def _game(self, game: str) -> list[Decision]:
        self.game = game
        counts = [c for c in self.COUNTS[game] if c <= len(self.names)]
        if not counts:
            raise TarotmateError(f"the config lists too few player names for {game}")
        options = [(self.tr(N_("{n} players")).format(n=c), c) for c in counts]
        self.push(Step(self.tr(N_("Players")), options, self._count))
        return []

    def _count(self, count: int) -> list[Decision]:
        self.count = count
        variants = self.variants.get(self.game) or [("—", "standard")]
        if len(variants) == 1:
            return self._variant(variants[0][1])
        self.push(Step(self.tr(N_("Variant")), list(variants), self._variant))
        return []

    def _variant(self, key: str) -> list[Decision]:
        self.variant = key
        self.players = []
        return self._ask_player()

    def _ask_player(self) -> list[Decision]:
        if len(self.players) == self.count:
            self.finish()
            return [("setup", self.game, self.variant, tuple(self.players))]
        left = [(n, n) for n in self.names if n not in self.players]
        title = self.tr(N_("Seat {n}")).format(n=len(self.players) + 1)
        self.push(Step(title, left, self._player, on_back=self._unpick))
        return []

    def _player(self, name: str) -> list[Decision]:
        self.players.append(name)
        return self._ask_player()

    def _unpick(self) -> list[Decision]:
        self.steps.pop()
        if self.players:
            self.players.pop()
        return []


class BiddingFlow(Flow):
    """The auction, seat after seat from the dealer's right, then the called King at 5."""

    ORDER = BIDS[1:]

    def __init__(self, players: Sequence[str], dealer: int, lang: str = "en", style: str = "french") -> None:
        super().__init__(lang, style)
        if not 3 <= len(players) <= 5:
            raise TarotmateError(f"French tarot is played by 3 to 5 players, not {len(players)}")
        self.players = list(players)
        self.dealer = dealer
        self.bids: list[str | None] = [None] * len(players)
        self.spoken: list[int] = []  # seats in the order they bid
        self.called: str | None = None
        self._ask()

    def seat_to_bid(self) -> int | None:
        if len(self.spoken) == len(self.players):
            return None
        return (self.dealer + 1 + len(self.spoken)) % len(self.players)

    def best(self) -> tuple[int | None, str | None]:
        seat, best = None, None
        for s in self.spoken:
            bid = self.bids[s]
            if bid != "pass" and (best is None or self.ORDER.index(bid) > self.ORDER.index(best)):
                seat, best = s, bid
        return seat, best

    def _ask(self) -> None:
        seat = self.seat_to_bid()
        _, best = self.best()
        higher = self.ORDER[self.ORDER.index(best) + 1 :] if best else self.ORDER
        options = [(self.tr(BID_NAMES["pass"]), "pass")] + [(self.tr(BID_NAMES[b]), b) for b in higher]
        title = self.tr(N_("{name} bids")).format(name=self.players[seat])
        self.steps = [Step(title, options, self._bid, on_back=self._undo)]

    def _bid(self, bid: str) -> list[Decision]:
        seat = self.seat_to_bid()
        self.bids[seat] = bid
        self.spoken.append(seat)
        decisions: list[Decision] = [("bid", seat, bid)]
        if self.seat_to_bid() is not None:
            self._ask()
            return decisions
        taker, _ = self.best()
        if taker is None:
            self.finish()
            return decisions + [("all_passed",)]
        if len(self.players) == 5:
            self._ask_king(taker)
            return decisions
        self.finish()
        return decisions

    def _ask_king(self, taker: int) -> None:
        codes = [s + "K" for s in SUITS] + [s + "Q" for s in SUITS]
        options = [(card_name(c, self.lang, self.style), c) for c in codes]
        title = self.tr(N_("{name} calls")).format(name=self.players[taker])
        self.steps = [Step(title, options, self._call, on_back=self._undo)]

    def _call(self, code: str) -> list[Decision]:
        self.called = code
        self.finish()
        return [("call", code)]

    def _undo(self) -> list[Decision]:
        if not self.spoken:
            return []
        seat = self.spoken.pop()
        self.bids[seat] = None
        self._ask()
        return [("undo",)]

    def bidding_view(self) -> BiddingView:
        """The auction so far, for :func:`device.screens.render_bidding`."""
        return BiddingView(tuple(self.players), self.dealer, tuple(self.bids), self.seat_to_bid(), self.called)


class ConfirmCardFlow(Flow):
    """An uncertain card: OK confirms it, an alternative or "Other card…" corrects it."""

    OTHER = "other"

    def __init__(self, code: str, confidence: float, alternatives: Sequence[str] = (), seat: str | None = None,
                 lang: str = "en", style: str = "french") -> None:
        super().__init__(lang, style)
        self.code = card(code).code
        self.confidence = confidence
        self.alternatives = tuple(card(a).code for a in alternatives)
        self.seat = seat
        options = [(card_name(self.code, lang, style), self.code)]
        options += [(card_name(a, lang, style), a) for a in self.alternatives]
        options += [(self.tr(N_("Other card…")), self.OTHER)]
        self.push(Step(self.tr(N_("Check card")), options, self._pick))

    def _pick(self, value: str) -> list[Decision]:
        if value == self.OTHER:
            CardPicker(self, self.tr(N_("Which card?")), self._corrected).start()
            return []
        self.finish()
        return [("confirm_card", value) if value == self.code else ("correct_card", value)]

    def _corrected(self, code: str) -> list[Decision]:
        self.finish()
        return [("confirm_card", code) if code == self.code else ("correct_card", code)]

    def view(self):
        if len(self.steps) == 1:
            return ConfirmCardView(self.code, self.confidence, self.alternatives, self.step.selected, self.seat)
        return self.step.view()


class GameMenu(Flow):
    """The menu during a deal: undo, poignée, chelem, card correction, new deal, end of game."""

    def __init__(self, players: Sequence[str], lang: str = "en", style: str = "french") -> None:
        super().__init__(lang, style)
        self.players = list(players)
        tr = self.tr
        items = [
            (tr(N_("Undo last event")), "undo"),
            (tr(N_("Announce a poignée")), "poignee"),
            (tr(N_("Announce a chelem")), "chelem"),
            (tr(N_("Correct a card")), "correct"),
            (tr(N_("New deal")), "new_deal"),
            (tr(N_("End the game")), "end_game"),
        ]
        self.push(Step(tr(N_("Menu")), items, self._item))

    def _item(self, item: str) -> list[Decision]:
        tr = self.tr
        if item in ("undo", "chelem"):
            self.finish()
            return [(item,)]
        if item == "poignee":
            seats = [(name, i) for i, name in enumerate(self.players)]
            self.push(Step(tr(N_("Who shows it?")), seats, self._poignee_seat))
        elif item == "correct":
            CardPicker(self, tr(N_("Which card?")), self._corrected).start()
        elif item == "new_deal":
            self.push(_yes_no(self, tr(N_("New deal?")), ("new_deal",)))
        else:
            self.push(_yes_no(self, tr(N_("End the game?")), ("end_game",)))
        return []

    def _poignee_seat(self, seat: int) -> list[Decision]:
        levels = [(tr_level, level) for level, tr_level in
                  ((lv, self.tr(POIGNEE_NAMES[lv])) for lv in POIGNEE_LEVELS)]
        self.push(Step(self.players[seat], levels, lambda level: self._poignee(seat, level)))
        return []

    def _poignee(self, seat: int, level: str) -> list[Decision]:
        self.finish()
        return [("poignee", seat, level)]

    def _corrected(self, code: str) -> list[Decision]:
        self.finish()
        return [("correct_card", code)]

"""The demos' scripted player: what a person at the table would do.

A demo knows the *truth* (the operations of a random deal or game, as a
table sees them) and plays it scene by scene on the simulated table. Between
the camera's events the player

* enters every non-visual decision that is due (bids, the écart, a steal...)
  as a menu decision, as if pressed on the buttons;
* answers the OLED when a card is uncertain (confirms it, or picks the right
  one);
* undoes an operation the camera got wrong and enters the right one by hand;
* after a scene, enters by hand what the camera missed of it.

The player reads only the truth and the engine's state (never its own
memory), so after a restart it carries on from whatever the deal log holds.
Subclasses say which operations are visual, how a scene is drawn, and how
their game's operations are entered.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from device.app.controller import APPLIED
from device.app.table import TableApp
from device.app.session import GameSession
from engine.errors import TarotmateError

NAMES = ("Ana", "Luis", "Marta", "Pau", "Rosa")


@dataclass
class VisionStats:
    """How the camera side did, as the scripted player saw it, over the whole
    deal (or game): saved after each scene, so that a resumed demo counts the
    part played before too.

    Every card the camera had to see (``cards``: the cards played, the chien
    shown, the tercias laid, the discards) gets into the log one way: read
    right at once, answered on the OLED when uncertain (``confirmed``), or
    entered by hand (``entered_by_hand``: missed, or after undoing a wrong read,
    ``corrected``); so ``read_right`` is what is left, and the three add up."""

    frames: int = 0
    events: int = 0
    seen_right: int = 0  # cards committed from the camera without a question, and right
    confirmed: int = 0  # cards committed after a question
    fixed: int = 0  # wrong cards the player fixed where they lay (fix_card), not re-entered
    corrected: int = 0  # operations the camera got wrong, undone
    wrong: int = 0  # cards committed from the camera without a question, not the card played
    entered_by_hand: int = 0  # cards entered from the menu
    prompts: int = 0  # questions shown (uncertain or missing cards)
    presses: int = 0  # the player's button presses, bids and écart included
    unpriced: int = 0  # decisions no menu flow could price (counted as one press each)
    cards: int = 0  # cards the camera should have seen
    latencies: list[int] = field(default_factory=list)  # frames from a card at rest to its event
    sweep_latencies: list[int] = field(default_factory=list)  # frames from a zone emptied to its event
    seconds: float = 0.0
    recognition: str = ""
    details: list[str] = field(default_factory=list)
    counted_deals: list[int] = field(default_factory=list)  # the deals whose cards are in ``cards``
    deal_marks: list[dict] = field(default_factory=list)  # the counts as each deal started (``per_deal``)

    @property
    def read_right(self) -> int:
        return self.cards - self.confirmed - self.entered_by_hand - self.fixed

    PER_DEAL = (("prompts", "prompts"), ("wrong", "wrong"), ("by_hand", "entered_by_hand"),
                ("right", "seen_right"), ("confirmed", "confirmed"))

    def mark_deal(self, number: int) -> None:
        """The counts as deal ``number`` starts (once per deal, kept across a resume)."""
        if all(m["deal"] != number for m in self.deal_marks):
            self.deal_marks.append({"deal": number, **self._counts()})

    def _counts(self) -> dict:
        """The per-deal counts and the presses, as they stand now."""
        return {**{key: getattr(self, attr) for key, attr in self.PER_DEAL}, "presses": self.presses}

    def _deal_spans(self) -> list[tuple[dict, dict]]:
        """Each deal's counts as it started and as the next one started (the last: now), in order."""
        marks = sorted(self.deal_marks, key=lambda m: m["deal"])
        return list(zip(marks, marks[1:] + [self._counts()]))

    def per_deal(self) -> list[dict]:
        """The summary's ``per_deal``: each deal's prompts, wrong, by_hand, right and confirmed, in order."""
        return [{key: end[key] - start[key] for key, _ in self.PER_DEAL} for start, end in self._deal_spans()]

    def presses_per_deal(self) -> list[int | None]:
        """The buttons pressed in each deal, in order (None for a deal begun before they were counted per deal)."""
        return [end["presses"] - start["presses"] if "presses" in start and "presses" in end else None
                for start, end in self._deal_spans()]

    def camera(self) -> dict:
        """The summary's ``camera`` figures."""
        return {"right": self.seen_right, "wrong": self.wrong, "confirmed": self.confirmed,
                "by_hand": self.entered_by_hand, "fixed": self.fixed}

    def line(self) -> str:
        fps = self.frames / self.seconds if self.seconds else 0.0

        def count(n: int, what: str) -> str:
            return f"{n} {what if n == 1 else what.replace('card', 'cards', 1)}"

        undone = f" ({self.corrected} after undoing a wrong read)" if self.corrected else ""
        return (f"{self.frames} frames ({fps:.1f}/s) named by {self.recognition}: "
                f"{count(self.cards, 'card')} = {self.read_right} read right at once"
                f" + {self.confirmed} uncertain, answered on the OLED"
                f" + {self.entered_by_hand} entered by hand{undone}"
                + (f" + {self.fixed} fixed where they lay" if self.fixed else ""))

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "VisionStats":
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


def card_swaps(done: dict, truth: dict) -> list[tuple[str, str]] | None:
    """The (wrong, right) cards that make operation ``done`` the ``truth``'s when that is all they
    differ by (the same kind, seat and everything else); None otherwise."""
    if done.keys() != truth.keys() or done.get("op") != truth.get("op"):
        return None
    swaps = []
    for key in done:
        a, b = done[key], truth[key]
        if a == b:
            continue
        if isinstance(a, str) and isinstance(b, str) and key in CARD_KEYS:
            swaps.append((a, b))
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and key in CARD_KEYS:
            extra, missing = [c for c in a if c not in b], [c for c in b if c not in a]
            if len(extra) != len(missing) or any(c not in a for c in b if c not in missing):
                return None
            swaps += list(zip(extra, missing))
        else:
            return None
    return swaps or None


CARD_KEYS = ("card", "cards", "discard")


def frame_size(settings) -> tuple[int, int]:
    """The simulated camera's frame size (16:9)."""
    width = settings.frame_width or (960 if settings.fast else 1280)
    return width, width * 9 // 16


def scene_idle(fast: bool) -> int:
    """The still frames the demo's scenes hold between actions (fewer with ``--fast``)."""
    return 6 if fast else 10


def scene_simulator(settings, table, script, before: int):
    """The simulated table of one scene of the demo played with ``settings``: ``script`` in the
    evening's room ``table`` (light, lamp, camera), its noise drawn from the seed and ``before``,
    the deal's operations before the scene."""
    from vision.simulator import TableSimulator

    return TableSimulator(script, players=settings.players, size=frame_size(settings),
                          seed=settings.seed * 1000 + before, deck=settings.deck,
                          speed=settings.speed or (1.6 if settings.fast else 1.0), conditions=table)


class ScriptedDemo:
    """The shared part of the French tarot and Trivium demos."""

    visual: tuple[str, ...] = ()  # operation kinds the camera sees
    label = ""

    def __init__(self, game, settings, report: Callable[[str], None], truth_ops: list[dict]):
        self.game = game  # the device.app.registry.Game played
        self.settings = settings
        self.report = report
        self.truth_ops = truth_ops
        self.names = list(NAMES[: settings.players])
        self.stats = VisionStats()  # each deal's cards are counted as it starts (start_deal)
        self.number = 1  # the deal whose truth is played
        self.after_scene: Callable[[], None] | None = None  # saves the stats (set by the demo runner)
        self._asked = 0  # answers and hand entries since the last committed operation
        self._asked_at: dict[int, int] = {}  # of an operation committed wrong: its cards answered or entered
        from vision.simulator import draw_sim_conditions

        # the same table (light, lamp, camera) for every scene of every deal: one room, one evening
        self.table = draw_sim_conditions(getattr(settings, "conditions", "easy"), settings.seed)

    # -------------------------------------------------------- per game

    def truth_for(self, number: int, dealer: int) -> tuple[Any, list[dict]]:  # pragma: no cover - overridden
        """The truth of deal (game) ``number`` dealt by ``dealer``, and its operations as the table sees them."""
        raise NotImplementedError

    def start_deal(self, session: GameSession) -> None:
        """Play the truth of the session's current deal from now on."""
        number = session.deal.number
        if number != self.number:
            # a new deal at the same table: the room's light, the lamp and the camera (self.table,
            # drawn once from the demo's seed) stay as they were, as they do over a club evening
            self.truth, self.truth_ops = self.truth_for(number, session.deal.setup.get("dealer", 0))
            self.number = number
        if number not in self.stats.counted_deals:  # the cards the camera has to see in this deal too
            self.stats.counted_deals.append(number)
            self.stats.mark_deal(number)
            self.stats.cards += self.visual_cards()

    def first_setup(self, dealer: int) -> dict:
        """The setup of the demo's first deal: its dealer, the seed, the agreed number of deals, the target."""
        setup = {"dealer": dealer, "seed": self.settings.seed, "deals": getattr(self.settings, "deals", 1)}
        if getattr(self.settings, "target", None):
            setup["target"] = self.settings.target
        return setup

    def rules(self):
        """The game as the session plays it (a :class:`device.app.registry.Game`)."""
        return self.game

    def new_session(self, log) -> GameSession:  # pragma: no cover - overridden
        raise NotImplementedError

    def same(self, done: dict, truth: dict) -> bool:
        """Whether an operation in the log is the truth's (subclasses relax the card order)."""
        return done == truth

    def decision_for(self, op: dict) -> tuple:  # pragma: no cover - overridden
        raise NotImplementedError

    def pending_truth(self, app: TableApp, expected: dict | None) -> str | None:  # pragma: no cover
        """The right answer to the uncertain card on the OLED (None: not a card of this scene)."""
        raise NotImplementedError

    def scene(self, session: GameSession, expected: dict) -> tuple[list, str, Any]:  # pragma: no cover
        """The simulator script for the next visual operation, what it shows, and its scope."""
        raise NotImplementedError

    def enter_missing(self, app: TableApp, scope: Any) -> None:  # pragma: no cover - overridden
        """After a scene: enter by hand what the camera missed of it."""
        raise NotImplementedError

    def enter_right(self, app: TableApp, right: dict) -> None:  # pragma: no cover - overridden
        """After undoing a misread operation: enter the right one by hand."""
        raise NotImplementedError

    def cards_of(self, op: dict) -> int:
        return len(op["cards"]) if isinstance(op.get("cards"), list) else 1

    def visual_cards(self) -> int:
        """How many cards of the game the camera has to see."""
        return sum(self.cards_of(op) for op in self.truth_ops if op.get("op") in self.visual)

    # -------------------------------------------------------- the log against the truth

    def done_ops(self, session: GameSession) -> list[dict]:
        return [op.to_dict() for op in session.state.operations]

    def expected(self, session: GameSession) -> dict | None:
        k = len(session.state.operations)
        return self.truth_ops[k] if k < len(self.truth_ops) else None

    def check_against_truth(self, session: GameSession) -> None:
        done = self.done_ops(session)
        if len(done) != len(self.truth_ops) or not all(map(self.same, done, self.truth_ops)):
            raise TarotmateError("the game in the log differs from the game played on the table")

    # -------------------------------------------------------- the player

    def keep_in_step(self, app: TableApp) -> None:
        """Undo what the camera got wrong, answer the OLED, and enter every
        non-visual decision that is due, until the table is next."""
        session = app.session
        while True:
            done = self.done_ops(session)
            wrong = next((i for i, op in enumerate(done) if not self.same(op, self.truth_ops[i])), None)
            if wrong is not None and self.fix_in_place(app, wrong, done[wrong], self.truth_ops[wrong]):
                continue
            if wrong is not None:
                self.decide(app, ("undo",))
                if wrong == len(done) - 1:
                    self.stats.corrected += 1
                    self.stats.wrong += self.wrong_cards(done[-1], self.truth_ops[wrong])
                    self.stats.details.append(f"camera: {done[-1]} for {self.truth_ops[wrong]}")
                    self.report(f"player: the camera got {self._short(done[-1])} wrong: undo")
                    if self.truth_ops[wrong]["op"] in self.visual:
                        self.enter_right(app, self.truth_ops[wrong])
                continue
            expected = self.expected(session)
            if app.controller.pending:
                self._answer(app, expected)
                continue
            if expected is None or expected["op"] in self.visual:
                return
            notices = self.decide(app, self.decision_for(expected))
            if len(session.state.operations) == len(done):
                raise TarotmateError(f"the table app refused the player's {expected['op']}: "
                                     + "; ".join(n.text for n in notices))

    def fix_in_place(self, app: TableApp, index: int, done: dict, truth: dict) -> bool:
        """The camera got cards of operation ``index`` wrong, and nothing else of it: the player
        chooses each wrong card and names the right one (``fix_card``), as the menu lets them,
        instead of undoing. False (nothing done) when that is not the case or the table refuses."""
        swaps = card_swaps(done, truth)
        if not swaps:
            return False
        for wrong, right in swaps:
            notices = self.decide(app, ("fix_card", index, wrong, right))
            if not notices or notices[-1].kind != APPLIED:
                return False
        now = app.session.state.operations[index].to_dict()
        if not self.same(now, truth):
            return False
        self.stats.wrong += len(swaps)
        self.stats.fixed += len(swaps)
        self.stats.seen_right += max(0, self.cards_of(truth) - len(swaps) - self._asked_at.pop(index, 0))
        self.stats.details.append(f"camera: {done} for {truth}, fixed in place")
        self.report(f"player: the camera got {' '.join(w for w, _ in swaps)} wrong: fixed as "
                    f"{' '.join(r for _, r in swaps)}")
        return True

    def _answer(self, app: TableApp, expected: dict | None) -> None:
        truth_card = self.pending_truth(app, expected)
        if truth_card is None:
            self.decide(app, ("reject_card",))
            return
        best = app.controller.pending[0].best
        self.decide(app, ("confirm_card" if best == truth_card else "correct_card", truth_card), "confirmed")

    def decide(self, app: TableApp, decision: tuple, counted: str | None = None) -> list:
        """Enter ``decision`` as the buttons would (its presses counted); ``counted``:
        ``"confirmed"`` (a question answered) or ``"by_hand"`` (a card entered from the menu)."""
        from device.demo.presses import price

        k = len(app.session.state.operations)
        presses = price(app, decision)
        if presses is None:
            self.stats.unpriced += 1
            presses = 1
        self.stats.presses += presses
        if counted == "confirmed":
            self.stats.confirmed += 1
        elif counted == "by_hand":
            self.stats.entered_by_hand += 1
        if counted:
            self._asked += 1
        notices = app.on_decision(decision)
        # the answer's operation, then those of the camera's events held behind the question
        for i in range(k, max(k + 1, len(app.session.state.operations))):
            self._count_commit(app, i)
        return notices

    def _count_commit(self, app: TableApp, k: int) -> None:
        """After an operation was committed at index ``k``: the camera's cards in it that no
        question or hand entry gave, when it is the truth's, are read right."""
        done = app.session.state.operations
        if len(done) <= k:
            return
        truth = self.truth_ops[k] if k < len(self.truth_ops) else None
        op = done[k].to_dict()
        if truth is not None and truth["op"] in self.visual and self.same(op, truth):
            self.stats.seen_right += max(0, self.cards_of(truth) - self._asked)
        elif truth is not None and truth["op"] in self.visual:
            self._asked_at[k] = self._asked  # its other cards count as read right once it is fixed
        self._asked = 0

    def wrong_cards(self, done: dict, truth: dict) -> int:
        """How many cards of an operation the camera got wrong."""
        got, want = done.get("cards"), truth.get("cards")
        if isinstance(got, list) and isinstance(want, list):
            return len(set(got) - set(want)) or 1
        return 1

    @staticmethod
    def _short(op: dict) -> str:
        for key in ("card", "discard", "cards"):
            if key in op:
                value = op[key]
                return " ".join(value) if isinstance(value, list) else str(value)
        return op.get("op", "?")

    # -------------------------------------------------------- scenes

    def play_scene(self, app: TableApp, recognition) -> None:
        session = app.session
        expected = self.expected(session)
        script, what, scope = self.scene(session, expected)
        before = len(session.state.operations)
        s = self.settings
        simulator = scene_simulator(s, self.table, script, before)
        tracker, frames = recognition.tracker_and_frames(simulator)
        helped = getattr(s, "rules_help", True)
        controller = app.controller
        controller.rules_help = helped
        controller.seat_sides = getattr(s, "seat_sides", True)
        if getattr(s, "follow_weight", None) is not None and hasattr(controller, "follow_weight"):
            controller.follow_weight = s.follow_weight
        prompts = controller.prompts
        no_card = len(controller.no_card)

        def tell_tracker() -> None:
            """The cards the player named or fixed, and what the rules say the camera may see
            now (nothing, without their help)."""
            while controller.answered:
                tracker.identify(*controller.answered.pop(0))
            while controller.fixed:
                tracker.fixed(*controller.fixed.pop(0))
            tracker.possible = controller.possible_cards() if helped else None

        tell_tracker()
        trace = SceneTrace(recognition, tracker, simulator) if getattr(s, "trace", None) else None
        counts = (self.stats.wrong, self.stats.confirmed, self.stats.entered_by_hand, len(self.stats.details))
        started = time.perf_counter()
        seen_events = []
        for frame in frames:
            events = tracker.process(frame)
            self.stats.frames += 1
            if events:
                seen_events += events
                self._feed(app, events)
                tell_tracker()
            elif self.stats.frames % 10 == 0:
                app.outputs.idle()
        last = tracker.flush()
        seen_events += last
        self._feed(app, last)
        self.stats.seconds += time.perf_counter() - started
        self._measure(simulator, seen_events)
        self.keep_in_step(app)
        self.enter_missing(app, scope)
        self.keep_in_step(app)
        self.stats.prompts += controller.prompts - prompts
        if trace is not None:
            trace.write(s.trace, {
                "seed": s.seed, "players": s.players, "conditions": getattr(s, "conditions", "easy"), "helped": helped,
                "scene": what, "events": [{**e.to_dict(), "toward": e.toward} for e in seen_events],
                "prompts": controller.prompts - prompts, "asked": controller.asked[prompts:],
                "no_card": [e.frame for e in controller.no_card[no_card:]],
                "wrong": self.stats.wrong - counts[0],
                "confirmed": self.stats.confirmed - counts[1], "by_hand": self.stats.entered_by_hand - counts[2],
                "details": self.stats.details[counts[3]:]})
        app.tick += 1
        if self.after_scene is not None:
            self.after_scene()
        self.report(f"{what}: {len(session.state.operations) - before} operations (log: {session.operations_count})")

    def _feed(self, app: TableApp, events) -> None:
        session = app.session
        for event in events:
            k = len(session.state.operations)
            app.on_events([event])
            self.stats.events += 1
            self._count_commit(app, k)
            self.keep_in_step(app)

    def _measure(self, simulator, events) -> None:
        """Latencies of the scene's events against the simulator's truth."""
        from vision.simulator import score_events

        score = score_events(simulator.expected, events)
        self.stats.latencies += score.latencies
        self.stats.sweep_latencies += score.cleared_latencies

    def play(self, app: TableApp, recognition, deadline: float | None) -> None:
        """Scenes until the deal (or game) is over."""
        session = app.session
        self.keep_in_step(app)
        while not session.deal_over:
            if deadline is not None and time.monotonic() > deadline:
                raise TarotmateError("the demo ran out of time (--max-seconds); run it again to resume")
            if self.expected(session) is None:
                raise TarotmateError("the log went past the game played on the table")
            before = len(session.state.operations)
            self.play_scene(app, recognition)
            if len(session.state.operations) <= before:
                raise TarotmateError(f"the table app refused {self.expected(session)}: "
                                     + "; ".join(n.text for n in app.controller.history[-3:]))


class SceneTrace:
    """For diagnosis (``--trace``): every vote of a scene with the card truly under the
    voted quad (how visible, moving, how many hands over the table, its weight in the
    possible cards), written with the scene's expected events, events and outcome as
    one JSON line."""

    def __init__(self, recognition, tracker, simulator):
        self.recognition = recognition
        self.tracker = tracker
        # (type, frame, zone, card, seat): the seat whose hand laid the card (None: none)
        self.expected = [(e.type, e.frame, e.zone, e.card, getattr(simulator.script[e.action], "seat", None))
                         for e in simulator.expected]
        self.votes: list[dict] = []
        tracker.trace = self.record

    def record(self, what: str, index: int, ident: int, quad, data: dict) -> None:
        import numpy as np

        from vision.tracker import quad_distance

        sim = self.recognition.sim_frame
        row = {"what": what, "frame": index, "track": ident, **data}
        if sim is not None and sim.cards:
            best = min(sim.cards, key=lambda c: quad_distance(c.corners, np.asarray(quad, np.float32)))
            possible = self.tracker.possible
            row.update(truth=best.code, visible=round(float(best.visible), 3), moving=bool(best.moving),
                       corners_visible=best.corners_visible, hands=sim.hands,
                       off=round(quad_distance(best.corners, np.asarray(quad, np.float32)), 1),
                       weight=None if possible is None else possible.weight(best.code))
        if "top" in row:
            row["top"] = [[c, round(float(p), 3)] for c, p in row["top"]]
        self.votes.append(row)

    def settings_played(self) -> dict:
        """The tracker's settings that are not the defaults (the card model's own bars, a
        measurement's overrides): what a replay of the trace was played with."""
        from vision.tracker_settings import TrackerSettings, changed

        played = getattr(self.tracker, "settings", None)
        return changed(played) if isinstance(played, TrackerSettings) else {}

    def write(self, path, scene: dict) -> None:
        import json

        scene = {**scene, "tracker": self.settings_played(), "expected": self.expected, "votes": self.votes}
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(scene) + "\n")

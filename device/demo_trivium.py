"""The Trivium demo: a bot game from the engine, played on the simulated table.

The truth is ``engine.trivium.random_game`` seen as a camera sees it
(``table_view``: hidden hands, unseen draws). Tercias laid in front of a seat
and the cards discarded onto the olla are rendered by the table simulator and
go through the tracker and the controller; the deal, the choice of the olla,
steals and declarations are entered as menu decisions by the scripted player,
who also answers uncertain cards and enters by hand what the camera missed.
See :mod:`device.demo_table` for the French tarot demo and the shared parts.
"""

from __future__ import annotations

import time
from typing import Callable

from device.app import TableApp
from device.demo_table import NAMES, DemoSettings, Recognition, VisionStats, frame_size
from device.rules import TriviumRules
from device.session import GameSession
from device.store import DealLog
from engine.errors import TarotmateError

VISUAL = ("lay_tercia", "draw_from_pozo", "take_from_olla")


def normalised(op: dict) -> dict:
    """An operation compared without the order in which a group's cards were laid."""
    if op.get("op") in ("lay_tercia", "declare"):
        return {**op, "cards": sorted(op["cards"])}
    if op.get("op") == "take_from_olla":
        return {k: v for k, v in op.items() if k != "taken"}  # the engine knows the olla's top card
    return op


def decision_for(op: dict) -> tuple:
    kind = op["op"]
    if kind == "deal":
        return ("deal", op["starter"], op["dealer"])
    if kind == "steal":
        return ("steal", op["seat"], op["victim"], op["group"])
    if kind == "declare":
        return ("declare", op["seat"], tuple(op["cards"]))
    if kind == "withdraw":
        return ("withdraw", op["seat"], op["group"])
    return ("op", op)


class TriviumDemo:
    """One Trivium game played on the simulated table."""

    def __init__(self, settings: DemoSettings, report: Callable[[str], None]):
        from engine.trivium import random_game, table_view

        self.settings = settings
        self.report = report
        self.names = list(NAMES[: settings.players])
        truth = random_game(self.names, settings.seed)
        self.truth = truth
        self.truth_ops = [op.to_dict() for op in table_view(truth)]
        self.label = f"demo:trivium:{settings.players}:{settings.seed}"
        self.stats = VisionStats()

    def rules(self) -> TriviumRules:
        return TriviumRules()

    def new_session(self, log: DealLog) -> GameSession:
        return GameSession.resume_or_start(log, self.rules(), self.names, {}, label=self.label,
                                           first_setup={"dealer": 0, "seed": self.settings.seed})

    # -------------------------------------------------------- the scripted player

    def done_ops(self, session: GameSession) -> list[dict]:
        return [op.to_dict() for op in session.state.operations]

    def expected(self, session: GameSession) -> dict | None:
        k = len(session.state.operations)
        return self.truth_ops[k] if k < len(self.truth_ops) else None

    def keep_in_step(self, app: TableApp) -> None:
        session = app.session
        while True:
            done = self.done_ops(session)
            wrong = next((i for i, op in enumerate(done) if normalised(op) != normalised(self.truth_ops[i])), None)
            if wrong is not None:
                app.on_decision(("undo",))
                if wrong == len(done) - 1:
                    self.stats.corrected += 1
                    self.report(f"player: the camera got {done[-1]} wrong: undo")
                    right = self.truth_ops[wrong]
                    if right["op"] in VISUAL:  # and the right move, by hand, as a player would
                        app.controller.reset_collections()
                        self._enter_by_hand(app, right)
                continue
            expected = self.expected(session)
            if app.controller.pending:
                truth_card = self._pending_truth(app, expected)
                if truth_card is None:
                    app.on_decision(("reject_card",))
                else:
                    self.stats.confirmed += 1
                    best = app.controller.pending[0].best
                    app.on_decision(("confirm_card" if best == truth_card else "correct_card", truth_card))
                continue
            if expected is None or expected["op"] in VISUAL:
                return
            notices = app.on_decision(decision_for(expected))
            if len(session.state.operations) == len(done):
                raise TarotmateError(f"the table app refused the player's {expected['op']}: "
                                     + "; ".join(n.text for n in notices))

    def _pending_truth(self, app: TableApp, expected: dict | None) -> str | None:
        if expected is None:
            return None
        if expected["op"] == "lay_tercia":
            laid = app.controller.groups.get(expected["seat"], [])
            missing = [c for c in expected["cards"] if c not in laid]
            best = app.controller.pending[0].best
            return best if best in missing else (missing[0] if missing else None)
        if expected["op"] in ("draw_from_pozo", "take_from_olla"):
            return expected["discard"]
        return None

    # -------------------------------------------------------- scenes

    def scene(self, expected: dict):
        from vision.simulator import Idle, Play, trivium_script

        idle = 6 if self.settings.fast else 10
        if expected["op"] == "lay_tercia":
            return trivium_script([(expected["seat"] + 1, tuple(expected["cards"]))], idle=idle), \
                f"{self.names[expected['seat']]} lays {' '.join(expected['cards'])}"
        return [Idle(idle), Play(expected["seat"] + 1, expected["discard"]), Idle(idle * 2)], \
            f"{self.names[expected['seat']]} discards {expected['discard']}"

    def play_scene(self, app: TableApp, recognition: Recognition) -> None:
        from vision.simulator import TableSimulator

        session = app.session
        expected = self.expected(session)
        if expected["op"] == "take_from_olla":
            app.on_decision(("exchange", "olla"))  # the player says where the card came from
        script, what = self.scene(expected)
        before = len(session.state.operations)
        s = self.settings
        size = frame_size(s)
        simulator = TableSimulator(script, players=s.players, size=size, seed=s.seed * 1000 + before, deck=s.deck,
                                   speed=s.speed or (1.6 if s.fast else 1.0))
        tracker, frames = recognition.tracker_and_frames(simulator)
        started = time.perf_counter()
        for frame in frames:
            events = tracker.process(frame)
            self.stats.frames += 1
            if events:
                self._feed(app, events)
            elif self.stats.frames % 10 == 0:
                app.outputs.idle()
        self._feed(app, tracker.flush())
        self.stats.seconds += time.perf_counter() - started
        if len(session.state.operations) == before and self.expected(session) == expected:
            self._enter_by_hand(app, expected)
        self.keep_in_step(app)
        self.report(f"{what}: {len(session.state.operations) - before} operations (log: {session.operations_count})")

    def _enter_by_hand(self, app: TableApp, expected: dict) -> None:
        controller = app.controller
        if expected["op"] == "lay_tercia":
            seen = controller.groups.pop(expected["seat"], [])
            missing = [c for c in expected["cards"] if c not in seen]
            self.stats.entered_by_hand += len(missing)
            self.report(f"player: the camera missed {' '.join(missing)}; the tercia is entered by hand")
            app.on_decision(("op", expected))
        else:
            self.stats.entered_by_hand += 1
            self.report(f"player: the camera missed {expected['discard']}; entered by hand")
            if expected["op"] == "take_from_olla":
                app.on_decision(("exchange", "olla"))
            app.on_decision(("card", expected["discard"]))

    def _feed(self, app: TableApp, events) -> None:
        session = app.session
        for event in events:
            k = len(session.state.operations)
            expected = self.expected(session)
            app.on_events([event])
            self.stats.events += 1
            done = session.state.operations
            if len(done) > k and expected and normalised(done[k].to_dict()) == normalised(expected):
                self.stats.seen_right += len(expected["cards"]) if "cards" in expected else 1
            self.keep_in_step(app)

    def play(self, app: TableApp, recognition: Recognition, deadline: float | None) -> None:
        session = app.session
        self.keep_in_step(app)
        while not session.deal_over:
            if deadline is not None and time.monotonic() > deadline:
                raise TarotmateError("the demo ran out of time (--max-seconds); run it again to resume")
            if self.expected(session) is None:
                raise TarotmateError("the game in the log went past the game played on the table")
            before = len(session.state.operations)
            self.play_scene(app, recognition)
            if len(session.state.operations) <= before:
                raise TarotmateError(f"the table app refused {self.expected(session)}: "
                                     + "; ".join(n.text for n in app.controller.history[-3:]))

    def check_against_truth(self, session: GameSession) -> None:
        done = [normalised(op) for op in self.done_ops(session)]
        if done != [normalised(op) for op in self.truth_ops]:
            raise TarotmateError("the game in the log differs from the game played on the table")
        if list(session.state.scores) != list(self.truth.scores):
            raise TarotmateError(f"the table scored {session.state.scores}, the game was {self.truth.scores}")

    def replay_scores(self, record: dict) -> list:
        from engine.trivium import game_from_record

        return list(game_from_record(record).scores)

    def summary_lines(self, record: dict, scores: list) -> list[str]:
        result = record.get("result") or {}
        winner = result.get("winner")
        if winner is None:
            return ["no winner: the pozo ran out"]
        return [f"winner: {self.names[winner]} with {result.get('combination')}, {result.get('points')} points"]

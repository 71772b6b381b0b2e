"""The Trivium demo: a bot game from the engine, played on the simulated table.

The truth is ``engine.trivium.random_game`` seen as a camera sees it
(``table_view``: hidden hands, unseen draws). Tercias laid in front of a seat
and the cards discarded onto the olla are rendered by the table simulator and
go through the tracker and the controller; the deal (who starts), the
exchange from the olla, steals and declarations are entered as menu
decisions by the scripted player (:mod:`device.demo.player`).
"""

from __future__ import annotations

from typing import Callable

from device.app.controller import MIDDLE
from device.app.table import TableApp
from device.demo.player import ScriptedDemo, scene_idle
from device.app.session import GameSession
from device.storage.deal_log import DealLog


def normalised(op: dict) -> dict:
    """An operation compared without the order in which a group's cards were
    laid, nor the olla card the engine knows anyway."""
    if op.get("op") in ("lay_tercia", "declare"):
        return {**op, "cards": sorted(op["cards"])}
    if op.get("op") == "take_from_olla":
        return {k: v for k, v in op.items() if k != "taken"}
    return op


def decision_for(op: dict) -> tuple:
    """The menu decision a player enters for a non-visual Trivium operation."""
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


class TriviumDemo(ScriptedDemo):
    """One Trivium game played on the simulated table."""

    visual = ("lay_tercia", "draw_from_pozo", "take_from_olla")

    def __init__(self, game, settings, report: Callable[[str], None]):
        super().__init__(game, settings, report, [])
        self.truth, self.truth_ops = self.truth_for(1, 0)
        self.label = f"demo:{game.kind}:{settings.players}:{settings.seed}"
        self._short_tercia: dict | None = None  # a tercia the camera saw short, left for the table to ask
        self._next: dict | None = None  # the operation whose scene is played while it waits

    def truth_for(self, number: int, dealer: int):
        """Game ``number`` of the match: the bots' game of the next seed, dealt by ``dealer``."""
        from engine.trivium import random_game, table_view

        game = random_game(self.names, self.settings.seed + number - 1, dealer=dealer)
        return game, [op.to_dict() for op in table_view(game)]

    def new_session(self, log: DealLog) -> GameSession:
        return GameSession.resume_or_start(log, self.rules(), self.names, {}, label=self.label,
                                           first_setup=self.first_setup(0))

    def same(self, done: dict, truth: dict) -> bool:
        return normalised(done) == normalised(truth)

    def decision_for(self, op: dict) -> tuple:
        return decision_for(op)

    def decide(self, app: TableApp, decision: tuple, counted: str | None = None) -> list:
        from device.demo.presses import price

        if decision[0] == "deal" and len(decision) == 3 and decision[2] == app.session.deal.setup.get("dealer", 0):
            decision = decision[:2]  # "Who starts?" deals with the deal's own dealer: the same decision
        if decision[0] == "declare" and len(decision) == 3:
            # "Declare…", the cards shown to the camera, then "Declaration shown": its presses too
            self.stats.presses += price(app, ("declare_done",)) or 1
        return super().decide(app, decision, counted)

    def cards_of(self, op: dict) -> int:
        return len(op["cards"]) if op["op"] == "lay_tercia" else 1

    def pending_truth(self, app: TableApp, expected: dict | None) -> str | None:
        """The card of the scene the question is about: a card of the tercia being laid when it
        is asked in that seat's zone, the discard when asked in the middle; else none."""
        if expected is None:
            return None
        zone = app.controller.pending[0].zone
        if expected["op"] == "lay_tercia":
            if zone != f"seat{expected['seat'] + 1}":
                return None
            laid = app.controller.groups.get(expected["seat"], [])
            missing = [c for c in expected["cards"] if c not in laid]
            best = app.controller.pending[0].best
            return best if best in missing else (missing[0] if missing else None)
        if expected["op"] in ("draw_from_pozo", "take_from_olla"):
            return expected["discard"] if zone == MIDDLE else None
        return None

    def scene(self, session: GameSession, expected: dict):
        """A tercia laid in front of its seat, or a discard onto the olla (the
        player first says that the exchange took the olla's card)."""
        from vision.simulator import Idle, Play, trivium_script

        expected = self._next or expected
        idle = scene_idle(self.settings.fast)
        name = self.names[expected["seat"]]
        if expected["op"] == "lay_tercia":
            script = trivium_script([(expected["seat"] + 1, tuple(expected["cards"]))], idle=idle)
            return script, f"{name} lays {' '.join(expected['cards'])}", expected
        script = [Idle(idle), Play(expected["seat"] + 1, expected["discard"]), Idle(idle * 2)]
        return script, f"{name} discards {expected['discard']}", expected

    def play_scene(self, app: TableApp, recognition) -> None:
        expected = self.expected(app.session)
        if expected["op"] == "take_from_olla":
            self.decide(app, ("exchange", "olla"))  # the player says where the card came from
        super().play_scene(app, recognition)
        short, self._short_tercia = self._short_tercia, None
        if short is None:
            return
        # a tercia the camera saw short: the next seat discards (or the seat lays its next
        # tercia), and the table asks for its card
        self._next = self.truth_ops[len(app.session.state.operations) + 1]
        try:
            if self._next["op"] == "take_from_olla":
                self.decide(app, ("exchange", "olla"))
            super().play_scene(app, recognition)
        finally:
            following, self._next = self._next, None
        for op in (short, following):  # what the table did not get, entered by hand
            if self.expected(app.session) == op:
                self.enter_right(app, op)
                self.keep_in_step(app)

    def enter_missing(self, app: TableApp, scope: dict) -> None:
        if self._next is not None or self.expected(app.session) != scope:
            return
        if self._asks_later(app, scope):
            seen = " ".join(app.controller.groups[scope["seat"]])
            self.report(f"player: the camera saw {seen} of the tercia; play goes on, the table asks for the rest")
            self._short_tercia = scope
            return
        self.enter_right(app, scope)

    def _asks_later(self, app: TableApp, scope: dict) -> bool:
        """Whether a tercia the camera saw only part of is left for the table to ask: another
        seat's discard comes next, or the same seat's next tercia, whose first card cannot
        complete the two cards seen, or cannot be in one tercia with the one card seen (the
        table then knows the tercia was laid short)."""
        from device.games.trivium.controller import laid_short

        if scope["op"] != "lay_tercia":
            return False
        k = len(app.session.state.operations)
        following = self.truth_ops[k + 1] if k + 1 < len(self.truth_ops) else None
        group = app.controller.groups.get(scope["seat"], [])
        if not 0 < len(group) < len(scope["cards"]) or following is None:
            return False
        if following["op"] in ("draw_from_pozo", "take_from_olla"):
            return following["seat"] != scope["seat"]
        if following["op"] != "lay_tercia" or following["seat"] != scope["seat"]:
            return False
        return laid_short(group, following["cards"][0])

    def enter_right(self, app: TableApp, right: dict) -> None:
        controller = app.controller
        if right["op"] == "lay_tercia":
            seat = right["seat"]
            seen = controller.groups.get(seat, [])
            missing = [c for c in right["cards"] if c not in seen]
            if all(c in right["cards"] for c in seen):  # each card missed, from "Card not seen…"
                self.report(f"player: the camera missed {' '.join(missing)}; entered from the menu")
                for code in missing:
                    self.decide(app, ("lay_card", seat, code), "by_hand")
                return
            controller.groups.pop(seat, None)  # a card seen wrong in it: the tercia entered whole
            self.report(f"player: the camera missed {' '.join(missing)}; the tercia is entered by hand")
            if missing:  # one decision enters the tercia: each card the camera missed counts
                self._asked += len(missing) - 1
                self.stats.entered_by_hand += len(missing) - 1
            self.decide(app, ("op", right), "by_hand" if missing else None)
        else:
            self.report(f"player: the camera missed {right['discard']}; entered by hand")
            controller.exchange_from = None
            if right["op"] == "take_from_olla":
                self.decide(app, ("exchange", "olla"))
            self.decide(app, ("card", right["discard"]), "by_hand")

    def check_against_truth(self, session: GameSession) -> None:
        super().check_against_truth(session)
        if list(session.state.scores) != list(self.truth.scores):
            from engine.errors import TarotmateError

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

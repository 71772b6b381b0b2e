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

from device.app.table import TableApp
from device.demo.player import ScriptedDemo
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

    def cards_of(self, op: dict) -> int:
        return len(op["cards"]) if op["op"] == "lay_tercia" else 1

    def pending_truth(self, app: TableApp, expected: dict | None) -> str | None:
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

    def scene(self, session: GameSession, expected: dict):
        """A tercia laid in front of its seat, or a discard onto the olla (the
        player first says that the exchange took the olla's card)."""
        from vision.simulator import Idle, Play, trivium_script

        idle = 6 if self.settings.fast else 10
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

    def enter_missing(self, app: TableApp, scope: dict) -> None:
        if self.expected(app.session) == scope:
            self.enter_right(app, scope)

    def enter_right(self, app: TableApp, right: dict) -> None:
        controller = app.controller
        if right["op"] == "lay_tercia":
            seen = controller.groups.pop(right["seat"], [])
            missing = [c for c in right["cards"] if c not in seen]
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

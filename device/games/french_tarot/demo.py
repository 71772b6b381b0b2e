"""The French tarot demo: a random legal deal from the engine, played on the simulated table.

The chien shown and every card played are rendered by the table simulator
and go through the tracker and the controller; the bids, the call, the
écart, poignées and misères are entered as menu decisions by the scripted
player (:mod:`device.demo.player`).
"""

from __future__ import annotations

from typing import Callable

from device.app.session import GameSession
from device.app.table import TableApp
from device.demo.player import ScriptedDemo, scene_idle
from device.storage.deal_log import DealLog
from engine.errors import TarotmateError


def decision_for(d: dict) -> tuple:
    """The menu decision a player enters for a non-visual tarot operation."""
    kind = d["op"]
    if kind == "bid":
        return ("bid", d["seat"], d["bid"])
    if kind == "call":
        return ("call", d["card"])
    if kind == "ecart":
        return ("ecart", d["cards"], d.get("trumps_shown", ()))
    if kind == "chelem":
        return ("chelem",)
    if kind == "poignee":
        return ("poignee", d["seat"], d["level"], tuple(d["shown"]))
    if kind == "misere":
        return ("misere", d["seat"], d["misere"])
    if kind == "petit_sec":
        return ("petit_sec", d["seat"])
    raise TarotmateError(f"the demo cannot enter {kind!r} from the menus")


UNORDERED = {"chien": ("cards",), "ecart": ("cards", "trumps_shown"), "poignee": ("shown",)}
"""The card lists of an operation that are sets: the chien turned up, the écart, a poignée's trumps."""


def normalised(op: dict) -> dict:
    """An operation compared without the order of the cards it holds as a set: the camera
    commits the chien in the order it saw its cards, the deal lists them as dealt; the same six
    cards are the same chien."""
    keys = UNORDERED.get(op.get("op"), ())
    return {k: sorted(v) if k in keys and isinstance(v, list) else v for k, v in op.items()}


def demo_deal(players: int, seed: int, number: int, dealer: int | None):
    """The demo's deal ``number``: deal 1 is the seed's random deal (its dealer too); deal k the
    next seed's, dealt by ``dealer``."""
    from engine.tarot import random_deal

    if number == 1:
        return random_deal(players, seed, poignee_rate=0.5)
    return random_deal(players, seed + number - 1, dealer=dealer, poignee_rate=0.5)


def trick_script(trick, players: int, fast: bool):
    """The simulator's script of one trick of the demo's deal, played from its first card and swept."""
    from vision.simulator import Trick, french_deal_script

    return french_deal_script([Trick(trick.leader + 1, tuple(trick.cards), trick.winner + 1)], players=players,
                              idle=scene_idle(fast))


class TarotDemo(ScriptedDemo):
    """One French tarot deal played on the simulated table: the chien shown
    and every card played are seen by the camera, the rest is entered."""

    visual = ("play", "chien")

    def __init__(self, game, settings, report: Callable[[str], None]):
        truth, ops = self.truth_for(1, None, settings)
        self.truth = truth
        super().__init__(game, settings, report, ops)
        self.label = f"demo:{game.kind}:{settings.players}:{settings.seed}"

    def truth_for(self, number: int, dealer: int | None, settings=None):
        """Deal 1 is the seed's random deal (its dealer too); deal k the next seed's, dealt by ``dealer``."""
        s = settings or self.settings
        deal = demo_deal(s.players, s.seed, number, dealer)
        return deal, [op.to_dict() for op in deal.operations]

    def new_session(self, log: DealLog) -> GameSession:
        return GameSession.resume_or_start(log, self.rules(), self.names, {}, label=self.label,
                                           first_setup=self.first_setup(self.truth.dealer))

    def same(self, done: dict, truth: dict) -> bool:
        return normalised(done) == normalised(truth)

    def decision_for(self, op: dict) -> tuple:
        return decision_for(op)

    def pending_truth(self, app: TableApp, expected: dict | None) -> str | None:
        pending = app.controller.pending[0]
        if pending.fix_index is not None:  # a card of an earlier trick the camera got wrong (EARLIER_CARD)
            earlier = self.truth_ops[pending.fix_index] if pending.fix_index < len(self.truth_ops) else {}
            return earlier.get("card")
        if expected is None:
            return None
        if expected["op"] == "play":
            return expected["card"]
        if expected["op"] == "chien":
            missing = [c for c in expected["cards"] if c not in app.controller.chien_seen]
            best = app.controller.pending[0].best
            return best if best in missing else (missing[0] if missing else None)
        return None

    def scene(self, session: GameSession, expected: dict):
        """The chien shown and taken, or the current trick played from its
        first card and swept; the scope is the trick's number (None: the chien)."""
        from vision.simulator import french_deal_script

        players = self.settings.players
        if expected["op"] == "chien":
            script = french_deal_script([], players=players, chien=tuple(expected["cards"]),
                                        taker=self.truth.taker + 1, idle=scene_idle(self.settings.fast))
            return script, f"the chien ({len(expected['cards'])} cards)", None
        number = session.state.trick_number
        return trick_script(self.truth.tricks[number - 1], players, self.settings.fast), f"trick {number}", number

    def enter_missing(self, app: TableApp, scope: int | None) -> None:
        while True:
            self.keep_in_step(app)
            expected = self.expected(app.session)
            if expected is None:
                return
            if expected["op"] == "chien" and scope is None:
                code = next(c for c in expected["cards"] if c not in app.controller.chien_seen)
                self.report(f"player: the camera missed {code} of the chien; entered by hand")
            elif expected["op"] == "play" and app.session.state.trick_number == scope:
                code = expected["card"]
                self.report(f"player: the camera missed {code}; entered by hand")
            else:
                return
            self.decide(app, ("card", code), "by_hand")

    def enter_right(self, app: TableApp, right: dict) -> None:
        if right["op"] == "play":
            self.report(f"player: {right['card']} entered by hand")
            self.decide(app, ("card", right["card"]), "by_hand")

    def replay_scores(self, record: dict) -> list:
        from engine.tarot import replay_record

        return list(replay_record(record)["scores"])

    def summary_lines(self, record: dict, scores: list) -> list[str]:
        from engine.tarot import replay_record

        replay = replay_record(record)
        taker = record["taker"]
        verdict = "made" if replay["won"] else "failed"
        oudlers = replay["attack_oudlers"]
        return [
            f"contract: {record['contract']} by {self.names[taker]} — {verdict} "
            f"({replay['attack_points']:g} points with {oudlers} oudler{'' if oudlers == 1 else 's'}, "
            f"needed {replay['target']})",
        ]

"""A game at the table: the engine's state kept in step with the deal log.

    session = GameSession.resume_or_start(log, game_for(kind), names, options, label=...)
    session.apply(op)      # checked by the engine, written to the log, then applied
    session.undo()         # deletes the last logged operation, undoes it in the engine
    session.finish_deal()  # exports the record and the scores, when the deal is over
    session.next_deal()
    session.match           # engine.match.Match of the game: totals, target, winner
    session.match_over      # the target is reached: the game shows its end

Every operation is appended to the log *before* the engine state (and so the
screens) changes: after a power cut the log replays to exactly what was last
shown, minus at most the operation being written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from device.app.registry import Game
from device.storage.deal_log import DealLog, DealRow, GameRow, StoreError
from engine.contract import Refusal
from engine.match import Match
from engine.errors import TarotmateError


@dataclass(frozen=True)
class Applied:
    """The outcome of :meth:`GameSession.apply`: ``refusal`` is ``None`` when
    the operation was logged and applied."""

    op: Any
    refusal: Refusal | None = None

    @property
    def ok(self) -> bool:
        return self.refusal is None


class GameSession:
    """One game (several deals) of one kind, persisted in a :class:`DealLog`."""

    def __init__(self, log: DealLog, rules: Game, game: GameRow, deal: DealRow, state: Any):
        self.log = log
        self.rules = rules
        self.game = game
        self.deal = deal
        self.state = state
        self.replayed = 0
        self.on_deal_scored: list = []  # called with the session once a deal is closed with its scores

    # ------------------------------------------------------------ start / resume

    @classmethod
    def resume_or_start(
        cls,
        log: DealLog,
        rules: Game,
        names: list[str],
        options: dict[str, Any] | None = None,
        label: str = "",
        first_setup: dict[str, Any] | None = None,
    ) -> "GameSession":
        """Resume the open game with ``label`` (replaying its open deal), or
        start a new game and its first deal. A game whose target was reached
        stays open on its last deal (its end is shown) until it is ended."""
        game = log.open_game(label)
        if game is not None and game.kind != rules.kind:
            raise StoreError(
                f"the open game {game.id} in {log.path} is {game.kind}, not {rules.kind}; "
                "finish it or use another deal log"
            )
        if game is None:
            game = log.start_game(rules.kind, names, options or {}, label=label)
        deal = log.open_deal(game.id)
        finished = log.deals(game.id)
        if deal is None and finished and match_of(log, rules, game).is_over():
            deal = finished[-1]
        if deal is None:
            number = len(finished) + 1
            setup = first_setup if number == 1 and first_setup is not None else rules.setup_for(game, number, log)
            deal = log.start_deal(game.id, setup)
        session = cls(log, rules, game, deal, rules.new_state(game, deal.setup))
        session._replay()
        return session

    def check_replay(self) -> None:
        """Raise :class:`StoreError` (game, deal, operation) when the deal's
        logged operations no longer replay (into a fresh state; this one is kept)."""
        saved = self.state, self.replayed
        self.state = self.rules.new_state(self.game, self.deal.setup)
        try:
            self._replay()
        finally:
            self.state, self.replayed = saved

    def _replay(self) -> None:
        where = f"{self.log.path}: game {self.game.id}, deal {self.deal.number}"
        for index, data in enumerate(self.log.operations(self.deal.id), 1):
            try:
                op = self.rules.op_from_dict(data)
            except (TarotmateError, KeyError, TypeError, ValueError) as exc:
                raise StoreError(
                    f"{where}: operation {index} ({data}) is not an operation of {self.rules.kind} "
                    f"({type(exc).__name__}: {exc}); the log was left untouched"
                ) from None
            refusal = self.rules.refusal(self.state, op)
            if refusal is not None:
                raise StoreError(
                    f"{where}: operation {index} ({data}) no longer "
                    f"replays: {refusal.reason}; the log was left untouched"
                )
            self.rules.apply(self.state, op)
            self.replayed = index

    # ------------------------------------------------------------ operations

    def check(self, op: Any) -> Refusal | None:
        """Why the engine would refuse ``op`` now (``None``: it is legal)."""
        return self.rules.refusal(self.state, op)

    def apply(self, op: Any) -> Applied:
        """Check, log (durably), then apply ``op``."""
        refusal = self.check(op)
        if refusal is not None:
            return Applied(op, refusal)
        self.log.append(self.deal.id, self.rules.op_to_dict(op))
        self.rules.apply(self.state, op)
        return Applied(op)

    def undo(self) -> Any | None:
        """Undo the last operation of the open deal (``None`` when there is none)."""
        data = self.log.pop(self.deal.id)
        if data is None:
            return None
        self.rules.undo(self.state)
        return self.rules.op_from_dict(data)

    def replace(self, index: int, op: Any) -> Applied:
        """Put ``op`` in place of the deal's operation ``index`` (from 0): a card the camera got
        wrong, fixed where it lies. The deal is replayed with it first; when it, or an operation
        after it, no longer fits, nothing changes and the refusal says which."""
        ops = list(self.state.operations)
        if not 0 <= index < len(ops):
            return Applied(op, Refusal(f"there is no operation {index + 1} in this deal", "fix"))
        state = self.rules.new_state(self.game, self.deal.setup)
        for k, o in enumerate(ops[:index] + [op] + ops[index + 1:]):
            refusal = self.rules.refusal(state, o)
            if refusal is not None:
                if k != index:
                    refusal = Refusal(f"operation {k + 1} would no longer fit: {refusal}", refusal.rule)
                return Applied(op, refusal)
            self.rules.apply(state, o)
        self.log.replace(self.deal.id, index + 1, self.rules.op_to_dict(op))
        self.state = state
        return Applied(op)

    @property
    def operations_count(self) -> int:
        return self.log.count(self.deal.id)

    # ------------------------------------------------------------ deals

    @property
    def deal_over(self) -> bool:
        return self.rules.is_over(self.state)

    @property
    def match(self) -> Match:
        """The game's deals as a :class:`~engine.match.Match` (rebuilt from the log), the
        current deal counted once it is over."""
        current = None
        if self.deal.finished is None and self.deal_over:
            current = self.rules.scores(self.state)
        return match_of(self.log, self.rules, self.game, current)

    @property
    def match_over(self) -> bool:
        """The current deal is over and the game's target is reached: nothing more to play."""
        return self.deal_over and self.match.is_over()

    def finish_deal(self) -> tuple[dict[str, Any] | None, list[float] | None]:
        """Close the deal in the log with its exported record and scores."""
        record = self.rules.record(self.state, self.game)
        scores = self.rules.scores(self.state)
        self.log.finish_deal(self.deal.id, record, scores)
        self.deal = self.log.deal(self.deal.id)
        if scores is not None:
            for listener in self.on_deal_scored:
                listener(self)
        return record, scores

    def next_deal(self) -> None:
        """Start the game's next deal (after :meth:`finish_deal`)."""
        number = len(self.log.deals(self.game.id)) + 1
        setup = self.rules.setup_for(self.game, number, self.log)
        self.deal = self.log.start_deal(self.game.id, setup)
        self.state = self.rules.new_state(self.game, setup)
        self.replayed = 0

    def misdeal(self) -> None:
        """A misdeal: the open deal is closed without a record or score (kept
        in the log) and the same dealer deals again (FFT rules,
        :func:`engine.tarot.next_dealer` with ``misdeal=True``)."""
        from engine.tarot import next_dealer

        dealer = int((self.deal.setup or {}).get("dealer", 0))
        number = self.deal.number
        if self.deal.finished is None:
            self.abandon_deal()
        setup = {"dealer": next_dealer(dealer, self.game.players, misdeal=True), "misdeal_of": number}
        self.deal = self.log.start_deal(self.game.id, setup)
        self.state = self.rules.new_state(self.game, setup)
        self.replayed = 0

    def abandon_deal(self) -> None:
        """Close the open deal without a record or score (kept in the log)."""
        self.log.finish_deal(self.deal.id, None, None)
        self.deal = self.log.deal(self.deal.id)

    def finish_game(self) -> None:
        self.log.finish_game(self.game.id)
        self.game = self.log.game(self.game.id)

    def close_game(self) -> None:
        """End the game: a deal in progress is closed first, with its record and scores when it
        is over, else kept in the log without a score."""
        if self.deal.finished is None:
            if self.deal_over:
                self.finish_deal()
            else:
                self.abandon_deal()
        self.finish_game()

    def start_new_game(self, names: Sequence[str] | None = None) -> None:
        """A new game with the same options and label (after :meth:`finish_game`), with the same
        players or, when given, ``names`` (as many as before, e.g. chosen from the club's list)."""
        old = self.game
        if names is not None and len(names) != len(old.names):
            raise StoreError(f"a new game of {len(old.names)} players cannot seat {len(names)} names")
        self.game = self.log.start_game(old.kind, list(names) if names is not None else old.names, old.options,
                                        label=old.label)
        first = self.log.deals(old.id)
        setup = {k: v for k, v in (first[0].setup if first else {}).items() if k in ("dealer", "target")}
        self.deal = self.log.start_deal(self.game.id, {"dealer": 0, **setup})
        self.state = self.rules.new_state(self.game, self.deal.setup)
        self.replayed = 0

    def totals(self) -> list[float]:
        return self.log.totals(self.game.id)

    @property
    def names(self) -> list[str]:
        return list(self.game.names)


def match_of(log: DealLog, rules: Game, game: GameRow, current: list[float] | None = None) -> Match:
    """The game's :class:`~engine.match.Match` from its deals in the log (the first
    deal's setup holds the first dealer, a configured target and an agreed
    number of deals, the demo's), plus ``current``,
    the scores of a deal over but not yet closed."""
    deals = log.deals(game.id)
    first = deals[0].setup if deals else {}
    scores = [d.scores for d in deals if d.scores is not None]
    if current is not None:
        scores.append(current)
    target = rules.match_target(game.options or {}, first.get("target"))
    return Match(game.players, first_dealer=first.get("dealer", 0) % game.players, target=target,
                 length=first.get("deals"), scores=scores)

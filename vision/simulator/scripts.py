"""Game scripts for the simulated table: a French tarot deal, Trivium tercias, random tricks."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from engine.cards import CODES
from vision.simulator.actions import Action, Idle, Lay, Play, Show, Sweep, Trick
from vision.simulator.errors import SimulatorError
from vision.zones import MIDDLE


def _next_seat(seat: int, players: int) -> int:
    return seat % players + 1


def french_deal_script(
    tricks: Sequence[Trick | tuple[int, Sequence[str], int]],
    *,
    players: int = 4,
    chien: Sequence[str] = (),
    taker: int | None = None,
    idle: int = 10,
) -> list[Action]:
    """The script of a French tarot deal: the chien shown by ``taker`` (if given)
    and taken, then each trick played from its leader in turn order and swept
    to its winner. Tricks are ``Trick`` or ``(leader, cards, winner)``."""
    script: list[Action] = [Idle(idle)]
    if chien:
        if taker is None:
            raise SimulatorError("showing the chien needs the taker's seat")
        script += [Show(taker, tuple(chien)), Idle(idle), Sweep(MIDDLE, taker), Idle(idle)]
    for n, t in enumerate(tricks, 1):
        leader, cards, winner = (t.leader, t.cards, t.winner) if isinstance(t, Trick) else t
        if len(cards) != players:
            raise SimulatorError(f"trick {n} has {len(cards)} cards for {players} players")
        seat = leader
        for code in cards:
            script.append(Play(seat, code))
            seat = _next_seat(seat, players)
        script += [Idle(idle), Sweep(MIDDLE, winner), Idle(idle)]
    return script


def trivium_script(groups: Sequence[tuple[int, Sequence[str]]], *, idle: int = 10) -> list[Action]:
    """The script of tercias laid down: each ``(seat, cards)`` is laid in that seat's zone."""
    script: list[Action] = [Idle(idle)]
    for seat, cards in groups:
        script += [Lay(seat, tuple(cards)), Idle(idle)]
    return script


def random_tricks(n: int, players: int = 4, seed: int = 0) -> list[Trick]:
    """``n`` tricks of distinct random cards with random winners (for tests and benchmarks)."""
    rng = np.random.default_rng(seed)
    if n * players > len(CODES):
        raise SimulatorError(f"{n} tricks of {players} cards need more than 78 cards")
    codes = [CODES[i] for i in rng.permutation(len(CODES))[: n * players]]
    leader = 1
    tricks = []
    for k in range(n):
        winner = int(rng.integers(1, players + 1))
        tricks.append(Trick(leader, tuple(codes[k * players:(k + 1) * players]), winner))
        leader = winner
    return tricks


def trick_script(players: int = 4, seed: int = 0, tricks: int = 1) -> list[Action]:
    """A short scene: ``tricks`` random tricks played and swept (the ``sim`` source)."""
    return french_deal_script(random_tricks(tricks, players, seed), players=players)

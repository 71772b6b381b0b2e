"""Trivium at the table (2 to 4 players): the game as the device plays it.

``GAME`` is what :mod:`device.app.registry` lists: the engine's
:class:`~engine.trivium.TriviumGame` (one per game of a match), its
operations, the controller (:mod:`.controller`), the menus (:mod:`.menus`),
the screens (:mod:`.screens`), the simulated table's script
(:mod:`.simulated`), the demo (:mod:`.demo`) and the table's page (:mod:`.page`).
"""

from __future__ import annotations

from device.app.registry import Game
from device.i18n import N_
from device.games.trivium import page, screens
from device.games.trivium.controller import TriviumController
from device.games.trivium.demo import TriviumDemo
from device.games.trivium.menus import TriviumMenus
from device.games.trivium.simulated import simulated_script
from engine.trivium import TriviumGame, TriviumOptions, game_to_record
from engine.trivium.operations import CODEC
from engine.trivium.state import PLAYERS


def _new_game(players: int, names: tuple[str, ...], options: dict, setup: dict) -> TriviumGame:
    return TriviumGame(list(names), TriviumOptions.from_dict(options or {}))


def _check_options(options: dict) -> None:
    TriviumOptions.from_dict(options)


def _match_target(options: dict, configured: int | None) -> int | None:
    """The match ends once a total reaches the configured target (``game.target``)."""
    return configured


GAME = Game(
    kind="trivium",
    key="trivium",
    title=N_("Trivium"),
    players=PLAYERS,  # the engine's player counts
    default_players=4,
    order=1,
    new_engine_state=_new_game,
    codec=CODEC,
    write_record=game_to_record,
    check_options=_check_options,
    match_target=_match_target,
    controller=TriviumController,
    menus=TriviumMenus,
    screens=screens,
    simulated_script=simulated_script,
    demo=TriviumDemo,
    record_file="trivium-game.json",
    deal_word="game",
    match_word="match",
    variants=(("Trivium", "standard"),),
    page=page,
    piles=True,  # the olla: each discard lands on the one before
)

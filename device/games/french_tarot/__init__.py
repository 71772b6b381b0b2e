"""French tarot at the table (FFT rules, 3 to 5 players): the game as the device plays it.

``GAME`` is what :mod:`device.app.registry` lists: the engine's
:class:`~engine.tarot.TarotDeal` (one per deal), its operations, the
controller (:mod:`.controller`), the menus (:mod:`.menus`), the screens
(:mod:`.screens`), the simulated table's script (:mod:`.simulated`) and the
demo (:mod:`.demo`) and the table's page (:mod:`.page`).
"""

from __future__ import annotations

from device.games.french_tarot import page, screens
from device.games.french_tarot.controller import TarotController
from device.games.french_tarot.demo import TarotDemo
from device.games.french_tarot.menus import TarotMenus
from device.games.french_tarot.simulated import simulated_hint, simulated_script
from device.app.registry import Game
from device.i18n import N_
from engine.tarot import TarotDeal, TarotOptions
from engine.tarot.operations import CODEC
from engine.tarot.tables import HAND_SIZE


def _new_deal(players: int, names: tuple[str, ...], options: dict, setup: dict) -> TarotDeal:
    return TarotDeal(players, setup.get("dealer", 0), options or None, names=names)


def _check_options(options: dict) -> None:
    TarotOptions.from_dict(options)


def _game_target(options: dict, configured: int | None) -> int | None:
    """Michelsen: the game ends once a total reaches the engine's ``game_target`` option
    (or the configured ``game.target``)."""
    return TarotOptions.from_dict(options).game_target or configured


GAME = Game(
    kind="french-tarot",
    key="tarot",
    title=N_("French tarot"),
    players=(min(HAND_SIZE), max(HAND_SIZE)),  # the engine's player counts
    default_players=4,
    order=0,
    new_engine_state=_new_deal,
    codec=CODEC,
    write_record=lambda deal: deal.to_record(),
    check_options=_check_options,
    match_target=_game_target,
    controller=TarotController,
    menus=TarotMenus,
    screens=screens,
    simulated_script=simulated_script,
    demo=TarotDemo,
    record_file="record.json",
    deal_word="deal",
    match_word="game",
    variants=(("FFT", "fft"),),
    aliases=("tarot",),
    simulated_hint=simulated_hint,
    page=page,
    overlaps=True,  # a trick's cards lie half over one another
)

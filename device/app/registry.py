"""The games the device knows, behind one interface.

Each game is one folder of ``device/games/`` (a plug-in of the table app) whose ``__init__`` defines
``GAME``, a :class:`Game`: its kind (as the configuration and the deal log
name it), its player range, its engine state and operation codec, and what
the table app needs of it: its controller, its menus, its screens, its
simulated script and its demo, and how the table's page shows it (its
``page`` module). Adding a third game means adding one folder;
nothing outside this module ever asks which game is played.

The engine states all keep the one game contract (:mod:`engine.contract`):
``can(op)`` (a :class:`Refusal` keeps the rule and the reason), ``apply``,
``undo``, ``is_over()``, ``scores``; the session and the controller speak
to them only through a :class:`Game`.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Callable, Mapping

from engine.contract import Refusal
from engine.errors import TarotmateError

# card widths a reported card nudged on an overlapping trick is named again at (docs/tracking.md,
# "A card carried over a reported one": bench_table.py, the hard table, 0.2 against off)
NUDGE_RENAME = 0.2
# the share of a quad lying on one card reported from which a naming of it as another card is taken for
# that card showing from under the new one (docs/tracking.md, "The card below showing": bench_table.py)
FROM_UNDER = 0.75


@dataclass(frozen=True)
class Game:
    """One game as the device plays it."""

    kind: str                     # "french-tarot": the configuration's game.kind, the deal log's kind
    key: str                      # "tarot": the menus' and the screens' short name
    title: str                    # "French tarot": the name the menus and the pages show (a message id)
    players: tuple[int, int]      # fewest and most players
    default_players: int
    order: int                    # place in the menus and in the lists of games
    new_engine_state: Callable[[int, tuple[str, ...], dict, dict], Any]  # (players, names, options, setup)
    codec: Any                    # engine.codec.OperationCodec of the game's operations
    write_record: Callable[[Any], dict]
    check_options: Callable[[dict], None]
    match_target: Callable[[Mapping[str, Any], int | None], int | None]  # (options, configured target)
    controller: Callable[[Any], Any]       # (session) -> device.app.controller.Controller
    menus: Any                    # the game's menus: wanted_key(app), make_flow(app, key), ok_menu(app)
    screens: Any                  # the game's screens: game_view(app), alert_after(app, notices)
    simulated_script: Callable[[Any, int], list]  # (game config, seed) -> the simulator's script
    demo: Callable[[Any, Callable[[str], None]], Any]  # (settings, report) -> a ScriptedDemo
    record_file: str              # the demo's exported record
    deal_word: str                # "deal" / "game": one unit of play in the deal log
    match_word: str               # "game" / "match": the whole of it
    variants: tuple[tuple[str, str], ...] = ()  # the setup menu's (label, key) of each variant
    aliases: tuple[str, ...] = ()              # other names the command line accepts
    simulated_hint: Callable[[Any, int], str] | None = None  # (game config, seed) -> what to enter to follow it
    page: Any = None              # the table's page: deal_view(state, names, lang) (the deal in progress),
                                  # sheet_row(record, names, lang) (a finished deal's row of the sheet),
                                  # SHEET_HEADING (the message id of the sheet's column of those rows)
    piles: bool = False           # cards are laid squarely on one another (Trivium's olla): the tracker names a
                                  # place that changed under no card seen again (vision.tracker_settings restack)
    overlaps: bool = False        # a card is laid half over the cards before it (a trick): the tracker names a
                                  # reported card nudged a fifth of a card's width again (nudge_rename)

    def tracker_changes(self) -> dict[str, Any]:
        """The tracker settings this game's table needs over the card model's own."""
        changes: dict[str, Any] = {}
        if self.piles:
            changes["restack"] = True
        if self.overlaps:
            changes["nudge_rename"] = NUDGE_RENAME
            changes["from_under"] = FROM_UNDER
        return changes

    # ------------------------------------------------------------ the engine, for the session
    def new_state(self, game, setup: dict[str, Any]) -> Any:
        """The engine state of a new deal (or game) of ``game`` (a deal log row)."""
        return self.new_engine_state(game.players, tuple(game.names), dict(game.options or {}), dict(setup))

    def setup_for(self, game, number: int, log) -> dict[str, Any]:
        """The dealer of deal ``number``: the first dealer, then the next seat
        after each deal (the seat after the previous deal's dealer; a misdeal's
        redeal is set up by :meth:`device.app.session.GameSession.misdeal`)."""
        deals = [d for d in log.deals(game.id) if d.number < number]
        if deals and "dealer" in (deals[-1].setup or {}):
            return {"dealer": (deals[-1].setup["dealer"] + 1) % game.players}
        first = deals[0].setup.get("dealer", 0) if deals else 0
        return {"dealer": (first + number - 1) % game.players}

    def op_from_dict(self, data: dict[str, Any]) -> Any:
        return self.codec.from_dict(data)

    def op_to_dict(self, op: Any) -> dict[str, Any]:
        return self.codec.to_dict(op)

    def refusal(self, state: Any, op: Any) -> Refusal | None:
        return refusal_from(state.can(op))

    def apply(self, state: Any, op: Any) -> None:
        state.apply(op)

    def undo(self, state: Any) -> None:
        state.undo()

    def is_over(self, state: Any) -> bool:
        return state.is_over()

    def record(self, state: Any, game=None) -> dict[str, Any] | None:
        return self.write_record(state)

    def scores(self, state: Any) -> list[float] | None:
        return list(state.scores)

    def allows(self, players: int) -> bool:
        return self.players[0] <= players <= self.players[1]


def refusal_from(reason: str | None) -> Refusal | None:
    """The engines' ``can(op)`` answer: ``None`` when allowed, else a :class:`Refusal` (rule and reason)."""
    if reason is None or isinstance(reason, Refusal):
        return reason
    return Refusal(str(reason))


GAMES_PACKAGE = "device.games"
GAMES_FOLDER = Path(__file__).resolve().parents[1] / "games"


@cache
def games() -> tuple[Game, ...]:
    """Every game of ``device/games/``, in menu order. The games are found, not
    listed: each folder there that defines ``GAME`` is one (the games import
    this module, never the other way round)."""
    found = []
    for info in pkgutil.iter_modules([str(GAMES_FOLDER)]):
        if info.ispkg:
            module = importlib.import_module(f"{GAMES_PACKAGE}.{info.name}")
            game = getattr(module, "GAME", None)
            if isinstance(game, Game):
                found.append(game)
    return tuple(sorted(found, key=lambda g: g.order))


def kinds() -> tuple[str, ...]:
    return tuple(g.kind for g in games())


def game_for(kind: str) -> Game:
    """The game of ``kind`` (or one of its aliases); a clear error for an unknown one."""
    for game in games():
        if kind == game.kind or kind in game.aliases:
            return game
    raise TarotmateError(f"unknown game {kind!r}: expected one of {', '.join(kinds())}")


def game_of_key(key: str) -> Game:
    """The game the menus call ``key`` (``tarot``, ``trivium``)."""
    for game in games():
        if game.key == key:
            return game
    raise TarotmateError(f"unknown game {key!r}")

"""``trivium-game/1``: a Trivium game saved as JSON, to resume or replay it.

A record is the players, the options and the operations; the ``result`` is
written for readers and checked against the replay when the record is read.
The format is described in ``docs/trivium.md``.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine import bounded_json
from engine.errors import TarotmateError
from engine.text import control_characters, describe_controls
from engine.trivium.game import TriviumGame
from engine.trivium.operations import IllegalOperation, operation_from_dict
from engine.trivium.options import TriviumOptions

FORMAT = "trivium-game/1"


class RecordError(TarotmateError):
    """A file or object that is not a readable ``trivium-game/1`` record."""


def result_of(game: TriviumGame) -> dict:
    state = game.state
    return {
        "phase": state.phase,
        "winner": state.winner,
        "combination": state.result.combination if state.result else None,
        "points": state.result.points if state.result else None,
        "scores": list(state.scores),
    }


def game_to_record(game: TriviumGame) -> dict:
    """The JSON-ready ``trivium-game/1`` object of ``game`` (finished or not)."""
    return {
        "format": FORMAT,
        "players": list(game.players),
        "options": game.options.to_dict(),
        "operations": [op.to_dict() for op in game.operations],
        "result": result_of(game),
    }


def game_from_record(data: dict) -> TriviumGame:
    """Replay a ``trivium-game/1`` object; RecordError if it is not one or does not replay."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise RecordError(f"not a {FORMAT} record (format: {found!r})")
    for key in ("players", "operations"):
        if not isinstance(data.get(key), list):
            raise RecordError(f"a {FORMAT} record needs a list {key!r}")
    for i, name in enumerate(data["players"]):
        if not isinstance(name, str):
            raise RecordError(f"players[{i}]: expected a name, got {name!r}")
        if control_characters(name):
            raise RecordError(f"players[{i}]: {name!r} holds control characters ({describe_controls(name)})")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise RecordError(f"options: expected an object, got {options!r}")
    for i, op in enumerate(data["operations"]):
        if not isinstance(op, dict) or not isinstance(op.get("op"), str):
            raise RecordError(f"operations[{i}]: expected an operation object, got {op!r}")
    try:
        options = TriviumOptions.from_dict(options)
        operations = [operation_from_dict(d) for d in data["operations"]]
        game = TriviumGame.replay(data["players"], options, operations)
    except (IllegalOperation, TarotmateError) as exc:
        raise RecordError(f"the record does not replay: {exc}") from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        # a field of the wrong type deep inside an operation: the record is not one Tarotmate wrote
        raise RecordError(f"the record does not replay: a field has the wrong type ({exc})") from None
    expected = data.get("result")
    if expected is not None and expected != result_of(game):
        raise RecordError(f"the record's result {expected} differs from its replay {result_of(game)}")
    return game


def dumps(game: TriviumGame) -> str:
    return json.dumps(game_to_record(game), ensure_ascii=False, indent=1)


def loads(text: str) -> TriviumGame:
    try:
        data = bounded_json.loads(text, "the record")
    except bounded_json.JSONInputError as exc:
        raise RecordError(f"not JSON: {str(exc).removeprefix('the record: ')}") from None
    return game_from_record(data)


def save(game: TriviumGame, path: str | Path) -> None:
    Path(path).write_text(dumps(game) + "\n", encoding="utf-8")


def load(path: str | Path) -> TriviumGame:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    return loads(text)

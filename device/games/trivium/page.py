"""Trivium on the table's page: the game in progress (the winner, the combination and its points once
it is over) and a finished game's row of the score sheet.

A Trivium game has no contract and no taker: its view leaves the French tarot
fields empty and says ``winner``, ``combination`` and ``points``; the lines
the page shows (``title``, ``line``, ``outcome``) are written in the device's
language (``Marta wins · TRIVIUM · 63 points``).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from device.i18n import N_, number, translator
from engine.trivium.combinations import DISPLAY
from engine.trivium.state import Phase

PHASE_NAMES = {Phase.DEAL: N_("Dealing"), Phase.PLAY: N_("Playing"), Phase.FINISHED: N_("Game over")}
NO_WINNER = N_("No winner")
SHEET_HEADING = N_("Combination")  # the score sheet's column of what each game was


def combination_label(combination: str | None, lang: str = "en") -> str:
    """``TRIVIUM``, ``GRAN CUADRIVIUM``; ``No winner`` (translated) for a game the pozo ended."""
    if combination is None:
        return translator(lang)(NO_WINNER)
    return DISPLAY.get(combination, combination)


def outcome_text(winner: str | None, combination: str | None, points: float | None, lang: str = "en") -> str:
    """``Marta wins · TRIVIUM · 63 points``, or ``No winner``."""
    tr = translator(lang)
    if winner is None:
        return tr(NO_WINNER)
    return " · ".join((tr(N_("{name} wins")).format(name=winner), combination_label(combination, lang),
                       tr(N_("{n} points")).format(n=number(points or 0, lang))))


def deal_view(game: Any, names: Sequence[str], lang: str = "en") -> dict[str, Any]:
    """The Trivium game in progress (a :class:`~engine.trivium.TriviumGame`), in the page's deal shape."""
    tr = translator(lang)
    state = game.state
    phase = Phase(state.phase)
    finished = phase is Phase.FINISHED
    winner = None if state.winner is None else names[state.winner]
    combination = state.result.combination if finished and state.result is not None else None
    points = state.result.points if finished and state.result is not None else None
    phase_label = tr(PHASE_NAMES[phase])
    view: dict[str, Any] = {
        "game": "trivium", "phase": phase, "phase_label": phase_label,
        "contract": None, "contract_label": tr(N_("Trivium")), "taker": None, "partner": None, "called_card": None,
        "trick_number": None, "to_play": None if state.to_play is None else names[state.to_play],
        "trick": [], "tricks": [],
        "target": None, "points": None, "oudlers": None, "tricks_left": None,
        "result": None, "winner": winner, "combination": combination, "combination_points": points,
    }
    if finished:
        view["result"] = {"winner": winner, "combination": combination,
                          "combination_label": combination_label(combination, lang) if winner else None,
                          "points": points, "scores": list(state.scores)}
    view["title"] = (tr(N_("Trivium")) + " · " + (winner or tr(NO_WINNER))) if finished else tr(N_("Trivium"))
    view["line"] = phase_label
    view["outcome"] = outcome_text(winner, combination, points, lang) if finished else ""
    return view


def sheet_row(record: Mapping[str, Any] | None, names: Sequence[str], lang: str = "en") -> dict[str, Any]:
    """A finished game's row of the score sheet, from its ``trivium-game/1`` record: the winner and the
    combination (no contract, no taker)."""
    result = (record or {}).get("result") or {}
    seat = result.get("winner")
    winner = None if seat is None else names[seat]
    combination = result.get("combination") if winner is not None else None
    label = combination_label(combination, lang)
    return {"contract": None, "taker": None, "won": None, "winner": winner, "combination": combination,
            "points": result.get("points") if winner is not None else None,
            "label": label if winner is None else f"{label} ({winner})"}

"""The table page's state from the deal log and the engine's state of the open deal."""

from __future__ import annotations

from typing import Any

from device.web.views import deal_view, page_state, sheet_view


def _sheet_rows(deals: list[Any]) -> list[dict[str, Any]]:
    rows = []
    for d in deals:
        if d.scores is None:
            continue
        rec = d.record or {}
        rows.append({"scores": d.scores, "contract": rec.get("contract"), "taker": rec.get("taker"),
                     "won": None})
    return rows


def trivium_view(game: Any, names: list[str]) -> dict[str, Any]:
    """The Trivium game in progress, in the page's deal shape."""
    state = game.state
    return {
        "game": "trivium", "phase": state.phase, "phase_label": "Playing" if state.phase == "play" else "Game over",
        "contract": None, "contract_label": "Trivium", "taker": None, "partner": None, "called_card": None,
        "trick_number": None, "to_play": None, "trick": [], "tricks": [],
        "target": None, "points": None, "oudlers": None, "tricks_left": None,
        "result": None if state.winner is None else {"won": True, "diff": 0, "scores": list(state.scores)},
    }


def table_page_state(log: Any, game: Any, state: Any, title: str = "Tarotmate",
                     club: dict[str, Any] | None = None, history_games: int = 5) -> dict[str, Any]:
    """What the table's page shows: the open deal, this game's score sheet, the last games."""
    names = list(game.names)
    deals = log.deals(game.id)
    # a state with tricks is a French tarot deal; otherwise a Trivium game
    current = deal_view(state, names) if hasattr(state, "current_trick") else trivium_view(state, names)
    sheet = sheet_view(names, _sheet_rows(deals))
    history = []
    for g in reversed(log.games()):
        if g.id == game.id or g.finished is None:
            continue
        totals = [int(round(t)) for t in log.totals(g.id)]
        history.append({"label": f"Game {g.id} ({g.kind})", "names": list(g.names), "totals": totals})
        if len(history) >= history_games:
            break
    return page_state(title, names, current, sheet, history, club)

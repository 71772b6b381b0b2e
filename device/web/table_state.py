"""The table page's state from the deal log and the engine's state of the open deal."""

from __future__ import annotations

from typing import Any

from device.app.registry import game_for
from device.web.views import page_state, sheet_view


def _sheet_rows(deals: list[Any]) -> list[dict[str, Any]]:
    rows = []
    for d in deals:
        if d.scores is None:
            continue
        rec = d.record or {}
        rows.append({"scores": d.scores, "contract": rec.get("contract"), "taker": rec.get("taker"),
                     "won": None})
    return rows


def table_page_state(log: Any, game: Any, state: Any, title: str = "Tarotmate",
                     club: dict[str, Any] | None = None, history_games: int = 5) -> dict[str, Any]:
    """What the table's page shows: the open deal, this game's score sheet, the last games."""
    names = list(game.names)
    deals = log.deals(game.id)
    current = game_for(game.kind).page_view(state, names)  # each game says how its deal in progress is shown
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

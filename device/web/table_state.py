"""The table page's state from the deal log and the engine's state of the open deal."""

from __future__ import annotations

from typing import Any

from device.app.registry import game_for
from device.i18n import translator
from device.web.views import history_label, page_state, sheet_view


def table_page_state(log: Any, game: Any, state: Any, title: str = "Tarotmate",
                     club: dict[str, Any] | None = None, history_games: int = 5,
                     lang: str = "en") -> dict[str, Any]:
    """What the table's page shows, in ``lang``: the open deal, this game's score sheet, the last games.
    Each game says how its deal in progress and its finished deals read (:attr:`Game.page`)."""
    names = list(game.names)
    page = game_for(game.kind).page
    current = page.deal_view(state, names, lang)
    rows = [{"scores": d.scores, **page.sheet_row(d.record, names, lang)}
            for d in log.deals(game.id) if d.scores is not None]
    history = []
    for g in reversed(log.games()):
        if g.id == game.id or g.finished is None:
            continue
        totals = [int(round(t)) for t in log.totals(g.id)]
        history.append({"label": history_label(g.id, game_for(g.kind).title, lang), "names": list(g.names),
                        "totals": totals})
        if len(history) >= history_games:
            break
    sheet = sheet_view(names, rows, translator(lang)(page.SHEET_HEADING))
    return page_state(title, names, current, sheet, history, club, lang)

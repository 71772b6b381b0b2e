"""What the table's page shows, as plain JSON-ready dicts (pure functions); each game says how its deal
in progress and its finished deals read (``device/games/<game>/page.py``, :attr:`Game.page`).

* :func:`sheet_view` — the game's score sheet: every finished deal (its row as
  its game wrote it), the totals and the running totals by player (the chart's series);
* :func:`page_labels` — the page's own words in the device's language;
* :func:`page_state` — the deal in progress, the sheet and the earlier games,
  with the table's title and the page's words, as the page receives it.
"""

from __future__ import annotations

from typing import Any, Sequence

from device.i18n import N_, translator

LABELS = {
    "waiting": N_("Waiting for the first deal"),
    "on_table": N_("On the table:"),
    "to_play": N_("{player} to play"),
    "tricks_played": N_("Tricks played"),
    "sheet": N_("Score sheet"),
    "deal": N_("Deal"),
    "total": N_("Total"),
    "earlier": N_("Earlier games"),
    "none_yet": N_("None yet."),
    "connecting": N_("Connecting…"),
    "live": N_("Live"),
    "reconnecting": N_("Reconnecting…"),
    "chart_deal": N_("deal"),
    "chart_total": N_("total"),
}
GAME_LABEL = N_("Game {n} ({game})")


def page_labels(lang: str = "en") -> dict[str, str]:
    """The page's headings and words, translated (the placeholders left for the page to fill)."""
    tr = translator(lang)
    return {key: tr(text) for key, text in LABELS.items()}


def history_label(number: int, game_title: str, lang: str = "en") -> str:
    """``Game 3 (French tarot)``: an earlier game of the deal log."""
    tr = translator(lang)
    return tr(GAME_LABEL).format(n=number, game=tr(game_title))


def sheet_view(names: Sequence[str], deals: Sequence[dict[str, Any]], heading: str = "") -> dict[str, Any]:
    """The score sheet from the finished deals, each ``{"scores": [...], "label": ...}`` and the
    fields of its game's row (``device/games/<game>/page.py``'s ``sheet_row``); ``heading`` names the
    column of the labels (``Contract``, ``Combination``)."""
    totals = [0] * len(names)
    rows, running = [], [[] for _ in names]
    for i, d in enumerate(deals):
        scores = [int(round(s)) for s in (d.get("scores") or [0] * len(names))]
        totals = [t + s for t, s in zip(totals, scores)]
        for seat, t in enumerate(totals):
            running[seat].append(t)
        row = {key: value for key, value in d.items() if key != "scores"}
        rows.append({**row, "number": i + 1, "scores": scores, "totals": list(totals)})
    return {"names": list(names), "heading": heading, "rows": rows, "totals": totals, "running": running}


def page_state(title: str, names: Sequence[str], deal: dict[str, Any] | None,
               sheet: dict[str, Any], history: Sequence[dict[str, Any]] = (),
               club: dict[str, Any] | None = None, lang: str = "en") -> dict[str, Any]:
    """Everything the table's page shows; ``history`` lists the earlier games of the deal log."""
    return {"title": title, "names": list(names), "deal": deal, "sheet": sheet, "history": list(history),
            "club": club, "lang": lang, "labels": page_labels(lang)}

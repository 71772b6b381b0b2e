"""What the table's page shows, as plain JSON-ready dicts built from the engine's state (pure functions).

* :func:`deal_view` — the deal in progress: contract, taker, partner, target,
  points so far, the trick on the table and the tricks played;
* :func:`trivium_view` — a Trivium game in progress, in the same shape;
* :func:`sheet_view` — the game's score sheet: every finished deal, the totals
  and the running totals by player (the chart's series);
* :func:`page_state` — both, with the table's title, as the page receives it.
"""

from __future__ import annotations

from typing import Any, Sequence

from engine.card_names import short_name

CONTRACT_LABEL = {"prise": "Prise", "garde": "Garde", "garde_sans": "Garde sans", "garde_contre": "Garde contre"}
PHASE_LABEL = {"bidding": "Bidding", "call": "Calling a card", "chien": "The chien", "ecart": "The écart",
               "play": "Playing", "done": "Deal over", "redeal": "Everyone passed"}

TRIVIUM_PHASE_LABEL = {"deal": "Dealing", "play": "Playing", "finished": "Game over"}


def _card(code: str) -> dict[str, str]:
    return {"code": code, "name": short_name(code)}


def deal_view(deal: Any, names: Sequence[str]) -> dict[str, Any]:
    """The French tarot deal in progress (a :class:`~engine.tarot.state.TarotDeal`)."""
    taker = deal.taker
    partner = deal.partner
    cur = deal.current_trick
    view: dict[str, Any] = {
        "game": "french-tarot",
        "phase": deal.phase,
        "phase_label": PHASE_LABEL.get(deal.phase, deal.phase),
        "contract": deal.contract,
        "contract_label": CONTRACT_LABEL.get(deal.contract or "", ""),
        "taker": None if taker is None else names[taker],
        "partner": None if partner is None or partner == taker else names[partner],
        "called_card": None if deal.called_card is None else _card(deal.called_card),
        "trick_number": deal.trick_number,
        "to_play": None if deal.to_play is None else names[deal.to_play],
        "trick": [{"seat": s, "name": names[s], "card": _card(c)} for s, c in zip(cur.seats, cur.cards)],
        "tricks": [{"number": t.number, "winner": names[t.winner],
                    "cards": [{"name": names[s], "card": _card(c)} for s, c in zip(t.seats, t.cards)]}
                   for t in deal.tricks],
        "target": None, "points": None, "oudlers": None, "tricks_left": None, "result": None,
    }
    live = deal.live_target() if deal.phase == "play" else None
    if live is not None:
        view.update(target=live.needed, points=live.has, oudlers=live.oudlers, tricks_left=live.tricks_left)
    if deal.phase == "done":
        r = deal.result()
        view.update(target=r.target, points=r.attack_points, oudlers=r.attack_oudlers,
                    result={"won": r.won, "diff": r.diff, "scores": list(r.scores)})
    return view


def trivium_view(game: Any, names: Sequence[str]) -> dict[str, Any]:
    """The Trivium game in progress, in the page's deal shape."""
    state = game.state
    return {
        "game": "trivium", "phase": state.phase, "phase_label": TRIVIUM_PHASE_LABEL.get(state.phase, state.phase),
        "contract": None, "contract_label": "Trivium", "taker": None, "partner": None, "called_card": None,
        "trick_number": None, "to_play": None, "trick": [], "tricks": [],
        "target": None, "points": None, "oudlers": None, "tricks_left": None,
        "result": None if state.winner is None else {"won": True, "diff": 0, "scores": list(state.scores)},
    }


def sheet_view(names: Sequence[str], deals: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The score sheet from the finished deals, each ``{"scores": [...], "contract", "taker", "won"}``
    (``taker`` a seat or None)."""
    totals = [0] * len(names)
    rows, running = [], [[] for _ in names]
    for i, d in enumerate(deals):
        scores = [int(round(s)) for s in (d.get("scores") or [0] * len(names))]
        totals = [t + s for t, s in zip(totals, scores)]
        for seat, t in enumerate(totals):
            running[seat].append(t)
        taker = d.get("taker")
        rows.append({"number": i + 1, "scores": scores, "totals": list(totals),
                     "contract": CONTRACT_LABEL.get(d.get("contract") or "", d.get("contract") or "passed"),
                     "taker": None if taker is None else names[taker], "won": d.get("won")})
    return {"names": list(names), "rows": rows, "totals": totals, "running": running}


def page_state(title: str, names: Sequence[str], deal: dict[str, Any] | None,
               sheet: dict[str, Any], history: Sequence[dict[str, Any]] = (),
               club: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything the table's page shows; ``history`` lists the earlier games of the deal log."""
    return {"title": title, "names": list(names), "deal": deal, "sheet": sheet, "history": list(history),
            "club": club}

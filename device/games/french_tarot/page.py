"""French tarot on the table's page: the deal in progress and a finished deal's row of the score sheet.

The page's JSON keeps its fields (``contract``, ``taker``, ``target``, ``points``,
``result``…) and adds the lines the page shows, written in the device's
language: ``title`` (``Garde by Ana with Luis``), ``line`` (``Playing ·
trick 4``) and ``outcome`` (``Attack: 53,5 points, 2 oudlers · needs 41 ·
made by 12,5``).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from device.i18n import N_, number, translator
from device.screens.labels import CONTRACT_NAMES
from engine.card_names import short_name
from engine.tarot.state import Phase

PHASE_NAMES = {Phase.BIDDING: N_("Bidding"), Phase.CALLING: N_("Calling a card"), Phase.CHIEN: N_("The chien"),
               Phase.ECART: N_("The écart"), Phase.PLAY: N_("Playing"), Phase.DONE: N_("Deal over"),
               Phase.REDEAL: N_("Everyone passed")}
PASSED = N_("Passed")
SHEET_HEADING = N_("Contract")  # the score sheet's column of what each deal was


def contract_label(contract: str | None, lang: str = "en") -> str:
    """``Garde sans`` (translated), or ``Passed`` for a deal nobody took."""
    tr = translator(lang)
    return tr(CONTRACT_NAMES.get(contract, contract)) if contract else tr(PASSED)


def _card(code: str) -> dict[str, str]:
    return {"code": code, "name": short_name(code)}


def deal_view(deal: Any, names: Sequence[str], lang: str = "en") -> dict[str, Any]:
    """The deal in progress (a :class:`~engine.tarot.state.TarotDeal`)."""
    tr = translator(lang)
    taker, partner, cur, phase = deal.taker, deal.partner, deal.current_trick, deal.phase
    view: dict[str, Any] = {
        "game": "french-tarot",
        "phase": phase,
        "phase_label": tr(PHASE_NAMES.get(phase, phase)),
        "contract": deal.contract,
        "contract_label": contract_label(deal.contract, lang) if deal.contract else "",
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
    live = deal.live_target() if phase is Phase.PLAY else None
    if live is not None:
        view.update(target=live.needed, points=live.has, oudlers=live.oudlers, tricks_left=live.tricks_left)
    if phase is Phase.DONE:
        r = deal.result()
        view.update(target=r.target, points=r.attack_points, oudlers=r.attack_oudlers,
                    result={"won": r.won, "diff": r.diff, "scores": list(r.scores)})
    view.update(_lines(view, tr, lang))
    return view


def _lines(view: dict[str, Any], tr: Any, lang: str) -> dict[str, str]:
    if view["contract"]:
        title = view["contract_label"]
        if view["taker"]:
            title = tr(N_("{contract} by {player}")).format(contract=title, player=view["taker"])
        if view["partner"]:
            title = tr(N_("{deal} with {player}")).format(deal=title, player=view["partner"])
    else:
        title = view["phase_label"]
    line = view["phase_label"]
    if view["phase"] == Phase.PLAY:
        line += " · " + tr(N_("trick {n}")).format(n=view["trick_number"])
    if view["called_card"]:
        line += " · " + tr(N_("called {card}")).format(card=view["called_card"]["name"])
    outcome = ""
    if view["target"] is not None:
        oudlers = tr(N_("{n} oudler")) if view["oudlers"] == 1 else tr(N_("{n} oudlers"))
        outcome = tr(N_("Attack: {points} points, {oudlers} · needs {target}")).format(
            points=number(view["points"], lang), oudlers=oudlers.format(n=view["oudlers"]),
            target=number(view["target"], lang))
        if view["result"]:
            verdict = tr(N_("made by {n}")) if view["result"]["won"] else tr(N_("failed by {n}"))
            outcome += " · " + verdict.format(n=number(view["result"]["diff"], lang))
    return {"title": title, "line": line, "outcome": outcome}


def sheet_row(record: Mapping[str, Any] | None, names: Sequence[str], lang: str = "en") -> dict[str, Any]:
    """A finished deal's row of the score sheet, from its ``tarot-deal/1`` record: the contract (its
    label, as the page has always shown it) and the taker; ``label`` is what the sheet shows."""
    rec = record or {}
    taker = rec.get("taker")
    player = None if taker is None else names[taker]
    label = contract_label(rec.get("contract"), lang)
    return {"contract": label, "taker": player, "won": None,
            "label": label if player is None else f"{label} ({player})"}

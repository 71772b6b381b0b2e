"""Writing a deal as a ``tarot-deal/1`` record (``TarotDeal.to_record()``).

Only the deal's public properties are read; reading a record back, checking
it and replaying it is :mod:`engine.tarot.record`'s.
"""

from __future__ import annotations

from typing import Any

RECORD_FORMAT = "tarot-deal/1"


def deal_to_record(deal) -> dict[str, Any]:
    """A ``tarot-deal/1`` record of ``deal`` (finished tricks only)."""
    seen_chien = deal.contract in ("prise", "garde") and deal.chien_seen
    rec: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "game": "french-tarot",
        "players": deal.players,
    }
    if deal.names is not None:
        rec["names"] = list(deal.names)
    rec.update({
        "options": deal.options.to_dict(),
        "dealer": deal.dealer,
        "bids": [[s, b] for s, b in deal.bids],
        "taker": deal.taker,
        "contract": deal.contract,
        "called_card": deal.called_card,
        "chien": list(deal.chien) if seen_chien and deal.chien else None,
        "ecart": list(deal.ecart) if deal.ecart else None,
        "poignees": [{"seat": p.seat, "level": p.level, "shown": list(p.shown)}
                     for p in deal.poignees],
        "chelem_announced": deal.chelem_announced,
        "tricks": [{"leader": t.leader, "cards": list(t.cards)} for t in deal.tricks],
    })
    if deal.miseres:
        rec["misere"] = [{"seat": s, "kind": k} for s, k in deal.miseres]
    return rec

"""Engine state → the screens' view models (``device.screens.views``): the
views every game shares (a refused operation, a card to confirm, the score
table). Each game's own views are its ``screens`` module
(``device/games/<game>/screens.py``).

The screens never look into the engines; these functions read a state and
the controller's pending confirmations and fill the view dataclasses that
``device.screens.render`` draws.
"""

from __future__ import annotations

from device.screens.views import ConfirmCardView, ScoreTableView, ViolationView


def seat_name(names: list[str], seat: int | None) -> str:
    """The name of ``seat`` (``?`` for none, ``seat N`` past the names)."""
    if seat is None:
        return "?"
    return names[seat] if 0 <= seat < len(names) else f"seat {seat + 1}"


def whole(value: float) -> int:
    """A score as the screens show it."""
    return int(round(value))


def alert_view(text: str, deal, names: list[str], seat: int | None = None, card: str | None = None) -> ViolationView:
    """A refused operation (a card already played, the wrong phase...)."""
    trick = deal.trick_number if hasattr(deal, "trick_number") else 0
    return ViolationView("refused", seat_name(names, seat) if seat is not None else "Tarotmate", trick, None, card,
                         detail=text)


def score_table_view(names: list[str], deal_scores, totals, deal_number: int) -> ScoreTableView:
    return ScoreTableView(
        tuple(names),
        tuple(whole(s) for s in deal_scores),
        tuple(whole(t) for t in totals),
        deal_number,
    )


def confirm_view(pending, names: list[str], seat: int | None = None) -> ConfirmCardView:
    return ConfirmCardView(
        card=pending.best or "EX",
        confidence=float(pending.confidence),
        alternatives=pending.alternatives[:3],
        seat=None if seat is None else seat_name(names, seat),
    )



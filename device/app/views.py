"""Engine state → the screens' view models (``device.screens.views``): the
views every game shares (a refused operation, a card to confirm, the score
table). Each game's own views are its ``screens`` module
(``device/games/<game>/screens.py``).

The screens never look into the engines; these functions read a state and
the controller's pending confirmations and fill the view dataclasses that
``device.screens.render`` draws.
"""

from __future__ import annotations

from device.screens.views import ConfirmCardView, GameOverView, ScoreTableView, ViolationView


def seat_name(names: list[str], seat: int | None) -> str:
    """The name of ``seat`` (``?`` for none, ``seat N`` past the names)."""
    if seat is None:
        return "?"
    return names[seat] if 0 <= seat < len(names) else f"seat {seat + 1}"


def whole(value: float) -> int:
    """A score as the screens show it."""
    return int(round(value))


def alert_view(text: str, deal, names: list[str], seat: int | None = None, card: str | None = None,
               why=None) -> ViolationView:
    """A refused operation (a card already played, the wrong phase...).

    ``why`` is the engine's reason (a message id with arguments): the screen
    renders it in its language, seats as the players' names."""
    trick = deal.trick_number if hasattr(deal, "trick_number") else 0
    return ViolationView("refused", seat_name(names, seat) if seat is not None else "Tarotmate", trick, None, card,
                         detail=text, why=why, names=tuple(names))


def score_table_view(names: list[str], deal_scores, totals, deal_number: int) -> ScoreTableView:
    return ScoreTableView(
        tuple(names),
        tuple(whole(s) for s in deal_scores),
        tuple(whole(t) for t in totals),
        deal_number,
    )


def confirm_view(pending, names: list[str], seat: int | None = None, trick: int | None = None,
                 place: str = "trick") -> ConfirmCardView:
    return ConfirmCardView(
        card=pending.best or "EX",
        confidence=float(pending.confidence),
        alternatives=pending.alternatives[:3],
        seat=None if seat is None else seat_name(names, seat),
        trick=trick,
        place=place,
        unread=pending.unread,
    )


def game_over_view(match, names: list[str], unit: str = "deal") -> GameOverView:
    """The end of a game (an :class:`engine.match.Match` that is over): the winner and the totals."""
    return GameOverView(tuple(names), tuple(whole(t) for t in match.totals), match.winner, match.deals, unit)


def pending_place(app, pending) -> dict:
    """Whose card ``pending`` is and where it lies (``seat``, ``trick``, ``place``),
    as far as the game can tell (its screens module's ``pending_place``)."""
    find = getattr(app.session.rules.screens, "pending_place", None)
    return dict(find(app, pending)) if find is not None else {}



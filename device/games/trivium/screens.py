"""Trivium's screens: its engine state → the screens' view models
(``device.screens.views``): the table (tercias, olla, El Loco) and the big
announcements.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from device.app.controller import MIDDLE, seat_of_zone
from device.games.trivium.controller import discarding_seat
from device.app.views import seat_name
from device.screens.views import AnnouncementView, TerciaView, TriviumSeatView, TriviumView, ViolationView


def trivium_view(game, names: list[str], laying: Mapping[int, Sequence[str]] | None = None) -> TriviumView:
    """Each seat's laid tercias (and the cards seen of one being laid, ``laying`` by seat), the
    olla's top card and where El Loco is."""
    seats = []
    laying = laying or {}
    for seat_view in game.seats:
        tercias = tuple(TerciaView(tuple(g.cards), bool(g.valid)) for g in seat_view.laid)
        seats.append(TriviumSeatView(seat_name(names, seat_view.seat), tercias, seat_view.hand_size,
                                     tuple(laying.get(seat_view.seat, ()))))
    status, holder = loco_status(game.loco, names)
    return TriviumView(tuple(seats), game.olla_top, status, holder, game.to_play)


def pending_place(app, pending) -> dict:
    """Whose card a question is about and where it lies, for the check-card screen: a card
    in the middle is the discard onto the olla of the seat whose exchange it is; a card of a
    seat's zone (a tercia being laid, or a card of it laid unseen) is that seat's."""
    if pending.zone == MIDDLE:
        return {"seat": discarding_seat(app.session.state), "place": "olla"}
    seat = pending.seat if pending.seat is not None else seat_of_zone(pending.zone)
    return {} if seat is None else {"seat": seat}


def loco_status(loco, names: list[str]) -> tuple[str, str | None]:
    """The screen's Loco status: ``stolen`` (by whom), ``in_olla``, ``wild`` (who holds it) or ``unseen``."""
    if loco.thief is not None:
        return "stolen", seat_name(names, loco.thief)
    if loco.location == "olla":
        return "in_olla", None
    if loco.location in ("hand", "laid") and loco.seat is not None:
        return "wild", seat_name(names, loco.seat)
    return "unseen", None


def announcement_view(announcement, names: list[str]) -> AnnouncementView | ViolationView:
    """A win ("TRIVIUM! 63") or a laid group that is not a tercia."""
    if announcement.kind == "not_tercia":
        return ViolationView("other", seat_name(names, announcement.seat), 0, None, None, detail=announcement.text,
                             why=getattr(announcement, "why", None), names=tuple(names))
    kind = announcement.combination or announcement.kind
    return AnnouncementView(kind=kind, seat=seat_name(names, announcement.seat), points=announcement.points, valid=True)


# ---------------------------------------------------------------- the table app's questions


def game_view(app) -> TriviumView:
    """The table: each seat's tercias, the olla and El Loco."""
    return trivium_view(app.session.state, app.session.names, getattr(app.controller, "groups", None))


def violations(game) -> tuple:
    """Trivium's faults are refused operations and announcements: no violation comes later."""
    return ()


def violation_view(violation, names: list[str], game=None) -> ViolationView:  # pragma: no cover - no violations
    raise NotImplementedError("Trivium reports no violations")


def announcement_alert(notice, names: list[str]) -> AnnouncementView | ViolationView | None:
    """A win, or a laid group that is not a tercia, shown over the table until the next operation."""
    announcement = getattr(notice, "announcement", None)
    if announcement is not None and announcement.kind in ("win", "not_tercia"):
        return announcement_view(announcement, names)
    return None


"""Engine state → the screens' view models (``device.screens.views``).

The screens never look into the engines; these functions read a deal (or a
Trivium game) and the controller's pending confirmations and fill the view
dataclasses that ``device.screens.render`` draws.
"""

from __future__ import annotations

from typing import Any

from device.i18n import N_, translator

from device.screens.views import (
    AnnouncementView,
    BiddingView,
    ConfirmCardView,
    DealEndView,
    MenuView,
    ScoreTableView,
    TargetView,
    TerciaView,
    TrickPlay,
    TrickView,
    TriviumSeatView,
    TriviumView,
    ViolationView,
)

# engine rule names -> the screens' violation kinds
VIOLATION_KINDS = {
    "follow_suit": "revoke",
    "must_trump": "must_trump",
    "must_overtrump": "undertrump",
    "out_of_turn": "out_of_turn",
    "lead_out_of_turn": "out_of_turn",
    "excuse": "excuse",
}


def _name(names: list[str], seat: int | None) -> str:
    if seat is None:
        return "?"
    return names[seat] if 0 <= seat < len(names) else f"seat {seat + 1}"


def _int(value: float) -> int:
    return int(round(value))


# ---------------------------------------------------------------- French tarot


def bidding_view(deal, names: list[str]) -> BiddingView:
    bids: list[str | None] = [None] * deal.players
    for seat, bid in deal.bids:
        bids[seat] = bid
    return BiddingView(tuple(names), deal.dealer, tuple(bids), deal.to_speak, deal.called_card)


def chien_view(deal, seen: list[str], lang: str = "en", style: str = "french") -> MenuView:
    """The chien being shown: the cards seen so far, by name."""
    from device.screens.labels import card_name

    items = tuple(card_name(code, lang, style) for code in seen) or ("…",)
    title = translator(lang)(N_("Chien {n}/{total}")).format(n=len(seen), total=deal.chien_size)
    return MenuView(title, items, len(items) - 1)


def ecart_view(deal, names: list[str], lang: str = "en") -> MenuView:
    tr = translator(lang)
    return MenuView(tr(N_("Écart")), (tr(N_("{name} discards")).format(name=_name(names, deal.taker)),), 0,
                    hint=tr(N_("OK when done")))


def target_view(deal, names: list[str]) -> TargetView | None:
    live = deal.live_target()
    if live is None:
        return None
    partner = deal.partner
    return TargetView(
        contract=live.contract,
        taker=_name(names, deal.taker),
        oudlers=live.oudlers,
        needs=float(live.needed),
        has=float(live.has),
        tricks_left=live.tricks_left,
        partner=None if partner is None else _name(names, partner),
        called_king=deal.called_card,
    )


def trick_view(deal, names: list[str]) -> TrickView:
    """The trick in progress, or the last finished one (with its winner) between tricks."""
    trick = deal.current_trick
    winner = None
    if not trick.cards and deal.tricks:
        trick = deal.tricks[-1]
        winner = trick.seats.index(trick.winner) if trick.winner in trick.seats else None
    plays = tuple(TrickPlay(_name(names, seat), code) for seat, code in zip(trick.seats, trick.cards))
    return TrickView(trick.number, plays, winner, deal.hand_size)


def violation_view(violation, names: list[str], deal=None) -> ViolationView:
    """An engine violation (revoke, failure to trump...) for the alert screen."""
    kind = VIOLATION_KINDS.get(violation.rule, "other")
    suit = None
    card = None
    if deal is not None and 1 <= violation.trick <= len(deal.tricks):
        trick = deal.tricks[violation.trick - 1]
        if violation.seat in trick.seats:
            card = trick.cards[trick.seats.index(violation.seat)]
        led = next((c for c in trick.cards if c != "EX"), None)
        if led is not None and not led.startswith("T"):
            suit = led[0]
        elif led is not None:
            suit = "T"
    return ViolationView(kind, _name(names, violation.seat), violation.trick, suit if kind != "other" else None,
                         card, detail=str(violation.evidence))


def alert_view(text: str, deal, names: list[str], seat: int | None = None, card: str | None = None) -> ViolationView:
    """A refused operation (a card already played, the wrong phase...)."""
    trick = deal.trick_number if hasattr(deal, "trick_number") else 0
    return ViolationView("refused", _name(names, seat) if seat is not None else "Tarotmate", trick, None, card,
                         detail=text)


def deal_end_view(deal, names: list[str]) -> DealEndView | None:
    if deal.phase != "done":
        return None
    r = deal.result()
    chelem = None
    if r.chelem == "attack":
        chelem = "announced_made" if r.chelem_announced else "made"
    elif r.chelem_announced:
        chelem = "announced_failed"
    pab = None
    if r.petit_au_bout is not None:
        last = deal.tricks[-1]
        petit_seat = last.seats[last.cards.index("T01")] if "T01" in last.cards else None
        pab = _name(names, petit_seat)
    margin = r.attack_points - r.target
    return DealEndView(
        contract=r.contract,
        taker=_name(names, r.taker),
        made=r.won,
        margin=abs(margin),
        oudlers=r.attack_oudlers,
        points=r.attack_points,
        petit_au_bout=pab,
        poignees=tuple((_name(names, p.seat), p.level) for p in deal.poignees),
        chelem=chelem,
        score=_int(r.scores[r.taker]),
    )


def score_table_view(names: list[str], deal_scores, totals, deal_number: int) -> ScoreTableView:
    return ScoreTableView(
        tuple(names),
        tuple(_int(s) for s in deal_scores),
        tuple(_int(t) for t in totals),
        deal_number,
    )


def confirm_view(pending, names: list[str], seat: int | None = None) -> ConfirmCardView:
    return ConfirmCardView(
        card=pending.best or "EX",
        confidence=float(pending.confidence),
        alternatives=pending.alternatives[:3],
        seat=None if seat is None else _name(names, seat),
    )


def tarot_view(deal, names: list[str], chien_seen: list[str] | None = None, lang: str = "en",
               style: str = "french") -> Any:
    """The screen for the deal's phase when nothing else needs attention."""
    phase = deal.phase
    if phase == "bidding" or phase == "calling":
        return bidding_view(deal, names)
    if phase == "chien":
        return chien_view(deal, chien_seen or [], lang, style)
    if phase == "ecart":
        return ecart_view(deal, names, lang)
    if phase == "play":
        return trick_view(deal, names)
    if phase == "done":
        return deal_end_view(deal, names)
    return MenuView("Redeal", ("Everybody passed", "New deal"), 1)


# ---------------------------------------------------------------- Trivium


def trivium_view(game, names: list[str]) -> TriviumView:
    """Each seat's laid tercias, the olla's top card and where El Loco is."""
    seats = []
    for seat_view in game.seats:
        tercias = tuple(TerciaView(tuple(g.cards), bool(g.valid)) for g in seat_view.laid)
        seats.append(TriviumSeatView(_name(names, seat_view.seat), tercias, seat_view.hand_size))
    status, holder = loco_status(game.loco, names)
    return TriviumView(tuple(seats), game.olla_top, status, holder, game.to_play)


def loco_status(loco, names: list[str]) -> tuple[str, str | None]:
    """The screen's Loco status: ``stolen`` (by whom), ``in_olla``, ``wild`` (who holds it) or ``unseen``."""
    if loco.thief is not None:
        return "stolen", _name(names, loco.thief)
    if loco.location == "olla":
        return "in_olla", None
    if loco.location in ("hand", "laid") and loco.seat is not None:
        return "wild", _name(names, loco.seat)
    return "unseen", None


def announcement_view(announcement, names: list[str]) -> AnnouncementView | ViolationView:
    """A win ("TRIVIUM! 63") or a laid group that is not a tercia."""
    if announcement.kind == "not_tercia":
        return ViolationView("other", _name(names, announcement.seat), 0, None, None, detail=announcement.text)
    kind = announcement.combination or announcement.kind
    return AnnouncementView(kind=kind, seat=_name(names, announcement.seat), points=announcement.points, valid=True)

"""French tarot's screens: its engine state → the screens' view models
(``device.screens.views``): the bidding, the chien, the écart, the target,
the trick, a violation, the end of the deal.
"""

from __future__ import annotations

from typing import Any

from device.app.views import seat_name, whole
from device.i18n import N_, translator
from device.screens.views import BiddingView, DealEndView, MenuView, TargetView, TrickPlay, TrickView, ViolationView
from engine.tarot.state import Phase

# engine rule names -> the screens' violation kinds
VIOLATION_KINDS = {
    "follow_suit": "revoke",
    "must_trump": "must_trump",
    "must_overtrump": "undertrump",
    "out_of_turn": "out_of_turn",
    "lead_out_of_turn": "out_of_turn",
    "excuse": "excuse",
}


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
    return MenuView(tr(N_("Écart")), (tr(N_("{name} discards")).format(name=seat_name(names, deal.taker)),), 0,
                    hint=tr(N_("OK when done")))


def target_view(deal, names: list[str]) -> TargetView | None:
    live = deal.live_target()
    if live is None:
        return None
    partner = deal.partner
    return TargetView(
        contract=live.contract,
        taker=seat_name(names, deal.taker),
        oudlers=live.oudlers,
        needs=float(live.needed),
        has=float(live.has),
        tricks_left=live.tricks_left,
        partner=None if partner is None else seat_name(names, partner),
        called_king=deal.called_card,
    )


def trick_view(deal, names: list[str]) -> TrickView:
    """The trick in progress, or the last finished one (with its winner) between tricks."""
    trick = deal.current_trick
    winner = None
    if not trick.cards and deal.tricks:
        trick = deal.tricks[-1]
        winner = trick.seats.index(trick.winner) if trick.winner in trick.seats else None
    plays = tuple(TrickPlay(seat_name(names, seat), code) for seat, code in zip(trick.seats, trick.cards))
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
    return ViolationView(kind, seat_name(names, violation.seat), violation.trick, suit if kind != "other" else None,
                         card, detail=str(violation.evidence), why=violation.why,
                         names=tuple(names))


def deal_end_view(deal, names: list[str]) -> DealEndView | None:
    if deal.phase is not Phase.DONE:
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
        pab = seat_name(names, petit_seat)
    margin = r.attack_points - r.target
    return DealEndView(
        contract=r.contract,
        taker=seat_name(names, r.taker),
        made=r.won,
        margin=abs(margin),
        oudlers=r.attack_oudlers,
        points=r.attack_points,
        petit_au_bout=pab,
        poignees=tuple((seat_name(names, p.seat), p.level) for p in deal.poignees),
        chelem=chelem,
        score=whole(r.scores[r.taker]),
    )


def tarot_view(deal, names: list[str], chien_seen: list[str] | None = None, lang: str = "en",
               style: str = "french") -> Any:
    """The screen for the deal's phase when nothing else needs attention."""
    phase = deal.phase
    if phase is Phase.BIDDING or phase is Phase.CALLING:
        return bidding_view(deal, names)
    if phase is Phase.CHIEN:
        return chien_view(deal, chien_seen or [], lang, style)
    if phase is Phase.ECART:
        return ecart_view(deal, names, lang)
    if phase is Phase.PLAY:
        return trick_view(deal, names)
    if phase is Phase.DONE:
        return deal_end_view(deal, names)
    return MenuView("Redeal", ("Everybody passed", "New deal"), 1)


# ---------------------------------------------------------------- the table app's questions


def game_view(app) -> Any:
    """What the OLED shows of the deal when nothing else needs attention: the
    end of the deal, the live target once a trick is swept, else the phase's screen."""
    deal, names = app.session.state, app.session.names
    if deal.phase is Phase.DONE:
        return deal_end_view(deal, names)
    if deal.phase is Phase.PLAY and (app.swept or not deal.tricks) and not deal.current_trick.cards:
        return target_view(deal, names)
    return tarot_view(deal, names, app.controller.chien_seen, app.lang, app.style)


def violations(deal) -> tuple:
    """The rules broken so far (a revoke proven by a later card...), each shown once with the buzzer."""
    return deal.violations


def announcement_alert(notice, names: list[str]) -> None:
    """French tarot has no announcement screen: its events are on the game's own screens."""
    return None



def pending_place(app, pending) -> dict:
    """Whose card an uncertain card is and where it lies, for the check-card
    screen: the seat to play and the trick during the play, the chien while it
    is shown."""
    deal = app.session.state
    phase = deal.phase
    if getattr(pending, "trick", None) is not None:  # a card of an earlier trick, to fix
        return {"seat": pending.seat, "trick": pending.trick, "place": "trick"}
    if phase is Phase.PLAY and deal.to_play is not None:
        return {"seat": deal.to_play, "trick": deal.trick_number, "place": "trick"}
    if phase is Phase.CHIEN:
        return {"seat": None, "trick": None, "place": "chien"}
    return {}

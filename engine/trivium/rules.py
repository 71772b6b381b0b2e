"""The rules as one pure function: ``step(state, operation) -> new state``.

``step`` raises :class:`IllegalOperation` with the precise reason when the
rules refuse the operation; it never changes the state it is given.
"""

from __future__ import annotations

from dataclasses import replace

from engine.cards import CODES, card
from engine.trivium.combinations import (
    CUADRIVIUM,
    DISPLAY,
    GRAN_CUADRIVIUM,
    GRAN_MAESTRE,
    POINTS,
    TERCIA,
    TRIVIUM,
    Verdict,
    check_tercia,
    classify,
)
from engine.trivium.operations import (
    Deal,
    Declare,
    DrawFromPozo,
    IllegalOperation,
    LayTercia,
    Operation,
    PozoEmpty,
    Steal,
    TakeFromOlla,
    Withdraw,
)
from engine.trivium.state import LOCO, Announcement, Hand, LaidGroup, TriviumState, sort_codes

HAND_SIZE = 9
DECLARABLE = (CUADRIVIUM, GRAN_CUADRIVIUM, GRAN_MAESTRE)


def step(state: TriviumState, op: Operation) -> TriviumState:
    """The state after ``op``; raise IllegalOperation (state untouched) if refused."""
    handler = _HANDLERS.get(type(op))
    if handler is None:
        raise _refused("operation", f"not a Trivium operation: {op!r}")
    if state.phase == "finished":
        raise _refused("game_over", f"the game is over: {_outcome(state)}")
    if isinstance(op, Deal):
        if state.phase != "deal":
            raise _refused("phase", "the cards are already dealt")
    elif state.phase == "deal":
        raise _refused("phase", "the cards are not dealt yet")
    return handler(state, op)


# --------------------------------------------------------------------------- helpers


def _refused(rule: str, reason: str) -> IllegalOperation:
    """The refusal of an operation: ``rule`` names the rule, ``reason`` says why."""
    return IllegalOperation(reason, rule)


def _outcome(state: TriviumState) -> str:
    if state.winner is None:
        return "it ended with no winner"
    return f"{state.players[state.winner]} won with {DISPLAY[state.result.combination]}, {state.result.points}"


def _name(state: TriviumState, seat: int) -> str:
    return state.players[seat]


def _check_seat(state: TriviumState, seat: int) -> None:
    if not 0 <= seat < state.n:
        raise _refused("seat", f"there is no seat {seat}: seats are 0 to {state.n - 1}")


def _check_exchange_turn(state: TriviumState, seat: int) -> None:
    """``seat`` may make the next exchange (which ends the previous turn)."""
    _check_seat(state, seat)
    expected = state.next_to_exchange
    if seat == state.turn and state.exchanged:
        raise _refused("exchange_turn", f"{_name(state, seat)} has already exchanged a card this turn")
    if seat != expected:
        raise _refused("turn", 
            f"not {_name(state, seat)}'s turn: {_name(state, expected)} exchanges next"
        )


def _check_action_turn(state: TriviumState, seat: int, what: str) -> None:
    """``seat`` may act (lay, steal, declare) now: after its exchange, in its turn."""
    _check_seat(state, seat)
    if seat != state.turn:
        raise _refused("turn", 
            f"not {_name(state, seat)}'s turn: only {_name(state, state.turn)} may {what} now"
        )
    if not state.exchanged:
        raise _refused("exchange_first", 
            f"{_name(state, seat)} must first exchange a card (from the pozo or the olla), then {what}"
        )


def _take_from_hand(state: TriviumState, seat: int, codes) -> Hand:
    """The seat's hand without ``codes``; refuse a card the seat cannot hold."""
    hand = state.hands[seat]
    known = list(hand.known)
    hidden = hand.hidden
    unseen = state.unseen
    for code in codes:
        if code in known:
            known.remove(code)
            continue
        if code in unseen and hidden > 0:
            hidden -= 1
            continue
        raise _refused("card_place", f"{_name(state, seat)} cannot hold {code}: {_place_text(state, code)}")
    return Hand(tuple(known), hidden)


def _place_text(state: TriviumState, code: str) -> str:
    place, seat = state.located().get(code, ("unknown", None))
    if place == "hand":
        return f"it is in {_name(state, seat)}'s hand"
    if place == "laid":
        return f"it is laid in front of {_name(state, seat)}"
    if place == "olla":
        return "it is in the olla"
    if place == "pozo":
        return "it is in the pozo"
    return "no hidden card is left in that hand"


def _with_hand(state: TriviumState, seat: int, hand: Hand) -> tuple[Hand, ...]:
    return tuple(hand if s == seat else h for s, h in enumerate(state.hands))


def _with_laid(state: TriviumState, seat: int, groups) -> tuple[tuple[LaidGroup, ...], ...]:
    return tuple(tuple(groups) if s == seat else g for s, g in enumerate(state.laid))


def _announce(state: TriviumState, *events: Announcement) -> tuple[Announcement, ...]:
    return state.announcements + tuple(events)


def _add_known(hand: Hand, code: str) -> Hand:
    return Hand(sort_codes(hand.known + (code,)), hand.hidden)


def starter_of(hands, dealer: int, loco_starts: bool) -> tuple[int, str]:
    """Who starts, and why: the holder of the highest major 1-21.

    If no one holds one: the holder of El Loco when ``loco_starts``, else the
    player to the dealer's right (the next seat after the dealer).
    """
    best: tuple[int, int] | None = None
    for seat, hand in enumerate(hands):
        for code in hand:
            c = card(code)
            if c.is_trump and (best is None or c.rank > best[0]):
                best = (c.rank, seat)
    if best is not None:
        return best[1], f"holds the highest major, {best[0]}"
    if loco_starts:
        for seat, hand in enumerate(hands):
            if LOCO in hand:
                return seat, "holds El Loco and no one holds a major from 1 to 21"
    return (dealer + 1) % len(hands), "no one holds a major from 1 to 21: the dealer's right starts"


# --------------------------------------------------------------------------- the deal


def _deal(state: TriviumState, op: Deal) -> TriviumState:
    _check_seat(state, op.dealer)
    n = state.n
    if op.hands is None:
        if op.pozo is not None:
            raise _refused("deal", "a known pozo needs the known hands too")
        if op.starter is None:
            raise _refused("deal", "the hands are hidden: say which seat starts (the highest major)")
        _check_seat(state, op.starter)
        hands = tuple(Hand((), HAND_SIZE) for _ in range(n))
        pozo: tuple[str | None, ...] = (None,) * (len(CODES) - HAND_SIZE * n)
        starter, why = op.starter, "starts"
    else:
        if len(op.hands) != n:
            raise _refused("deal", f"{len(op.hands)} hands dealt for {n} players")
        dealt: list[str] = []
        for seat, hand in enumerate(op.hands):
            if len(hand) != HAND_SIZE:
                raise _refused("deal", f"{_name(state, seat)} is dealt {len(hand)} cards, not {HAND_SIZE}")
            dealt.extend(hand)
        twice = sorted({c for c in dealt if dealt.count(c) > 1})
        if twice:
            raise _refused("deal", f"dealt twice: {', '.join(twice)}")
        rest = set(CODES) - set(dealt)
        if op.pozo is None:
            pozo = (None,) * len(rest)
        else:
            if len(op.pozo) != len(set(op.pozo)) or set(op.pozo) != rest:
                raise _refused("deal", 
                    f"the pozo must be the {len(rest)} cards not dealt, each once"
                )
            pozo = tuple(op.pozo)
        hands = tuple(Hand(sort_codes(h), 0) for h in op.hands)
        starter, why = starter_of(op.hands, op.dealer, state.options.loco_starts)
        if op.starter is not None and op.starter != starter:
            raise _refused("deal", 
                f"{_name(state, starter)} starts ({why}), not {_name(state, op.starter)}"
            )
    start = Announcement("start", starter, _name(state, starter), f"{_name(state, starter)} starts: {why}")
    return replace(
        state,
        phase="play",
        dealer=op.dealer,
        hands=hands,
        pozo=pozo,
        olla=(),
        laid=tuple(() for _ in range(n)),
        turn=starter,
        exchanged=False,
        announcements=_announce(state, start),
    )


# --------------------------------------------------------------------------- exchanges


def _begin_turn(state: TriviumState, seat: int) -> TriviumState:
    return replace(state, turn=seat, exchanged=False)


def _draw_from_pozo(state: TriviumState, op: DrawFromPozo) -> TriviumState:
    _check_exchange_turn(state, op.seat)
    state = _begin_turn(state, op.seat)
    if not state.pozo:
        raise _refused("pozo_empty", 
            f"the pozo is empty: record PozoEmpty (pozo_exhausted={state.options.pozo_exhausted}) "
            "or take from the olla"
        )
    hand = _take_from_hand(state, op.seat, [op.discard])
    top, pozo = state.pozo[0], state.pozo[1:]
    if top is not None:
        if op.drawn is not None and op.drawn != top:
            raise _refused("pozo_top", f"the pozo's top card is {top}, not {op.drawn}")
        hand = _add_known(hand, top)
    elif op.drawn is not None:
        if op.drawn not in state.unseen or op.drawn == op.discard:
            raise _refused("card_place", f"{op.drawn} cannot come from the pozo: {_place_text(state, op.drawn)}")
        hand = _add_known(hand, op.drawn)
    else:
        hand = Hand(hand.known, hand.hidden + 1)
    return replace(
        state,
        hands=_with_hand(state, op.seat, hand),
        pozo=pozo,
        olla=state.olla + (op.discard,),
        exchanged=True,
        exchanges=state.exchanges + 1,
    )


def _take_from_olla(state: TriviumState, op: TakeFromOlla) -> TriviumState:
    _check_exchange_turn(state, op.seat)
    state = _begin_turn(state, op.seat)
    if not state.olla:
        raise _refused("olla_empty", "the olla is empty: draw from the pozo")
    top = state.olla[-1]
    if op.taken is not None and op.taken != top:
        raise _refused("olla_top", f"the olla's top card is {top}, not {op.taken}: only the top card can be taken")
    if op.discard == top:
        raise _refused("olla_exchange", f"{_name(state, op.seat)} must give a card of their own for {top}")
    hand = _add_known(_take_from_hand(state, op.seat, [op.discard]), top)
    return replace(
        state,
        hands=_with_hand(state, op.seat, hand),
        olla=state.olla[:-1] + (op.discard,),
        exchanged=True,
        exchanges=state.exchanges + 1,
    )


def _pozo_empty(state: TriviumState, op: PozoEmpty) -> TriviumState:
    _check_exchange_turn(state, op.seat)
    if state.pozo:
        raise _refused("pozo_not_empty", f"the pozo still has {len(state.pozo)} card(s)")
    state = _begin_turn(state, op.seat)
    if state.options.pozo_exhausted == "draw":
        if op.new_pozo is not None:
            raise _refused("pozo_exhausted", "with pozo_exhausted=draw the game ends: there is no new pozo")
        event = Announcement("no_winner", None, None, "the pozo is empty: the game ends with no winner")
        return replace(state, phase="finished", announcements=_announce(state, event))
    under = state.olla[:-1]
    if not under:
        raise _refused("pozo_exhausted", "the olla has no card under its top to reshuffle: take from the olla")
    if op.new_pozo is None:
        pozo: tuple[str | None, ...] = (None,) * len(under)
    else:
        if len(op.new_pozo) != len(set(op.new_pozo)) or set(op.new_pozo) != set(under):
            raise _refused("pozo_exhausted", 
                f"the new pozo must be the {len(under)} cards of the olla under its top card, each once"
            )
        pozo = tuple(op.new_pozo)
    event = Announcement(
        "reshuffle", op.seat, _name(state, op.seat),
        f"the pozo is empty: the olla's {len(under)} cards under its top are shuffled into a new pozo",
    )
    return replace(state, pozo=pozo, olla=state.olla[-1:], announcements=_announce(state, event))


# --------------------------------------------------------------------------- laying, stealing


def _win(state: TriviumState, seat: int, verdict: Verdict, cards, *events: Announcement) -> TriviumState:
    text = f"{_name(state, seat)}: {DISPLAY[verdict.combination]}, {verdict.points}"
    win = Announcement("win", seat, _name(state, seat), text, verdict.combination, verdict.points, tuple(cards))
    return replace(state, phase="finished", winner=seat, result=verdict, announcements=_announce(state, *events, win))


def _trivium_if_complete(state: TriviumState, seat: int) -> TriviumState:
    valid = [g for g in state.laid[seat] if g.valid]
    if len(valid) < 3:
        return state
    groups = tuple(g.cards for g in valid)
    reason = "three tercias laid: " + "; ".join(
        "XXI + Loco (the pair)" if g.is_pair else g.reason.split(" (El Loco")[0] for g in valid
    )
    verdict = Verdict(TRIVIUM, POINTS[TRIVIUM], groups, reason)
    return _win(state, seat, verdict, [c for g in groups for c in g])


def _lay_tercia(state: TriviumState, op: LayTercia) -> TriviumState:
    _check_action_turn(state, op.seat, "lay down a tercia")
    if not op.cards:
        raise _refused("group", "an empty group is not laid down")
    if len(set(op.cards)) != len(op.cards):
        raise _refused("group", "a card is given twice in the group")
    hand = _take_from_hand(state, op.seat, op.cards)
    verdict = check_tercia(op.cards, allow_pair=True)
    group = LaidGroup(op.cards, verdict.is_combination, verdict.reason)
    laid = _with_laid(state, op.seat, state.laid[op.seat] + (group,))
    name = _name(state, op.seat)
    if group.valid:
        count = sum(1 for g in laid[op.seat] if g.valid)
        event = Announcement("tercia", op.seat, name, f"{name}: tercia {count} of 3, {verdict.reason}",
                             TERCIA, 0, op.cards)
    else:
        event = Announcement("not_tercia", op.seat, name, f"{name}: not a tercia: {verdict.reason}", cards=op.cards)
    state = replace(state, hands=_with_hand(state, op.seat, hand), laid=laid, announcements=_announce(state, event))
    return _trivium_if_complete(state, op.seat)


def _withdraw(state: TriviumState, op: Withdraw) -> TriviumState:
    _check_action_turn(state, op.seat, "take back a group")
    groups = state.laid[op.seat]
    if not 0 <= op.group < len(groups):
        raise _refused("group", f"{_name(state, op.seat)} has no laid group {op.group}")
    group = groups[op.group]
    if group.valid:
        raise _refused("withdraw_tercia", "a valid tercia stays on the table: laid tercias are not taken back")
    hand = state.hands[op.seat]
    hand = Hand(sort_codes(hand.known + group.cards), hand.hidden)
    laid = _with_laid(state, op.seat, groups[: op.group] + groups[op.group + 1:])
    name = _name(state, op.seat)
    event = Announcement("withdraw", op.seat, name, f"{name} takes back {' '.join(group.cards)}", cards=group.cards)
    return replace(state, hands=_with_hand(state, op.seat, hand), laid=laid, announcements=_announce(state, event))


def _steal(state: TriviumState, op: Steal) -> TriviumState:
    _check_action_turn(state, op.seat, "steal")
    _check_seat(state, op.victim)
    thief_name = _name(state, op.seat)
    if op.seat == state.robbed:
        raise _refused("robbed", f"{thief_name} was robbed: a robbed player can never steal")
    if state.steal_spent:
        raise _refused("steal_spent", 
            f"El Loco has already stolen in this game ({_name(state, state.thief)} robbed "
            f"{_name(state, state.robbed)}): no one can steal again"
        )
    if op.victim == op.seat:
        raise _refused("steal_self", "a player cannot rob themselves")
    victim_groups = state.laid[op.victim]
    if not 0 <= op.group < len(victim_groups):
        raise _refused("group", f"{_name(state, op.victim)} has no laid group {op.group}")
    group = victim_groups[op.group]
    if not group.valid:
        raise _refused("steal_tercia", f"only a tercia can be stolen: {group.reason}")
    thief_hand = _take_from_hand(state, op.seat, [LOCO])
    victim_hand = _add_known(state.hands[op.victim], LOCO)
    hands = tuple(
        thief_hand if s == op.seat else victim_hand if s == op.victim else h for s, h in enumerate(state.hands)
    )
    stolen = LaidGroup(group.cards, True, group.reason, stolen_from=op.victim)
    laid = list(state.laid)
    laid[op.victim] = victim_groups[: op.group] + victim_groups[op.group + 1:]
    laid[op.seat] = laid[op.seat] + (stolen,)
    victim_name = _name(state, op.victim)
    event = Announcement(
        "steal", op.seat, thief_name,
        f"{thief_name} steals {' '.join(group.cards)} from {victim_name} with El Loco",
        cards=group.cards,
    )
    state = replace(
        state, hands=hands, laid=tuple(laid), thief=op.seat, robbed=op.victim,
        announcements=_announce(state, event),
    )
    return _trivium_if_complete(state, op.seat)


def _declare(state: TriviumState, op: Declare) -> TriviumState:
    _check_action_turn(state, op.seat, "declare")
    if len(set(op.cards)) != len(op.cards):
        raise _refused("declaration", "a card is given twice in the declaration")
    valid_laid = {c for g in state.laid[op.seat] if g.valid for c in g.cards}
    from_laid = [c for c in op.cards if c in valid_laid]
    hand = _take_from_hand(state, op.seat, [c for c in op.cards if c not in valid_laid])
    verdict = classify(op.cards, state.options)
    if verdict.combination == TRIVIUM:
        raise _refused("declaration", "a Trivium is not declared: it is won by laying down its third tercia")
    if verdict.combination == TERCIA:
        raise _refused("declaration", "a lone tercia wins nothing: lay it down")
    if verdict.combination not in DECLARABLE:
        raise _refused("declaration", f"not a winning combination: {verdict.reason}")
    if from_laid and verdict.combination != GRAN_MAESTRE:
        raise _refused("gran_maestre", "only a Gran Maestre may use a laid-down tercia")
    used = [g for g in state.laid[op.seat] if g.valid and set(g.cards) & set(from_laid)]
    if len(used) > 1 or any(not set(g.cards) <= set(op.cards) for g in used):
        raise _refused("gran_maestre", "a Gran Maestre may use one whole laid-down tercia, not parts of several")
    shown = [c for c in op.cards if c not in valid_laid]
    # The shown cards go back to the hand, now known to the table.
    hand = Hand(sort_codes(hand.known + tuple(shown)), hand.hidden)
    state = replace(state, hands=_with_hand(state, op.seat, hand))
    return _win(state, op.seat, verdict, op.cards)


_HANDLERS = {
    Deal: _deal,
    DrawFromPozo: _draw_from_pozo,
    TakeFromOlla: _take_from_olla,
    PozoEmpty: _pozo_empty,
    LayTercia: _lay_tercia,
    Withdraw: _withdraw,
    Steal: _steal,
    Declare: _declare,
}

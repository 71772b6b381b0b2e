"""How many button presses a decision costs on the device's menus (the scripted player's count).

The demo's player enters its decisions directly, but a person at the table
presses buttons: :func:`presses_for` finds, on the real menu flows
(:mod:`device.app.flows`), the fewest presses that make a flow return the
decision: up/down to the option (a long press moves five, lists wrap
around), OK to choose it, step after step. A flow is rebuilt from its
factory and the presses so far for every trial, so the search never
disturbs it.
"""

from __future__ import annotations

from typing import Callable, Sequence

from device.app.flows import LONG_STEP, Flow

Decision = tuple


def move_presses(distance: int) -> int:
    """Presses to move ``distance`` places one way: long presses of five, then short ones,
    or one long press too many and short ones back."""
    longs, rest = divmod(distance, LONG_STEP)
    return longs + min(rest, 1 + LONG_STEP - rest) if rest else longs


def move_events(frm: int, to: int, n: int) -> list[tuple[str, str]]:
    """The button events that move a list's selection from ``frm`` to ``to`` (``n`` options)."""
    down, up = (to - frm) % n, (frm - to) % n
    button, distance = ("down", down) if move_presses(down) <= move_presses(up) else ("up", up)
    longs, rest = divmod(distance, LONG_STEP)
    events = [(button, "long")] * longs
    if rest and 1 + LONG_STEP - rest < rest:
        back = "up" if button == "down" else "down"
        events += [(button, "long")] + [(back, "press")] * (LONG_STEP - rest)
    else:
        events += [(button, "press")] * rest
    return events


def same_decision(got: Decision, wanted: Decision) -> bool:
    """Whether a flow's decision enters ``wanted`` (a card entered by hand is the menu's
    "correct a card"; the menus leave out what the camera or the player shows afterwards:
    the écart's cards, a poignée's trumps, a Trivium declaration's cards)."""
    if not got or not wanted:
        return False
    kinds = {"card": "correct_card"}
    if kinds.get(wanted[0], wanted[0]) != kinds.get(got[0], got[0]):
        return False
    if wanted[0] == "ecart":
        return True
    n = len(got) if wanted[0] in ("poignee", "declare") else max(len(got), len(wanted))
    norm = lambda d: tuple(tuple(x) if isinstance(x, list) else x for x in d[:n])  # noqa: E731
    return norm(got) == norm(wanted)


def presses_for(factory: Callable[[], Flow], wanted: Decision, depth: int = 4) -> int | None:
    """The fewest presses that make a fresh ``factory()`` flow return ``wanted``; None if it cannot."""
    found = events_for(factory, wanted, depth)
    return None if found is None else len(found)


def events_for(factory: Callable[[], Flow], wanted: Decision, depth: int = 4) -> list[tuple[str, str]] | None:
    """The button events, fewest first found, that make a fresh ``factory()`` flow return
    ``wanted``; None if it cannot."""
    return _search(factory, [], wanted, depth, None)


def _replay(factory: Callable[[], Flow], events: Sequence[tuple[str, str]]) -> tuple[Flow, list[Decision]]:
    flow = factory()
    out: list[Decision] = []
    for event in events:
        out = flow.handle(event)
    return flow, out


def _search(factory, events: list, wanted: Decision, depth: int, bound: int | None) -> list | None:
    flow, _ = _replay(factory, events)
    if flow.done or not flow.steps:
        return None
    step = flow.step
    n = len(step.options)
    levels = len(flow.steps)
    best: list | None = None
    order = sorted(range(n), key=lambda k: move_presses(min((k - step.selected) % n, (step.selected - k) % n)))
    for k in order:
        trial = events + move_events(step.selected, k, n) + [("ok", "press")]
        limit = bound if best is None else len(best)
        if limit is not None and len(trial) >= limit:
            continue
        after, decisions = _replay(factory, trial)
        if any(same_decision(d, wanted) for d in decisions):
            best = trial
            continue
        if depth > 1 and not after.done and after.steps and len(after.steps) > levels:
            deeper = _search(factory, trial, wanted, depth - 1, limit)
            if deeper is not None:
                best = deeper
    return best


def price(app, decision: Decision) -> int | None:
    """The presses ``decision`` costs at the table app now: on the question shown (a card to
    confirm), on the menu the game has open (the bidding), or on the menu OK opens."""
    from device.app.flows import ConfirmCardFlow

    controller = app.controller
    menus = app.session.rules.menus
    if decision[0] == "reject_card":
        return 1  # a long press of back leaves the question
    if decision[0] in ("confirm_card", "correct_card") and controller.pending:
        pending = controller.pending[0]

        def confirm() -> Flow:
            return ConfirmCardFlow(pending.best or "EX", pending.confidence, pending.alternatives[:3],
                                   lang=app.lang, style=app.style, others=pending.possible)

        return presses_for(confirm, decision)
    key = menus.wanted_key(app)
    if key is not None:
        found = presses_for(lambda: menus.make_flow(app, key), decision)
        if found is not None:
            return found
    menu = menus.ok_menu(app)
    if isinstance(menu, tuple):
        return 1 if same_decision(menu, decision) else None
    found = presses_for(lambda: menus.ok_menu(app), decision)
    return None if found is None else 1 + found  # OK opens the menu

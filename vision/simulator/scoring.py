"""How a tracker's table events compare with the simulator's expected events."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Sequence

from vision.simulator.truth import ExpectedEvent


@dataclass
class EventScore:
    """How a list of table events compares with the simulator's expected events."""

    right: int = 0
    wrong: int = 0  # a card event that named another card
    uncertain: int = 0  # an expected card reported as ``uncertain``: a person is asked
    missed: int = 0
    spurious: int = 0
    cleared_right: int = 0
    cleared_missed: int = 0
    in_order: bool = True
    latencies: list[int] = field(default_factory=list)  # frames from rest to the card event
    cleared_latencies: list[int] = field(default_factory=list)
    details: list[str] = field(default_factory=list)

    @property
    def expected_cards(self) -> int:
        return self.right + self.wrong + self.uncertain + self.missed


def _candidates(e: ExpectedEvent, events: Sequence, used: set[int], window: int) -> list[int]:
    kinds = ("appeared", "uncertain", "moved") if e.type in ("appeared", "moved") else (e.type,)
    return [
        i for i, a in enumerate(events)
        if i not in used and a.type in kinds and a.zone == e.zone and e.frame - 2 <= a.frame <= e.frame + window
    ]


def fold_renamed(events: Sequence) -> list:
    """The events with each ``renamed`` one folded into the latest earlier ``appeared`` or
    ``moved`` event of the card it renames (that event now names the card as renamed); a
    ``renamed`` event with no such event before it stays (and is scored as spurious)."""
    out: list = []
    for a in events:
        if a.type == "renamed":
            j = next((k for k in range(len(out) - 1, -1, -1)
                      if out[k].type in ("appeared", "moved") and out[k].card == a.was), None)
            if j is not None:
                out[j] = dataclasses.replace(out[j], card=a.card)
                continue
        out.append(a)
    return out


def score_events(expected: Sequence[ExpectedEvent], events: Sequence, window: int = 60) -> EventScore:
    """Match events to expected ones: same kind and zone, from 2 frames before the
    expected frame to ``window`` frames after it. Events naming the expected card
    are matched first; an expected card left over takes the earliest remaining
    event (an ``uncertain`` or a wrong one), or is missed. A card ``renamed`` counts as
    first reported under its new name (:func:`fold_renamed`)."""
    events = fold_renamed(events)
    score = EventScore()
    used: set[int] = set()
    matches: dict[int, int] = {}
    for k, e in enumerate(expected):
        if e.card is not None:
            same = [i for i in _candidates(e, events, used, window) if events[i].card == e.card and events[i].type != "uncertain"]
            if same:
                matches[k] = same[0]
                used.add(same[0])
    for k, e in enumerate(expected):
        if k not in matches:
            rest = _candidates(e, events, used, window)
            if rest:
                matches[k] = rest[0]
                used.add(rest[0])
    order: list[int] = []
    for k, e in enumerate(expected):
        match = matches.get(k)
        if match is None:
            if e.type == "cleared":
                score.cleared_missed += 1
            else:
                score.missed += 1
            score.details.append(f"missed {e.type} {e.card or ''} in {e.zone} (rest at frame {e.frame})")
            continue
        a = events[match]
        if e.type == "cleared":
            score.cleared_right += 1
            score.cleared_latencies.append(a.frame - e.frame)
            continue
        order.append(match)
        if a.type == "uncertain":
            score.uncertain += 1
            score.details.append(f"uncertain for {e.card} at frame {a.frame}")
        elif a.card == e.card and a.type == e.type:
            score.right += 1
            score.latencies.append(a.frame - e.frame)
        else:
            score.wrong += 1
            score.details.append(f"wrong: {a.type} {a.card} for {e.type} {e.card} at frame {a.frame}")
    score.in_order = order == sorted(order)
    for i, a in enumerate(events):
        if i not in used:
            score.spurious += 1
            score.details.append(f"spurious {a.type} {a.card or ''} in {a.zone} at frame {a.frame}")
    return score

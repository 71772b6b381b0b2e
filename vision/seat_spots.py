"""Where each seat lays its trick cards, learned at the table from the order of play.

Players lay a trick's card in front of themselves, and the zones say roughly where
each seat is (:meth:`vision.zones.Zones.seat_toward`: the seat zone whose direction
from the middle's centre is nearest the card's). But a trick's cards land within a
third of a card's length of the pile's centre, so a few pixels of the camera's tilt,
of the middle zone drawn off the pile's real centre, or of a player's habit turn
that direction by tens of degrees: at the hard simulated table's five-player deals,
20 % of the trick cards lay on nobody's side by the zones, 23 of 658 on another
seat's than the one that laid them (docs/tracking.md).

Yet the order of play proves whose each card of a trick is. So the table keeps,
for each seat, the centres of the last few cards it laid (``kept``), and takes a new
card as the seat whose cards' median spot lies nearest, when that spot is nearer
than the next seat's by ``margin_share`` of the distance between the two spots;
else on nobody's side. Until every seat has laid a card, :meth:`SeatSpots.side`
knows nothing (``UNKNOWN``) and the zones' directions stand in.

Pure geometry: seats are whatever integers the caller uses, pixels are the
camera's frame. Nothing here knows the rules, only whose card a spot was.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

SPOTS_KEPT = 8  # cards remembered per seat: the last tricks' (a moved camera is relearned within them)
SPOT_MARGIN_SHARE = 0.3  # how much nearer the best seat's spot than the next one's, as a share of their distance
UNKNOWN = -1  # side(): some seat has laid no card yet, the spots cannot tell


def card_centre(corners: Sequence[Sequence[float]]) -> np.ndarray:
    """The centre (x, y) of a card's four corners."""
    quad = np.asarray(corners, np.float64).reshape(4, 2)
    return quad.mean(0)


@dataclass
class SeatSpots:
    """The spots where each of ``seats`` seats laid its last trick cards."""

    seats: int
    kept: int = SPOTS_KEPT
    margin_share: float = SPOT_MARGIN_SHARE
    _centres: dict[int, deque] = field(default_factory=dict, repr=False)

    def learn(self, seat: int, corners: Sequence[Sequence[float]]) -> None:
        """A card ``seat`` laid (proven by the order of play), seen at ``corners``."""
        centre = card_centre(corners)
        if not np.all(np.isfinite(centre)):
            return
        self._centres.setdefault(seat, deque(maxlen=self.kept)).append(centre)

    def forget(self) -> None:
        """Forget every spot (the camera or the seating changed)."""
        self._centres.clear()

    def spots(self) -> dict[int, np.ndarray]:
        """Each seat's spot: the median of the centres of the cards it laid."""
        return {seat: np.median(np.array(c), axis=0) for seat, c in self._centres.items() if c}

    def cards(self, seat: int) -> int:
        """How many of ``seat``'s cards the spots hold."""
        return len(self._centres.get(seat, ()))

    def side(self, corners: Sequence[Sequence[float]]) -> int | None:
        """The seat on whose side a card at ``corners`` lies; ``None``: between two seats'
        spots; ``UNKNOWN``: some seat has laid no card yet."""
        spots = self.spots()
        if len(spots) < self.seats or self.seats < 2:
            return UNKNOWN
        x = card_centre(corners)
        ranked = sorted((float(np.linalg.norm(x - spot)), seat) for seat, spot in spots.items())
        (near, seat), (next_, other) = ranked[0], ranked[1]
        apart = float(np.linalg.norm(spots[seat] - spots[other]))
        return seat if next_ > near and next_ - near >= self.margin_share * apart else None

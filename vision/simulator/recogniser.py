"""A stand-in for card recognition that reads the simulator's ground truth."""

from __future__ import annotations

from typing import Iterator, Mapping, NamedTuple, Sequence

import numpy as np

from engine.cards import CODES
from vision.simulator.table import TableSimulator
from vision.simulator.truth import SimFrame


class TruthNaming(NamedTuple):
    card: str | None
    confidence: float
    embedding: object = None


class GroundTruthRecogniser:
    """A stand-in for card recognition that reads the simulator's ground truth.

    It lets the tracker's logic be tested and measured apart from the
    recogniser: ``localise`` reports the cards of the frame being rendered
    that a contour-based localiser could see (at least ``min_visible`` of the
    card and three corners uncovered), with ``jitter`` pixels of noise;
    ``crop`` identifies the card under a quad; ``name`` returns it with
    ``confidence`` (or ``low_confidence`` for the codes in ``doubtful``);
    ``confusions`` maps a code to ``(other code, confidence)``: the card the
    recogniser mistakes it for, as a real namer mistakes look-alikes.
    """

    def __init__(self, simulator: TableSimulator, *, confidence: float = 0.97, min_visible: float = 0.6,
                 jitter: float = 0.4, doubtful: Sequence[str] = (), low_confidence: float = 0.35, seed: int = 0,
                 confusions: Mapping[str, tuple[str, float]] | None = None):
        self.simulator = simulator
        self.confidence = confidence
        self.min_visible = min_visible
        self.jitter = jitter
        self.doubtful = set(doubtful)
        self.low_confidence = low_confidence
        self.confusions = dict(confusions or {})
        self.labels = [*CODES, "unknown"]  # what it can answer: a card, or "not a card face"
        self.current: SimFrame | None = None
        self.crops_named = 0
        self._rng = np.random.default_rng(seed)

    def frames(self) -> Iterator[SimFrame]:
        """The simulator's frames, remembered so that the other calls can read their truth."""
        for frame in self.simulator.frames():
            self.current = frame
            yield frame

    def localise(self, image: np.ndarray) -> list[np.ndarray]:
        if self.current is None:
            return []
        quads = []
        for t in self.current.cards:
            if t.visible >= self.min_visible and t.corners_visible >= 3:
                q = t.corners + self._rng.normal(0, self.jitter, (4, 2)).astype(np.float32)
                quads.append(q.astype(np.float32))
        return quads

    def crop(self, image: np.ndarray, quad: np.ndarray) -> str | None:
        if self.current is None:
            return None
        centre = np.asarray(quad).mean(0)
        best, dist = None, 1e9
        for t in self.current.cards:
            d = float(np.hypot(*(t.corners.mean(0) - centre)))
            if d < dist:
                best, dist = t.code, d
        return best if dist < self.simulator.layout.card_w * 0.3 else None

    def name(self, crops: Sequence[str | None]) -> list[TruthNaming]:
        self.crops_named += len(crops)
        out = []
        for code in crops:
            if code is None:
                out.append(TruthNaming(None, 0.9))
            elif code in self.confusions:
                other, confidence = self.confusions[code]
                out.append(TruthNaming(other, confidence))
            elif code in self.doubtful:
                out.append(TruthNaming(code, self.low_confidence))
            else:
                out.append(TruthNaming(code, self.confidence))
        return out

"""Frame -> named cards: localise, straighten, name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from vision.localise import find_cards
from vision.still_views import name_still
from vision.warp import warp_card


@dataclass(frozen=True)
class Detection:
    """A card found in a frame: code (None if not named), confidence, corners (float32 (4, 2))."""

    card: str | None
    confidence: float
    corners: np.ndarray


def recognise(
    frame: np.ndarray,
    namer,
    localiser: Callable[[np.ndarray], list[np.ndarray]] = find_cards,
    keep_unknown: bool = False,
    nudged: bool = False,
) -> list[Detection]:
    """The cards in a BGR frame. Quads the namer rejects (backs, hands, ...) are dropped
    unless ``keep_unknown`` (then they come back with ``card=None``). ``nudged``: each quad
    is named from several outlines nudged around it (:func:`vision.still_views.name_still`,
    for a still image)."""
    quads = localiser(frame)
    if not quads:
        return []
    if nudged:
        namings = name_still(frame, quads, namer)
    else:
        size = getattr(namer, "input_size", None)
        namings = namer.name([warp_card(frame, q, size) if size else warp_card(frame, q) for q in quads])
    out = []
    for quad, naming in zip(quads, namings):
        if naming.card is not None or keep_unknown:
            out.append(Detection(naming.card, naming.confidence, np.asarray(quad, np.float32)))
    return out

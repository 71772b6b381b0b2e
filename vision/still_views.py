"""A card in a still image named from several outlines nudged around the one found.

A still image has no second look, and the card finder's corners are off by a
few per cent of a card: a crop cut a little differently can change the card
model's answer, most for the cards it is least sure of (a phone photo, a deck
it was not trained on, a screen). :func:`name_still` names each quad from
:data:`NUDGES` — the quad itself, shrunk and grown about its centre, and moved
along its own sides — and averages the card model's probabilities over them.
A card the model is sure of stays sure; a crop it reads one way here and
another way there ends less sure, as it should. ``tarotmate classify`` names
with it; its still-image bar (``still_threshold``) is chosen on the averaged
probabilities (``benchmarks/bench_unknown.py``, docs/recognition.md).

The tracker does not: it has many frames of a card at rest and fuses their
views itself (:mod:`vision.votes`), within the camera loop's time budget.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from vision import card_geometry
from vision.namer import Naming
from vision.votes import SpreadViews
from vision.warp import warp_card

# (scale about the centre, shift along the short side, shift along the long side), as shares of the card
NUDGES: tuple[tuple[float, float, float], ...] = (
    (1.0, 0.0, 0.0),
    (0.96, 0.0, 0.0),
    (1.04, 0.0, 0.0),
    (1.0, 0.02, 0.02),
    (1.0, -0.02, -0.02),
)


def name_still(image: np.ndarray, quads: Sequence, namer, nudges: Sequence[tuple[float, float, float]] = NUDGES) -> list[Naming]:
    """One Naming per quad of a still BGR image: the card model's probabilities averaged over
    the crops of the quad's ``nudges``, judged at the namer's threshold. A namer that cannot give
    probabilities (an enrolled deck's prototypes) names each quad's own crop."""
    if not quads:
        return []
    if not (hasattr(namer, "run") and hasattr(namer, "namings")):
        return list(namer.name([_crop(image, q, namer) for q in quads]))
    mean, first = still_probabilities(image, quads, namer, nudges)
    return namer.namings(mean, first if first is not None else np.zeros((len(quads), 0), np.float32))


def still_probabilities(image: np.ndarray, quads: Sequence, namer,
                        nudges: Sequence[tuple[float, float, float]] = NUDGES) -> tuple[np.ndarray, np.ndarray | None]:
    """(the card model's probabilities per quad, averaged over its ``nudges``' crops; the
    embedding of each quad's first crop) for a namer with ``run`` (labels order)."""
    crops = [_crop(image, v, namer) for q in quads for v in nudged_quads(q, nudges)]
    return SpreadViews(namer, len(nudges)).run(crops)


def _crop(image: np.ndarray, quad, namer) -> np.ndarray:
    size = getattr(namer, "input_size", None)
    return warp_card(image, quad, size) if size else warp_card(image, quad)


def nudged_quads(quad, nudges: Sequence[tuple[float, float, float]] = NUDGES) -> list[np.ndarray]:
    """``quad`` moved by each of ``nudges`` (:func:`vision.card_geometry.nudged_quads`; default :data:`NUDGES`)."""
    return card_geometry.nudged_quads(quad, nudges)

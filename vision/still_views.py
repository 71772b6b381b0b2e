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

from vision.namer import Naming
from vision.warp import warp_card

# (scale about the centre, shift along the short side, shift along the long side), as shares of the card
NUDGES: tuple[tuple[float, float, float], ...] = (
    (1.0, 0.0, 0.0),
    (0.96, 0.0, 0.0),
    (1.04, 0.0, 0.0),
    (1.0, 0.02, 0.02),
    (1.0, -0.02, -0.02),
)


def nudged_quads(quad, nudges: Sequence[tuple[float, float, float]] = NUDGES) -> list[np.ndarray]:
    """``quad`` (4 corners, clockwise from the upper short edge) moved by each of ``nudges``."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    centre = q.mean(0)
    across = (q[1] - q[0] + q[2] - q[3]) / 2  # the short side, corner 0 -> 1
    along = (q[3] - q[0] + q[2] - q[1]) / 2  # the long side, corner 0 -> 3
    return [(centre + (q - centre) * scale + a * across + b * along).astype(np.float32) for scale, a, b in nudges]


def name_still(image: np.ndarray, quads: Sequence, namer, nudges: Sequence[tuple[float, float, float]] = NUDGES) -> list[Naming]:
    """One Naming per quad of a still BGR image: the card model's probabilities averaged over
    the crops of the quad's ``nudges``, judged at the namer's threshold. A namer that cannot give
    probabilities (an enrolled deck's prototypes) names each quad's own crop."""
    size = getattr(namer, "input_size", None)

    def crop(q):
        return warp_card(image, q, size) if size else warp_card(image, q)

    if not quads:
        return []
    if not (hasattr(namer, "run") and hasattr(namer, "namings")):
        return list(namer.name([crop(q) for q in quads]))
    crops = [crop(v) for q in quads for v in nudged_quads(q, nudges)]
    probs, emb = namer.run(crops)
    k = len(nudges)
    mean = probs.reshape(len(quads), k, -1).mean(1)
    first = emb.reshape(len(quads), k, -1)[:, 0] if emb.size else np.zeros((len(quads), 0), np.float32)
    return namer.namings(mean, first)

"""Fixtures of the enrollment tests: a small, fast stand-in for the recognition model."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import CODES
from vision.builtin_deck import render_card
from vision.enroll import Augment, enroll_faces, normalise

# Enrollment views for the pixel embedder below: it is not invariant to
# shifts, so views stray less than with the real model.
MILD = Augment(jitter=0.01, effects=0.15, colour=0.1)


class PixelEmbedder:
    """Embeds a crop as its high-passed 22x40 colour thumbnail.

    A deterministic, model-free embedding: it tells the 78 built-in cards
    apart on clean or mildly disturbed crops, which is all the prototype
    mechanics need. It has no notion of a card, so it is no measure of the
    recognition model.
    """

    model_id = "pixel-22x40"
    crop_size = (88, 160)

    def embed(self, crops) -> np.ndarray:
        rows = []
        for crop in crops:
            thumb = cv2.resize(crop, (22, 40), interpolation=cv2.INTER_AREA).astype(np.float32)
            colour = cv2.resize(thumb, (6, 10), interpolation=cv2.INTER_AREA)
            colour -= colour.mean()
            rows.append(np.concatenate([(thumb - cv2.GaussianBlur(thumb, (0, 0), 3)).ravel(), 4 * colour.ravel()]))
        return normalise(np.array(rows))


@pytest.fixture(scope="session")
def embedder() -> PixelEmbedder:
    return PixelEmbedder()


@pytest.fixture(scope="session")
def faces() -> dict[str, np.ndarray]:
    return {code: render_card(code) for code in CODES}


@pytest.fixture(scope="session")
def builtin_profile(embedder, faces):
    """The built-in deck enrolled with the pixel embedder from its two clean views per card.

    One prototype per orientation: a thumbnail and its half turn differ.

    (Averaging jittered views blurs pixel prototypes; the real model's
    embedding is what gains from them, see the benchmark.)
    """
    return enroll_faces("builtin-test", faces, embedder, views=2, strategy="orientation", augment=MILD)

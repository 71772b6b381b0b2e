"""Temperature scaling: probabilities made to mean what they say.

``scaled(probs, t)`` is ``softmax(log p / t)`` (t < 1 sharpens an
under-confident model, t > 1 softens an over-confident one);
``fit_temperature(probs, labels)`` is the temperature of least negative
log-likelihood on crops whose names are known. The card model stores its own
(``Namer.temperature``, fitted by ``benchmarks/bench_calibration.py``); the
table's deck memory fits one for its fused probabilities on its own proven
views (:meth:`vision.deck_memory.DeckMemory.temperature`).
"""

from __future__ import annotations

import numpy as np


def scaled(probs: np.ndarray, t: float) -> np.ndarray:
    """``softmax(log(probs) / t)``, row by row."""
    z = np.log(np.clip(np.asarray(probs, np.float64), 1e-12, 1.0)) / t
    z -= z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def fit_temperature(probs: np.ndarray, labels: np.ndarray, low: float = 0.3, high: float = 5.0) -> float:
    """The temperature of least negative log-likelihood on these crops (a grid, then a finer one)."""
    labels = np.asarray(labels, np.int64)
    rows = np.arange(len(labels))

    def nll(t):
        return -float(np.log(np.clip(scaled(probs, t)[rows, labels], 1e-12, 1)).mean())

    grid = np.exp(np.linspace(np.log(low), np.log(high), 41))
    best = min(grid, key=nll)
    fine = np.linspace(best * 0.9, best * 1.1, 21)
    return float(min(fine, key=nll))

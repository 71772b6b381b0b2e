"""Temperature scaling: probabilities made to mean what they say.

``scaled(probs, t)`` is ``softmax(log p / t)`` (t < 1 sharpens an
under-confident model, t > 1 softens an over-confident one);
``fit_temperature(probs, labels)`` is the temperature of least negative
log-likelihood on crops whose names are known; ``ece`` the expected calibration
error of confidences, ``reliability`` the diagram's bins. The card model stores its own
(``Namer.temperature``, fitted by ``benchmarks/bench_calibration.py``); the
table's deck memory fits one for its fused probabilities on its own proven
views (:meth:`vision.deck_memory.DeckMemory.temperature`).
"""

from __future__ import annotations

import numpy as np

BINS = 15  # confidence bins of the calibration error and the reliability diagram


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


def bin_of(conf: np.ndarray, bins: int = BINS) -> np.ndarray:
    """Each confidence's bin of ``bins`` equal ones over 0..1."""
    return np.clip(np.digitize(conf, np.linspace(0, 1, bins + 1)[1:-1]), 0, bins - 1)


def ece(conf: np.ndarray, right: np.ndarray, bins: int = BINS) -> float:
    """Expected calibration error: the crop-weighted mean gap between confidence and accuracy per bin."""
    if not len(conf):
        return float("nan")
    k = bin_of(conf, bins)
    total = 0.0
    for b in range(bins):
        m = k == b
        if m.any():
            total += m.sum() * abs(float(right[m].mean()) - float(conf[m].mean()))
    return total / len(conf)


def reliability(conf: np.ndarray, right: np.ndarray, bins: int = BINS) -> list[tuple[float, float, int]]:
    """(mean confidence, accuracy, crops) per non-empty bin."""
    k = bin_of(conf, bins)
    return [(float(conf[k == b].mean()), float(right[k == b].mean()), int((k == b).sum())) for b in range(bins) if (k == b).any()]

"""A correction of the card model's classifier fitted on the table's own proven views.

The card model names a crop by cosine: ``logits = scale · embedding · Ŵᵀ``
(:mod:`vision.training.model`). On a deck it was never trained on, two
look-alike cards (a six and a seven of one suit) can lie close to each
other's class vectors, and the deck memory's nearest kept view
(:func:`vision.deck_memory.fuse`) lifts the wrong one as often as the right
one when the crop is closest to the wrong card's views.

:func:`fit_head` learns, from the memory's views (their embeddings, the
model's probabilities of them, their proven names), a small change ``Δ`` of
the class vectors: ``z = log p + scale · embedding · Δᵀ``, the multinomial
logistic loss on the views plus ``l2 · ‖Δ‖²``: a convex problem on a few
hundred views of 128 numbers, solved by accelerated gradient descent (0.7–1.1 s
for 585 views on this machine). Where the views of two cards differ along some
direction of the embedding, ``Δ`` learns that direction; with no views, or a
large ``l2``, ``Δ`` is zero and the model's probabilities are returned unchanged.

Pure numpy; :func:`head_probs` applies a fitted head to new crops. Measured by
``benchmarks/bench_deck_memory.py`` against the memory's own fusion, it named
no more crops right at the tracker's bars (docs/enrollment.md), so the namer
does not use it.
"""

from __future__ import annotations

import numpy as np

SCALE = 16.0  # the card model's cosine scale (vision.training.model.CardNet.scale)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def _log(probs: np.ndarray) -> np.ndarray:
    return np.log(np.clip(np.asarray(probs, np.float64), 1e-12, None))


def fit_head(probs: np.ndarray, embeddings: np.ndarray, truth: np.ndarray, l2: float = 0.05,
             scale: float = SCALE, steps: int = 300) -> np.ndarray:
    """``Δ`` (classes × dimension) minimising the mean cross-entropy of
    ``log probs + scale · embeddings · Δᵀ`` against ``truth`` (class indices, in the
    columns' order of ``probs``) plus ``l2 · ‖Δ‖²``.

    ``probs``: (n, classes), the model's probabilities of each view; ``embeddings``:
    (n, dimension), L2-normalised. Nesterov-accelerated gradient descent with the step
    of the loss's smoothness bound, from zero."""
    if l2 <= 0:
        raise ValueError("l2 must be positive (the fit is then strictly convex and bounded)")
    logp = _log(probs)
    x = np.asarray(embeddings, np.float64)
    n, k = logp.shape
    d = x.shape[1] if x.ndim == 2 else 0
    delta = np.zeros((k, d))
    if n == 0:
        return delta.astype(np.float32)
    y = np.asarray(truth, np.int64)
    onehot = np.zeros((n, k))
    onehot[np.arange(n), y] = 1.0
    # the loss's gradient is Lipschitz with constant at most scale² · λmax(xᵀx) / (2n) + 2 · l2
    lam = float(np.linalg.eigvalsh(x.T @ x / n)[-1]) if d else 0.0
    step = 1.0 / (scale * scale * lam / 2 + 2 * l2)
    prev = delta.copy()
    for t in range(1, steps + 1):
        look = delta + (t - 2) / (t + 1) * (delta - prev) if t > 1 else delta
        p = _softmax(logp + scale * x @ look.T)
        grad = scale * (p - onehot).T @ x / n + 2 * l2 * look
        prev, delta = delta, look - step * grad
    return delta.astype(np.float32)


def head_probs(probs: np.ndarray, embeddings: np.ndarray, delta: np.ndarray, scale: float = SCALE) -> np.ndarray:
    """The model's probabilities corrected by a fitted head (same columns)."""
    logp = _log(probs)
    x = np.asarray(embeddings, np.float64).reshape(len(logp), -1)
    return _softmax(logp + scale * x @ np.asarray(delta, np.float64).T).astype(np.float32)


def out_of_fold_probs(probs: np.ndarray, embeddings: np.ndarray, truth: np.ndarray, l2: float = 0.05,
                      folds: int = 4, scale: float = SCALE) -> np.ndarray:
    """Each view's probabilities from a head fitted on the other folds' views (view ``i`` is in
    fold ``i % folds``): what the head would say of a view it has not learned, to calibrate it on."""
    probs = np.asarray(probs)
    x = np.asarray(embeddings)
    y = np.asarray(truth)
    out = np.array(probs, np.float32, copy=True)
    fold = np.arange(len(y)) % max(1, folds)
    for f in range(max(1, folds)):
        test = fold == f
        if not test.any() or test.all():
            continue
        delta = fit_head(probs[~test], x[~test], y[~test], l2, scale)
        out[test] = head_probs(probs[test], x[test], delta, scale)
    return out

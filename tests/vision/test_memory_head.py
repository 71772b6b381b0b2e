"""The head fitted on the table's proven views (vision.memory_head): it separates look-alikes the model confuses."""

import numpy as np
import pytest

from vision.memory_head import fit_head, head_probs


def lookalikes(rng, n, d=16, apart=0.25, noise=0.05):
    """Views of two cards (classes 0 and 1; class 2 stands for `unknown`) that share most of
    their embedding and differ along one direction; the model calls them all card 1 at 0.7."""
    u, v = np.eye(d)[0], np.eye(d)[1]
    y = rng.integers(0, 2, n)
    x = u + np.where(y[:, None] == 0, apart, -apart) * v + noise * rng.standard_normal((n, d))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    probs = np.tile([0.25, 0.7, 0.05], (n, 1))
    return probs, x.astype(np.float32), y


def cross_entropy(p, y):
    return float(-np.log(p[np.arange(len(y)), y]).mean())


def test_the_head_separates_cards_the_model_confuses():
    rng = np.random.default_rng(3)
    probs, x, y = lookalikes(rng, 16)  # about 8 views a card, as the memory keeps
    delta = fit_head(probs, x, y)
    tp, tx, ty = lookalikes(rng, 400)
    assert (tp.argmax(1) == ty).mean() < 0.6  # the model alone: every crop is card 1
    fixed = head_probs(tp, tx, delta)
    assert (fixed.argmax(1) == ty).mean() > 0.95
    assert np.allclose(fixed.sum(1), 1, atol=1e-5)


def test_the_fit_lowers_the_loss_on_its_views():
    rng = np.random.default_rng(4)
    probs, x, y = lookalikes(rng, 40)
    before = cross_entropy(probs, y)
    after = cross_entropy(head_probs(probs, x, fit_head(probs, x, y)), y)
    assert after < before - 0.2


def test_no_views_changes_nothing():
    delta = fit_head(np.zeros((0, 3)), np.zeros((0, 16)), np.zeros(0, int))
    assert delta.shape == (3, 16) and not delta.any()
    probs = np.array([[0.2, 0.7, 0.1], [0.5, 0.25, 0.25]])
    assert np.allclose(head_probs(probs, np.eye(16)[:2], delta), probs, atol=1e-6)


def test_a_stronger_pull_to_the_model_gives_a_smaller_change():
    rng = np.random.default_rng(5)
    probs, x, y = lookalikes(rng, 30)
    sizes = [np.linalg.norm(fit_head(probs, x, y, l2=l2)) for l2 in (0.01, 0.1, 1.0)]
    assert sizes[0] > sizes[1] > sizes[2] > 0


def test_the_pull_must_be_positive():
    with pytest.raises(ValueError):
        fit_head(np.ones((1, 2)) / 2, np.ones((1, 4)) / 2, np.zeros(1, int), l2=0)

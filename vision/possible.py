"""Possible cards: what whoever knows the game tells the tracker about the cards that can appear.

Vision knows no rules. The controller, which does, hands the tracker a
:class:`PossibleCards`: a weight for each card code that may appear on the
table now (a prior; a code left out cannot appear). The tracker rescores the
namer's probabilities with it (:meth:`PossibleCards.rescore`): each card's
probability is multiplied by its weight and the result renormalised, the
namer's "not a card face" class keeping weight 1. Votes, stillness and every
threshold then work on those scores, and the candidates of an ``uncertain``
event are possible cards only.

The rescoring also says how much of the namer's probability lay on possible
cards, whatever their weight (the *support*): a crop the namer sees as a card the rules exclude gets
a low support, and the tracker asks instead of naming a possible look-alike.
"""

from __future__ import annotations

import math
from typing import Iterable, Iterator, Mapping, Sequence

import numpy as np

UNKNOWN_LABEL = "unknown"


class PossibleCardsError(ValueError):
    """Weights that cannot be a prior (negative, not a number, no card at all)."""


class PossibleCards:
    """Card codes that may appear now, each with a weight > 0 (1 = as likely as any card).

    Weights are relative: they are scaled so that the largest is 1. A card with
    a small weight (say 0.05) is unlikely but still possible.
    """

    __slots__ = ("_weights",)

    def __init__(self, weights: Mapping[str, float]):
        clean: dict[str, float] = {}
        for code, w in weights.items():
            w = float(w)
            if math.isnan(w) or w < 0 or math.isinf(w):
                raise PossibleCardsError(f"possible card {code!r}: weight {w} is not a finite number >= 0")
            if w > 0:
                clean[str(code)] = w
        if not clean:
            raise PossibleCardsError("no possible card: at least one card needs a weight > 0")
        top = max(clean.values())
        self._weights = {code: w / top for code, w in clean.items()}

    @classmethod
    def of(cls, codes: Iterable[str], weight: float = 1.0) -> "PossibleCards":
        """These codes, all equally likely."""
        return cls({code: weight for code in codes})

    # ------------------------------------------------------------------ reading

    def weight(self, code: str | None) -> float:
        """The card's weight (0 for an impossible card)."""
        return self._weights.get(code, 0.0) if code is not None else 0.0

    def __contains__(self, code: object) -> bool:
        return code in self._weights

    def __iter__(self) -> Iterator[str]:
        return iter(self._weights)

    def __len__(self) -> int:
        return len(self._weights)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PossibleCards) and self._weights == other._weights

    def __repr__(self) -> str:
        return f"PossibleCards({len(self._weights)} cards)"

    @property
    def weights(self) -> dict[str, float]:
        """A copy of the weights, the largest being 1."""
        return dict(self._weights)

    def best_first(self, scores: Mapping[str, float] | None = None) -> list[str]:
        """The possible codes, highest ``scores`` (default: weights) first, ties in the given order."""
        key = scores if scores is not None else self._weights
        return sorted(self._weights, key=lambda c: -key.get(c, 0.0))

    # ------------------------------------------------------------------ changing

    def with_cards(self, codes: Iterable[str]) -> "PossibleCards":
        """These also possible, at full weight (e.g. the cards lying on the table, which
        may be seen again when they are moved)."""
        extra = [c for c in codes if c is not None and self._weights.get(c) != 1.0]
        if not extra:
            return self
        merged = dict(self._weights)
        merged.update({c: 1.0 for c in extra})
        return PossibleCards(merged)

    # ------------------------------------------------------------------ rescoring

    def label_weights(self, labels: Sequence[str | None]) -> np.ndarray:
        """One weight per namer label: the card's weight, 1 for "not a card face"."""
        return np.array([1.0 if lab in (None, UNKNOWN_LABEL) else self.weight(lab) for lab in labels], np.float64)

    def rescore(self, labels: Sequence[str | None], probs: np.ndarray) -> tuple[np.ndarray, float]:
        """(rescored probabilities, support) for the namer's ``probs`` over ``labels``.

        Rescored: ``probs * weight``, renormalised to sum to 1. Support: the namer's
        probability on possible cards (any weight) and on "not a card face": 1 when
        every card is possible, near 0 when the namer saw a card the rules exclude.
        """
        p = np.asarray(probs, np.float64)
        w = self.label_weights(labels)
        weighted = p * w
        total = float(weighted.sum())
        if total <= 0:
            return np.zeros_like(p), 0.0
        return weighted / total, float(p[w > 0].sum())


def spread_naming(labels: Sequence[str | None], card: str | None, confidence: float) -> np.ndarray:
    """Probabilities over ``labels`` for a namer that gives only its best answer: ``confidence``
    on ``card`` (``None``: "not a card face", labelled ``None`` or ``"unknown"``), the rest spread
    evenly over the other labels."""
    n = len(labels)
    index = {(None if lab == UNKNOWN_LABEL else lab): k for k, lab in enumerate(labels)}
    k = index.get(card)
    conf = min(1.0, max(0.0, float(confidence)))
    if k is None or n < 2:
        return np.full(n, 1.0 / max(1, n))
    p = np.full(n, (1.0 - conf) / (n - 1))
    p[k] = conf
    return p

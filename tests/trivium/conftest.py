"""Helpers for the Trivium tests: known deals written by hand."""

import pytest

from engine.cards import CODES
from engine.trivium.operations import Deal


def make_deal(hands, pozo_top=(), dealer=0, starter=None) -> Deal:
    """A known deal: ``hands`` as strings of codes, the pozo starting with ``pozo_top``.

    The rest of the pozo is the remaining cards in deck order.
    """
    hands = tuple(tuple(h.split()) if isinstance(h, str) else tuple(h) for h in hands)
    top = tuple(pozo_top.split()) if isinstance(pozo_top, str) else tuple(pozo_top)
    used = {c for h in hands for c in h} | set(top)
    rest = tuple(c for c in CODES if c not in used)
    return Deal(dealer, hands, top + rest, starter)


@pytest.fixture
def deal():
    return make_deal

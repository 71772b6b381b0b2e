"""Naming a card by votes: one :class:`Vote` per still view, a verdict over the views.

The tracker names a card that has come to rest on each following frame; each
naming is a vote (the namer's top cards, rescored with the cards the game
still allows). :func:`verdict` reads the votes: a card when they agree with
enough confidence and margin, ``uncertain`` when they split or stay weak
(never a silent guess), ``none`` when most views are not a card face, or
``wait`` for more views. Pure functions of the votes and the settings; the
tracker decides what a verdict does to the table.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

import cv2
import numpy as np

from vision.card_geometry import nudged_quads
from vision.possible import UNKNOWN_LABEL, PossibleCards, spread_naming
from vision.tracker_settings import TrackerSettings

CARD, UNCERTAIN_VERDICT, NONE, WAIT = "card", "uncertain", "none", "wait"
MODEL_TOP = 5  # the card model's own best cards kept with a vote (Vote.model_top)
# model_suit_margin: the card model's own mean probability of a card and its colour twin together, from
# which it is weighed (the model sees one of the two, and cannot tell which)
TWIN_MASS = 0.5


@dataclass
class Vote:
    """One view's naming: the accepted card (or None), its score and the rescored top cards."""

    card: str | None
    confidence: float
    top: list[tuple[str | None, float]]
    conflict: bool = False  # the namer saw a card that cannot appear (support under min_support)
    unknown: float = 0.0  # the (rescored) probability that the crop is not a card face
    embedding: Any = None  # the card model's embedding of the crop, when the namer gives one
    probs: Any = None  # the namer's own probabilities of the crop (its labels' order), before the rules rescored them
    look: Any = None  # the crop's look (:func:`look_of`), when the crop is an image
    red: float | None = None  # how red the crop's ink is (:func:`red_ink`), when the tracker measures it
    # the card model's own best cards, before the table's deck memory weighed its probabilities (rescored
    # with the rules as ``top`` is), when the namer weighs them with a memory (None otherwise)
    model_top: list[tuple[str | None, float]] | None = None
    # named by the table's deck memory alone, the card model's probabilities of the cards set aside
    # (vision.deck_memory.MemoryAlone: on a deck the card model cannot read)
    alone: bool = False

    @property
    def not_a_card(self) -> bool:
        """The namer's best guess is "not a card face", or no card stands out and the
        "not a card" class is at least as likely as the best card."""
        card, p = self.top[0]
        return card is None or (p < 0.2 and self.unknown >= p)


def namer_votes(namer: Any, crops: Sequence[Any], possible: PossibleCards | None, min_support: float) -> list[Vote]:
    """One vote per crop. A namer with ``run`` (or ``probabilities``) and ``labels`` gives all its
    probabilities; one with only ``name`` gives its best answer (the rest of its probability spread evenly when the
    possible cards must rescore it). ``possible``: the cards that can appear (``None``: any)."""
    run, labels = getattr(namer, "run", None), getattr(namer, "labels", None)
    threshold = float(getattr(namer, "threshold", 0.5))
    embeddings = None
    alone = False  # named by a deck memory alone (vision.deck_memory.MemoryAlone)
    model = None  # the card model's own probabilities, when the namer weighs them with something else (None: its own)
    both = getattr(namer, "run_with_model", None)
    own_probs = getattr(namer, "probabilities", None)  # an enrolled deck's prototypes (vision.enroll.PrototypeNamer)
    if (callable(both) or callable(run) or callable(own_probs)) and labels:
        if callable(both):
            probs, embeddings, model = both(crops)
        else:
            probs, embeddings = run(crops) if callable(run) else own_probs(crops)
        alone = getattr(namer, "names_alone", False) is True
        labels = [None if lab == UNKNOWN_LABEL else lab for lab in labels]
    elif possible is None:
        return [Vote(n.card, float(n.confidence), [(n.card, float(n.confidence))], False,
                     float(n.confidence) if n.card is None else 0.0) for n in namer.name(crops)]
    else:
        namings = list(namer.name(crops))
        if labels:
            labels = [None if lab == UNKNOWN_LABEL else lab for lab in labels]
        else:
            labels = list(dict.fromkeys([*possible, *(n.card for n in namings if n.card is not None)])) + [None]
        probs = [spread_naming(labels, n.card, n.confidence) for n in namings]
    out = []
    own = probs if embeddings is not None else None  # a namer's own probabilities (not spread from its best answer)
    for k, p in enumerate(probs):
        raw = None if own is None else np.asarray(own[k], np.float32)
        support = 1.0
        if possible is not None:
            p, support = possible.rescore(labels, p)
        order = [k for k in np.argsort(p)[::-1][:3] if p[k] > 0] or [int(np.argmax(p))]
        top = [(labels[k], float(p[k])) for k in order]
        card, conf = top[0]
        conflict = support < min_support
        unknown = float(p[labels.index(None)]) if None in labels else 0.0
        emb = embeddings[k] if embeddings is not None and len(embeddings) > k else None
        vote = Vote(card if conf >= threshold and not conflict else None, conf, top, conflict, unknown, emb, raw,
                    alone=alone)
        if model is not None:  # the card model's own namings, with the rules (a twin already played is no rival)
            own_p = p  # the memory not weighing yet: the model's own are the namer's, rescored above
            if model is not probs:
                own_p = np.asarray(model[k], np.float64)
                if possible is not None:
                    own_p, _ = possible.rescore(labels, own_p)
            vote.model_top = [(labels[j], float(own_p[j])) for j in np.argsort(own_p)[::-1][:MODEL_TOP]]
        out.append(vote)
    return out


class SpreadViews:
    """A namer that names each view from several crops of it (its quad, grown, shrunk: see
    :func:`spread_quads`) and reports their mean probabilities, as one view: a quad a little off
    that cuts a card's index or a pip away, or takes in a neighbour's, is then not read from that
    one cut alone. Wraps a namer with ``run`` and ``labels``; the first crop's embedding is kept."""

    def __init__(self, namer: Any, per_view: int):
        self.namer = namer
        self.per_view = per_view
        self.labels = namer.labels
        self.threshold = getattr(namer, "threshold", 0.5)

    def run(self, crops: Sequence[Any]):
        probs, embeddings = self.namer.run(crops)
        return self._mean(probs, len(crops)), self._first(embeddings, len(crops))

    def run_with_model(self, crops: Sequence[Any]):
        """:meth:`run`, and the card model's own mean probabilities of each view (the wrapped
        namer's ``run_with_model``; None when it has none: its probabilities are the model's)."""
        both = getattr(self.namer, "run_with_model", None)
        if not callable(both):
            return (*self.run(crops), None)
        probs, embeddings, model = both(crops)
        n = len(crops)
        mean = self._mean(probs, n)
        return mean, self._first(embeddings, n), mean if model is probs else self._mean(model, n)

    def _mean(self, probs, count: int) -> np.ndarray:
        probs = np.asarray(probs)
        n = count // self.per_view
        return probs[: n * self.per_view].reshape(n, self.per_view, -1).mean(axis=1)

    def _first(self, embeddings, count: int):
        return None if embeddings is None else np.asarray(embeddings)[:: self.per_view][: count // self.per_view]


def spread_quads(quad: np.ndarray, spread: float) -> list[np.ndarray]:
    """``quad``, then it grown and shrunk by ``spread`` (a fraction of its size) about its centre."""
    return nudged_quads(quad, ((1.0, 0.0, 0.0), (1 + spread, 0.0, 0.0), (1 - spread, 0.0, 0.0)))


LOOK_SIZE = (12, 20)  # (w, h) of a crop's look: its layout of light and dark, not its detail


def look_of(crop: Any) -> np.ndarray | None:
    """A crop's look: the grey crop shrunk to ``LOOK_SIZE``, its mean taken away and divided by
    its spread (a lamp dimming does not change it; a hand, a shadow or a card over part of it
    does). None when the crop is no image (a test's namer may be given card codes)."""
    if not isinstance(crop, np.ndarray) or crop.ndim not in (2, 3) or min(crop.shape[:2]) < 4:
        return None
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    small = cv2.resize(grey, LOOK_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)
    return (small - small.mean()) / max(8.0, float(small.std()))


def red_ink(crop: Any) -> float | None:
    """How red a card's ink is: in the crop's middle (a tenth of each side left out, where the
    table may show), the 75th percentile of the Lab red-green axis over the ink (pixels much
    darker than the paper), less the paper's own. Red pips, indices and borders give 20-50, black
    ink about 0 (under a lamp's warm light too: the paper's colour is taken away). None when the
    crop is no colour image or shows too little ink."""
    if not isinstance(crop, np.ndarray) or crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 20:
        return None
    h, w = crop.shape[:2]
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)[h // 10: h - h // 10, w // 10: w - w // 10].astype(np.float32)
    light, red = lab[..., 0].ravel(), lab[..., 1].ravel() - 128.0
    paper = float(np.percentile(light, 85))
    ink = light < paper - 25.0
    bare = light >= paper - 10.0
    if ink.sum() < max(20, light.size // 200) or not bare.any():
        return None
    return float(np.percentile(red[ink], 75) - np.median(red[bare]))


def shows_red(votes: Sequence[Vote], bar: float) -> bool | None:
    """Whether one of the views shows red ink (:func:`red_ink` at ``bar`` or more); None when no
    view measured it."""
    reds = [v.red for v in votes if v.red is not None]
    return None if not reds else max(reds) >= bar


def look_distance(a: np.ndarray, b: np.ndarray) -> float:
    """How different two looks are: the mean absolute difference of their normalised pixels
    (views of a card at rest differ by about 0.1-0.25, a view with a hand over part of the card
    and one without by 0.3-0.8, on the hard simulated table)."""
    return float(np.mean(np.abs(a - b)))


def same_look(votes: Sequence[Vote], latest: Vote, bar: float) -> list[Vote]:
    """The votes that saw what ``latest`` sees: those whose look is within ``bar`` of its own
    (or that have none), ``latest`` last. Views of a card taken while a hand, its shadow or a
    card still lay over part of it look different from the card left alone, which is what the
    latest view sees: the earlier ones are not evidence for it."""
    if bar <= 0 or latest.look is None:
        return [*votes, latest]
    return [v for v in votes if v.look is None or look_distance(v.look, latest.look) <= bar] + [latest]


def best_vote(votes: Sequence[Vote], card: str | None = None) -> Vote | None:
    """The view that put ``card`` (default: its own best card) first with the highest score, among
    those that carry an embedding; None when none does."""
    with_view = [v for v in votes if v.embedding is not None and v.top and (card is None or v.top[0][0] == card)]
    if not with_view:
        return None
    return max(with_view, key=lambda v: v.top[0][1])


def excluded_card(votes: Sequence[Vote], labels: Sequence[str | None] | None, possible: PossibleCards | None,
                  bar: float = 0.5) -> tuple[str, float] | None:
    """The card the namer itself saw in views the possible cards ruled out, with its mean
    probability: the card its own probabilities (:attr:`Vote.probs`, before the rules) put first
    on average over the ruled-out views that carry them, when that card is not possible and its
    mean probability reaches ``bar``; else None. Vision knows no rules: whoever told it the possible cards may know why the card was out
    (a card already played seen again: one of the two sightings is wrong)."""
    if possible is None or not labels:
        return None
    own = [np.asarray(v.probs, np.float64) for v in votes if v.conflict and v.probs is not None]
    own = [p for p in own if p.shape == (len(labels),)]
    if not own:
        return None
    mean = np.mean(own, axis=0)
    k = int(np.argmax(mean))
    card = labels[k]
    if card in (None, UNKNOWN_LABEL) or card in possible or mean[k] < bar:
        return None
    return card, float(mean[k])


def scores(votes: Sequence[Vote], model: bool = False) -> dict[str | None, float]:
    """Each card's mean (rescored) score over the views (its best three in each). ``model``: the
    card model's own, before a deck memory weighed them (:attr:`Vote.model_top`, its best five;
    a view without them, its ``top``)."""
    score: dict[str | None, float] = {}
    for v in votes:
        for c, p in (v.model_top or v.top) if model else v.top:
            score[c] = score.get(c, 0.0) + p / len(votes)
    return score


def candidates(votes: Sequence[Vote], k: int = 3) -> list[tuple[str | None, float]]:
    """The ``k`` best cards by mean score over the views, best first (an ``uncertain``'s candidates)."""
    return sorted(scores(votes).items(), key=lambda kv: -kv[1])[:k]


def margin(votes: Sequence[Vote], card: str) -> float:
    """How many times the next card's mean score ``card``'s is, over the views."""
    score = scores(votes)
    mine = score.pop(card, 0.0)
    return mine / max(0.01, max((p for c, p in score.items() if c is not None), default=0.0))


def best_score(votes: Sequence[Vote]) -> float:
    """The mean score of the card the views put first most (0 without views)."""
    if not votes:
        return 0.0
    firsts = Counter(v.top[0][0] for v in votes if v.top)
    if not firsts:
        return 0.0
    card = firsts.most_common(1)[0][0]
    return sum(p for v in votes for c, p in v.top if c == card) / len(votes)


def one_view_settles(votes: Sequence[Vote], card: str, bar: float) -> bool:
    """Whether every view puts ``card`` first and one of them names it at ``bar`` or more (0: never): a view
    its face's or its kept views' keypoints settle (at 0.999) is that card, the others not against it."""
    return (bar > 0 and bool(votes) and all(v.top and v.top[0][0] == card for v in votes)
            and max(v.top[0][1] for v in votes) >= bar)


def evidence(votes: Sequence[Vote], s: TrackerSettings) -> tuple[str, float] | None:
    """(card, mean score) when the still views, none of them confident enough on its own,
    together leave no doubt: every view's best is the same card, its mean (rescored) score is
    at least ``evidence_score`` (or one view names it at ``sure_view`` or more, when set) and
    ``evidence_margin`` times the next card's. None otherwise."""
    if len(votes) < s.votes or any(v.conflict for v in votes):
        return None
    best = {v.top[0][0] for v in votes}
    if len(best) != 1 or None in best:
        return None
    card = best.pop()
    score = scores(votes)
    mean = score.pop(card)
    other = max((p for c, p in score.items() if c is not None), default=0.0)
    if ((mean >= s.evidence_score or one_view_settles(votes, card, s.sure_view))
            and mean >= s.evidence_margin * max(other, 0.01) and mean > score.get(None, 0.0)):
        return card, mean
    return None


def pip_neighbours(card: str) -> tuple[str, ...]:
    """The pip cards one pip away from pip card ``card`` in its suit (``C05``: ``C04``, ``C06``);
    none for a trump, a court card or the Excuse. The card model's confident misreads at a table
    are mostly these: a pip hidden or cut away reads as the card one pip down."""
    if len(card) != 3 or card[0] not in "SHDC" or not card[1:].isdigit():
        return ()
    rank = int(card[1:])
    if not 1 <= rank <= 10:
        return ()
    return tuple(f"{card[0]}{r:02d}" for r in (rank - 1, rank + 1) if 1 <= r <= 10)


def red_pip(card: str) -> bool:
    """Whether ``card`` is a pip card of hearts or diamonds (``H01``..``D10``): the cards a deck printing its
    red suits in red shows in red ink on every view (court cards' pictures are coloured in every suit)."""
    return card[:1] in ("H", "D") and bool(pip_neighbours(card))


def pip_margin(votes: Sequence[Vote], card: str) -> float:
    """How many times its pip neighbours' best mean score ``card``'s is, over the views (no
    neighbour among the views' best cards: 100 times, as :func:`margin` floors the next card)."""
    score = scores(votes)
    near = max((score.get(n, 0.0) for n in pip_neighbours(card)), default=0.0)
    return score.get(card, 0.0) / max(0.01, near)


def pip_above(card: str) -> str | None:
    """The pip card one pip above pip card ``card`` in its suit (``C04``: ``C05``); None for a ten,
    a trump, a court card or the Excuse. A pip hidden by glare, a shadow, a finger or a card edge
    makes a card read one pip down, never up: the card above is the one a pip card may truly be."""
    near = pip_neighbours(card)
    if not near:
        return None
    above = f"{card[0]}{int(card[1:]) + 1:02d}"
    return above if above in near else None


def pip_above_margin(votes: Sequence[Vote], card: str) -> float:
    """How many times the mean score of the card one pip above ``card``'s is, over the views
    (that score floored at 0.01, as :func:`margin` floors the next card's: 100 times ``card``'s
    own when the card above is not among the views' best cards, or ``card`` has none above it)."""
    return score_over(votes, card, pip_above(card))


def score_over(votes: Sequence[Vote], card: str, other: str | None) -> float:
    """How many times ``other``'s mean score ``card``'s is, over the views (``other``'s floored
    at 0.01, as :func:`margin` floors the next card's; no ``other``: 100 times ``card``'s own)."""
    score = scores(votes)
    return score.get(card, 0.0) / max(0.01, score.get(other, 0.0) if other else 0.0)


# the suit of the same colour as each suit: its cards' look-alikes (a spade court card read as a club one)
SAME_COLOUR = {"S": "C", "C": "S", "H": "D", "D": "H"}


def colour_twin(card: str) -> str | None:
    """The card of the same rank in the other suit of ``card``'s colour (``SQ``: ``CQ``,
    ``H07``: ``D07``); None for a trump or the Excuse."""
    if len(card) < 2 or card[0] not in SAME_COLOUR:
        return None
    return SAME_COLOUR[card[0]] + card[1:]


def suit_margin(votes: Sequence[Vote], card: str) -> float:
    """How many times its colour twin's mean score ``card``'s is, over the views (the twin's
    floored at 0.01, as :func:`margin` floors the next card's)."""
    return score_over(votes, card, colour_twin(card))


def model_suit_margin(votes: Sequence[Vote], card: str) -> float:
    """How many times its colour twin's mean probability ``card``'s is in the card model's own
    namings of the views (:attr:`Vote.model_top`: before the table's deck memory weighed them,
    rescored with the rules as the views' own top cards are; the twin's floored at 0.01), when
    the model sees one of the two:
    their mean probabilities together reach :data:`TWIN_MASS` (a card of a deck the model barely
    knows, its probabilities spread thin, is named by the memory). 100 otherwise, when no view
    carries them (a namer without a memory) or ``card`` has no twin."""
    twin = colour_twin(card)
    own = [dict(v.model_top) for v in votes if v.model_top]
    if twin is None or not own:
        return 100.0
    mine = sum(o.get(card, 0.0) for o in own) / len(own)
    other = sum(o.get(twin, 0.0) for o in own) / len(own)
    if mine + other < TWIN_MASS:
        return 100.0
    return mine / max(0.01, other)


def certain(votes: Sequence[Vote], card: str, s: TrackerSettings) -> bool:
    """Whether ``card`` is sure enough to be committed without a question: its mean (rescored)
    score over all the views, the model's probability with the game's possible cards, reaches
    ``commit_bar``; a pip card's is ``pip_margin`` times its pip neighbours' and
    ``pip_above_margin`` times the card one pip above's, a suit card's ``suit_margin`` times
    its colour twin's, and ``model_suit_margin`` times it in the card model's own namings,
    before the table's deck memory weighed them, and a pip card of hearts or diamonds one of
    whose views shows red ink (``red_ink``; court cards' pictures are coloured in every suit;
    each when set).
    Views of a card at rest are nearly the same picture, so they are averaged, never multiplied
    as if each were new evidence."""
    if s.pip_margin > 0 and pip_neighbours(card) and pip_margin(votes, card) < s.pip_margin:
        return False
    if s.pip_above_margin > 0 and pip_above(card) and pip_above_margin(votes, card) < s.pip_above_margin:
        return False
    if s.suit_margin > 0 and colour_twin(card) and suit_margin(votes, card) < s.suit_margin:
        return False
    if s.model_suit_margin > 0 and colour_twin(card) and model_suit_margin(votes, card) < s.model_suit_margin:
        return False
    if s.red_ink > 0 and red_pip(card) and shows_red(votes, s.red_ink) is False:
        return False  # a heart or a diamond pip card whose views show no red ink: a black card misread
    return s.commit_bar <= 0 or scores(votes).get(card, 0.0) >= s.commit_bar


def verdict(votes: Sequence[Vote], s: TrackerSettings, final: bool, piece: bool = False) -> tuple[str, str | None, float]:
    """('card', code, conf) | ('uncertain', None, conf) | ('none', None, 0) | ('wait', None, 0).
    ``final``: no more views will come; ``piece``: the views are of a quad cut from a row,
    which needs a wider margin."""
    need = s.piece_margin if piece else s.min_margin
    named = [v for v in votes if v.card is not None]
    counts = Counter(v.card for v in named)
    if counts:
        card, n = counts.most_common(1)[0]
        confs = [v.confidence for v in named if v.card == card]
        mean = float(np.mean(confs))
        # two thirds of the votes, and no confident vote for another card, nor a view that puts
        # another card first with some weight: a split is a question
        agree = n * 3 >= 2 * len(votes) and len(counts) == 1 and not any(
            v.top[0][0] not in (card, None) and v.top[0][1] >= s.rival for v in votes)
        if (n >= min(s.min_votes, len(votes) if final else s.min_votes) and mean >= s.min_confidence and agree
                and margin(votes, card) >= need):
            if certain(votes, card, s):
                return CARD, card, mean
            if not final and len(votes) < s.votes:
                return WAIT, None, 0.0  # more views may lift it over the bar
    if len(votes) < s.votes and not final:
        return WAIT, None, 0.0
    found = None if piece else evidence(votes, s)
    if found is not None and certain(votes, found[0], s):
        return CARD, found[0], found[1]
    unknown = len(votes) - len(named)
    if sum(v.conflict for v in votes) * 2 >= len(votes):
        return UNCERTAIN_VERDICT, None, 0.0  # a card the rules exclude: ask, never guess a look-alike
    if unknown * 2 > len(votes) and all(v.not_a_card for v in votes if v.card is None):
        return NONE, None, 0.0
    return UNCERTAIN_VERDICT, None, 0.0

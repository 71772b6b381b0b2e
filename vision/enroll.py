"""Deck enrollment: teach Tarotmate a new deck without retraining the network.

The recognition model maps a straightened card crop to an L2-normalised
embedding. Enrollment embeds several augmented *views* of each card of the
new deck (perspective jitter, blur, light, noise, half turns), averages them
into per-card *prototypes*, and stores them as a deck profile
(:mod:`vision.deck_profiles`). A crop of that deck is then named by the card
whose prototype is the most similar (cosine), or rejected as unknown when no
prototype is similar enough. Nothing is trained: building a profile costs one
forward pass per view.

Everything here works with any *embedder*: an object whose
``embed(crops) -> (N, D)`` returns unit rows (the recognition
:class:`vision.namer.Namer` is one).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Protocol, Sequence

import cv2
import numpy as np

from engine.cards import CODES, BY_CODE
from engine.errors import TarotmateError
from vision.card_keypoints import card_keypoints, keypoints_of, kept_keypoints, matches_in_place, matches_in_place_many, packed
from vision.deck_memory import CODE_INDEX, LIKENESS_CARDS, VERIFIED_SURE, VERIFY_CARDS, verified
from vision.deck_profiles import TEMPERATURE_BOUNDS, DeckProfile, DeckProfileError, SimilarPair, load_profile
from vision.namer import UNKNOWN, Naming
from vision.sources import IMAGE_EXTENSIONS
from vision.votes import red_ink, red_pip
from vision.warp import CROP_SIZE, crop_corners, warp_card

STRATEGIES = ("mean", "orientation")
DEFAULT_VIEWS = 16
DEFAULT_STRATEGY = "mean"  # as good as or better than "orientation" on every deck of the benchmark
TEMPERATURE = 0.05  # softmax temperature turning cosine scores into a confidence (a profile fits its own)
MIN_CALIBRATION_VIEWS = 4  # views per card, at least, to fit a deck's temperature on them
UNKNOWN_VETO = 0.5  # a crop the model itself calls "unknown" this surely is rejected
# the tracker's bars for a deck named by its prototypes (:attr:`PrototypeNamer.tracker_bars`): the deck's
# temperature is fitted on its enrollment views, cleaner than a table's, so a card is committed without a
# question only when its views name it at this mean confidence, and never on a single view of a card lost at
# once (docs/enrollment.md, "An enrolled deck at the table"); or when every view puts it first and one of them is
# settled by its face's keypoints (at VERIFIED_SURE, sure_view; docs/tracking.md, "One view its face settles")
TABLE_BARS = {"min_confidence": 0.97, "evidence_score": 0.97, "lost_single": 0.0, "sure_view": VERIFIED_SURE}
# at the table, a crop under the profile's similarity threshold that the model takes for a card face is not
# refused (a dim, blurred table view of a real card often falls under a threshold set on enrollment views): this
# much of its probability goes to "not a card face", so that it is asked, its best cards first, never committed
UNSURE_FACE = 0.3
# a heart's or a diamond's pip card whose clean face shows red ink this much (vision.votes.red_ink) is printed in red:
# the scans of the decks printed so show 37-79, those printing Cups and Coins in other colours -27 to 39, a few of
# them reddish paintings; table views of red pip cards 8-50 (docs/tracking.md, "A red card's ink")
RED_FACE = 20.0


class Embedder(Protocol):
    def embed(self, crops: Sequence[np.ndarray]) -> np.ndarray: ...


class EnrollmentError(TarotmateError):
    """Enrollment input that cannot make a deck profile."""


# --------------------------------------------------------------------------- views


@dataclass(frozen=True)
class Augment:
    """How far the augmented enrollment views of a card stray from the clean image.

    The views are made by :func:`vision.synth.make_crop`, the crop synthesis
    the recognition model is trained with: ``jitter`` is the largest corner
    displacement (fraction of the crop width: perspective and localisation
    error, a little table at the edges), ``effects`` the strength of the light,
    glare, shadow, blur, noise, low resolution and JPEG effects, ``colour``
    the strength of the colour changes (white balance, hue, saturation).
    The defaults are the synthesis' own: in the benchmark, views as strong as
    a camera's named 0 to 6 points more of the hard decks than half-strength
    ones, and their similarities set a rejection threshold that refuses fewer
    real cards.
    """

    jitter: float = 0.06
    effects: float = 1.0
    colour: float = 1.0


def face_quad(face: np.ndarray) -> np.ndarray:
    """The quad of a whole card image (the image is the card)."""
    h, w = face.shape[:2]
    return crop_corners((w, h))


def card_views(
    face: np.ndarray,
    n: int,
    size: tuple[int, int],
    rng: np.random.Generator,
    augment: Augment = Augment(),
) -> list[np.ndarray]:
    """``n`` crops of ``size`` (w, h) of a card ``face`` (BGR, the image is the card).

    View 0 is the clean face, view 1 the clean face turned a half turn; the
    others are synthesised crops, half of them turned, with the jitter and
    effects of ``augment``.
    """
    from vision.synth import face_from_image, make_crop

    if n < 1:
        raise EnrollmentError(f"need at least one view per card, got {n}")
    clean = warp_card(face, face_quad(face), size)
    views = [clean, np.ascontiguousarray(clean[::-1, ::-1])][:n]
    synth_face = face_from_image("view", face)
    for _ in range(n - len(views)):
        views.append(make_crop(rng, synth_face, size, jitter=augment.jitter, effects=augment.effects, colour=augment.colour))
    return views


def portrait(image: np.ndarray) -> np.ndarray:
    """``image`` turned a quarter turn if it is wider than tall (cards are portrait)."""
    if image.shape[1] > image.shape[0]:
        return np.ascontiguousarray(np.rot90(image, -1))
    return image


# --------------------------------------------------------------------------- prototypes


def normalise(rows: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    rows = np.asarray(rows, np.float32)
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    return rows / np.maximum(norms, 1e-12)


def card_prototypes(views: np.ndarray, turned: np.ndarray, strategy: str = DEFAULT_STRATEGY) -> np.ndarray:
    """The prototypes of one card from the embeddings of its views.

    ``mean``: one prototype, the normalised mean of all views;
    ``orientation``: one per orientation present (upright, turned), for an
    embedding that does not map a card and its half turn together.
    """
    views = normalise(views)
    if strategy == "mean":
        return normalise(views.mean(0, keepdims=True))
    if strategy == "orientation":
        groups = [views[turned == t] for t in (False, True)]
        return normalise(np.stack([g.mean(0) for g in groups if len(g)]))
    raise EnrollmentError(f"unknown prototype strategy {strategy!r}: expected one of {', '.join(STRATEGIES)}")


@dataclass(frozen=True)
class CardViews:
    """The embeddings of the enrollment views of one card."""

    code: str
    embeddings: np.ndarray  # (V, D), unit rows
    turned: np.ndarray  # (V,) bool
    keypoints: bytes = b""  # its clean face's keypoints (vision.card_keypoints.packed); none where not known
    red: float | None = None  # how red its clean face's ink is (vision.votes.red_ink); None where not measured


def prototypes_of(cards: Sequence[CardViews], strategy: str = DEFAULT_STRATEGY) -> tuple[np.ndarray, tuple[str, ...]]:
    """Stack the prototypes of every card, in canonical card order, with their labels."""
    rows, labels = [], []
    for views in sorted(cards, key=lambda v: BY_CODE[v.code].index):
        protos = card_prototypes(views.embeddings, views.turned, strategy)
        rows.append(protos)
        labels += [views.code] * len(protos)
    if not rows:
        raise EnrollmentError("no card was enrolled")
    return np.concatenate(rows).astype(np.float32), tuple(labels)


SHRINKAGE = 0.1  # of the mean variance, added to the within-card covariance before whitening
MAX_WHITENED_DIM = 512  # longer embeddings are compared as they are (the transform would be too big)


def whitening(cards: Sequence[CardViews], shrinkage: float = SHRINKAGE) -> np.ndarray | None:
    """The transform that makes the views' spread around their card equal in every direction.

    The within-card covariance of the views (per card and orientation) says
    which directions of the embedding the camera moves a card along (light,
    blur, shift); ``(S + shrinkage * mean variance * I) ** -1/2`` shrinks
    those and stretches the others, so that comparing transformed
    embeddings by cosine is close to naming by the Mahalanobis distance of
    linear discriminant analysis: no training, one eigen-decomposition. In
    the benchmark it named 1 to 9 points more of the decks that the model
    tells apart least. None when the views cannot estimate it (one view per
    card and orientation) or the embeddings are longer than
    ``MAX_WHITENED_DIM``.
    """
    deviations = []
    for c in cards:
        for side in (False, True):
            group = c.embeddings[c.turned == side].astype(np.float64)
            if len(group) > 1:
                deviations.append(group - group.mean(0))
    if not deviations or cards[0].embeddings.shape[1] > MAX_WHITENED_DIM:
        return None
    d = np.concatenate(deviations)
    covariance = d.T @ d / len(d)
    mean_variance = np.trace(covariance) / len(covariance)
    if mean_variance <= 1e-12:
        return None
    values, vectors = np.linalg.eigh(covariance + shrinkage * mean_variance * np.eye(len(covariance)))
    return ((vectors * values**-0.5) @ vectors.T).astype(np.float32)


def apply_transform(embeddings: np.ndarray, transform: np.ndarray | None) -> np.ndarray:
    """Embeddings in a deck's metric: transformed, then unit rows again."""
    embeddings = np.asarray(embeddings, np.float32)
    return normalise(embeddings if transform is None else embeddings @ transform)


def card_scores(embeddings: np.ndarray, prototypes: np.ndarray, labels: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Per crop and per card, the best cosine similarity to one of the card's prototypes.

    ``labels`` must list each card's rows together (as :func:`prototypes_of`
    does). Returns an ``(N, C)`` array and the C card codes of its columns.
    """
    starts, codes = card_columns(labels)
    sims = np.asarray(embeddings, np.float32) @ prototypes.T
    return np.maximum.reduceat(sims, starts, axis=1), codes


def card_columns(labels: Sequence[str]) -> tuple[list[int], list[str]]:
    """The first prototype row of each card in ``labels`` (each card's rows together) and the card codes,
    in the order of :func:`card_scores`'s columns."""
    labels = list(labels)
    starts = [i for i in range(len(labels)) if i == 0 or labels[i] != labels[i - 1]]
    codes = [labels[i] for i in starts]
    if len(set(codes)) != len(codes):
        raise DeckProfileError("prototype rows of a card are not contiguous")
    return starts, codes


def card_confidences(scores: np.ndarray, temperature: float) -> np.ndarray:
    """Per crop, the softmax of its per-card similarities (:func:`card_scores`) at ``temperature``."""
    e = np.exp((scores - scores.max(1, keepdims=True)) / temperature)
    return e / e.sum(1, keepdims=True)


# a cosine's rounding in float32: the same image enrolled under two codes reads 1 give or take a few 1e-7, and with
# few views a card's own views may read 1 as well (pair_threshold then 1): the two must still be reported alike
SIMILAR_SLACK = 1e-5


def similar_pairs(prototypes: np.ndarray, labels: Sequence[str], min_similarity: float) -> list[SimilarPair]:
    """Pairs of distinct cards with prototypes at least ``min_similarity`` alike (to a cosine's rounding,
    :data:`SIMILAR_SLACK`), most alike first."""
    scores, codes = card_scores(prototypes, prototypes, labels)
    per_card = np.full((len(codes), len(codes)), -1.0, np.float32)
    row_card = np.array([codes.index(code) for code in labels])
    for i, c in enumerate(row_card):
        per_card[c] = np.maximum(per_card[c], scores[i])
    per_card = np.maximum(per_card, per_card.T)
    pairs = [
        SimilarPair(codes[a], codes[b], float(per_card[a, b]))
        for a in range(len(codes))
        for b in range(a + 1, len(codes))
        if per_card[a, b] >= min_similarity - SIMILAR_SLACK
    ]
    return sorted(pairs, key=lambda p: -p.similarity)


# --------------------------------------------------------------------------- rejection


def non_card_crops(size: tuple[int, int], rng: np.random.Generator, n: int = 32) -> list[np.ndarray]:
    """Crops that are not card faces (backs, hands, coins, bare table), by :func:`vision.synth.make_unknown_crop`.

    They stand for what the localiser may hand over by mistake; their
    similarities to the prototypes set the rejection threshold.
    """
    from vision.synth import make_unknown_crop

    return [make_unknown_crop(rng, size)[0] for _ in range(n)]


def rejection_threshold(genuine: np.ndarray, impostor: np.ndarray) -> float:
    """The cosine similarity a crop needs to be named.

    ``genuine``: best scores of enrollment views to their own card;
    ``impostor``: best scores of non-card crops. The threshold is the highest
    impostor score, and never above the 1st percentile of genuine scores:
    naming a real card of the deck matters more than refusing the odd
    non-card, which the model's own ``unknown`` class also vetoes (see
    :class:`PrototypeNamer`). In the benchmark, a threshold halfway between
    the two refused 0.4 to 1.3% of the cards more and no more non-cards.
    """
    low_genuine = float(np.percentile(genuine, 1))
    high_impostor = float(np.max(impostor)) if len(impostor) else -1.0
    return min(low_genuine, high_impostor)


def pair_threshold(genuine: np.ndarray) -> float:
    """Prototypes of two cards at least this alike cannot be told apart.

    That is when they are closer to each other than half of the enrollment
    views of a card are to their own prototype: the camera's usual changes
    (light, blur, a slight shift) move a card farther than the distance
    between the two. The same image enrolled under two codes is well above
    it; in the benchmark, distinct cards of the Rider-Waite-Smith scans are
    all below it.
    """
    return float(np.percentile(genuine, 50))


# --------------------------------------------------------------------------- building


def model_id(embedder: Embedder) -> str:
    """What identifies the embedding space of ``embedder`` (profiles record it).

    The Namer's ``model_id`` (a hash of the ONNX file), else the class name.
    """
    return str(getattr(embedder, "model_id", None) or type(embedder).__name__)


def crop_size(embedder: Embedder) -> tuple[int, int]:
    """The (w, h) of the crops ``embedder`` expects (the recognition crop size by default)."""
    size = getattr(embedder, "crop_size", None)
    return tuple(size) if size else CROP_SIZE  # type: ignore[return-value]


def embed_card(
    embedder: Embedder,
    code: str,
    face: np.ndarray,
    views: int,
    rng: np.random.Generator,
    augment: Augment = Augment(),
) -> CardViews:
    """Embed ``views`` augmented views of one card face.

    A view counts as turned when its embedding is closer to that of the clean
    turned face than to the clean upright one (the synthesis turns half of
    the views and does not say which).
    """
    crops = card_views(portrait(face), views, crop_size(embedder), rng, augment)
    embeddings = normalise(embedder.embed(crops))
    keypoints = packed(card_keypoints(crops[0]))  # the clean face, as a crop at the table shows the card
    red = red_ink(crops[0])
    if len(embeddings) < 2:
        return CardViews(code, embeddings, np.zeros(len(embeddings), bool), keypoints, red)
    turned = embeddings @ embeddings[1] > embeddings @ embeddings[0]
    turned[:2] = (False, True)
    return CardViews(code, embeddings, turned, keypoints, red)


@dataclass(frozen=True)
class DeckGeometry:
    """What the views of a deck give: the metric, the prototypes, and how close views stay to their card."""

    transform: np.ndarray | None  # (D, D) applied to embeddings before comparing; None: as they are
    prototypes: np.ndarray  # (P, D) unit rows, in the transformed space
    labels: tuple[str, ...]
    genuine: np.ndarray  # every view's best similarity to its own card
    pairs: tuple[SimilarPair, ...]  # cards too alike, most alike first
    temperature: float | None = None  # the deck's own calibration (None: too few views to fit one)


def deck_geometry(cards: Sequence[CardViews], strategy: str = DEFAULT_STRATEGY) -> DeckGeometry:
    """Fit the metric of a deck, then its prototypes and the pairs of cards too alike."""
    transform = whitening(cards)
    seen = [CardViews(c.code, apply_transform(c.embeddings, transform), c.turned) for c in cards]
    prototypes, labels = prototypes_of(seen, strategy)
    genuine = own_scores(seen, prototypes, labels)
    pairs = tuple(similar_pairs(prototypes, labels, pair_threshold(genuine)))
    return DeckGeometry(transform, prototypes, labels, genuine, pairs, deck_temperature(seen, prototypes, labels, strategy))


def held_out_probabilities(cards: Sequence[CardViews], prototypes: np.ndarray, labels: Sequence[str],
                           strategy: str = DEFAULT_STRATEGY, temperature: float = TEMPERATURE) -> tuple[np.ndarray, np.ndarray]:
    """Every enrollment view named as if it had not been enrolled: its own card's prototypes
    rebuilt from the card's other views (leave one out), the other cards' as they are. Returns
    the confidences at ``temperature`` (N, C; columns as :func:`card_scores`'s) and each view's
    own column. ``cards``: in the deck's metric (as the prototypes)."""
    scores, codes = card_scores(np.concatenate([c.embeddings for c in cards]), prototypes, labels)
    own = np.empty(len(scores), np.int64)
    row = 0
    for c in cards:
        k = codes.index(c.code)
        n = len(c.embeddings)
        for v in range(n):
            if n > 1:
                keep = np.arange(n) != v
                rest = card_prototypes(c.embeddings[keep], c.turned[keep], strategy)
                scores[row, k] = float((rest @ c.embeddings[v]).max())
            own[row] = k
            row += 1
    return card_confidences(scores, temperature), own


def deck_temperature(cards: Sequence[CardViews], prototypes: np.ndarray, labels: Sequence[str],
                     strategy: str = DEFAULT_STRATEGY) -> float | None:
    """The deck's own temperature for :class:`PrototypeNamer`'s confidences: the one of least
    negative log-likelihood on the enrollment views, each named as if left out
    (:func:`held_out_probabilities`; the views are camera-like syntheses, never the crops named at
    the table). None when most cards have fewer than :data:`MIN_CALIBRATION_VIEWS` views."""
    from vision.calibration import fit_temperature

    if sum(len(c.embeddings) >= MIN_CALIBRATION_VIEWS for c in cards) * 2 < len(cards) or len(cards) < 2:
        return None
    probs, own = held_out_probabilities(cards, prototypes, labels, strategy)
    low, high = TEMPERATURE_BOUNDS
    t = TEMPERATURE * fit_temperature(probs, own, low / TEMPERATURE, high / TEMPERATURE)
    return float(min(max(t, low), high))


def build_profile(
    name: str,
    cards: Sequence[CardViews],
    embedder: Embedder,
    strategy: str = DEFAULT_STRATEGY,
    source: str = "",
    seed: int = 0,
) -> DeckProfile:
    """A deck profile from the embedded views of its cards (metric, rejection and pair thresholds included)."""
    geometry = deck_geometry(cards, strategy)
    impostors = normalise(embedder.embed(non_card_crops(crop_size(embedder), np.random.default_rng(seed))))
    impostor_scores = card_scores(apply_transform(impostors, geometry.transform), geometry.prototypes, geometry.labels)[0]
    return DeckProfile(
        name=name,
        prototypes=geometry.prototypes,
        labels=geometry.labels,
        threshold=rejection_threshold(geometry.genuine, impostor_scores.max(1)),
        model=model_id(embedder),
        views=max(len(c.embeddings) for c in cards),
        similar_pairs=geometry.pairs,
        source=source,
        transform=geometry.transform,
        temperature=geometry.temperature,
        keypoints={c.code: c.keypoints for c in cards if c.keypoints},
        red_pips=red_pips(cards),
    )


def red_pips(cards: Sequence[CardViews]) -> bool | None:
    """Whether the deck prints its hearts' and diamonds' pip cards in red ink: every such clean face
    measured shows :data:`RED_FACE` or more (:func:`vision.votes.red_ink`). None when none was measured.
    The tracker's ``red_ink`` bar, which asks a red pip card whose views show no red ink (a black card
    misread), holds only for such a deck; a deck printing its suits in other colours (Cups and Coins in
    gold, a painting's own reds) would have every other red pip card asked by it, and no black card
    held."""
    reds = [c.red for c in cards if red_pip(c.code)]
    if not reds or all(r is None for r in reds):
        return None
    return all(r is not None and r >= RED_FACE for r in reds)


def own_scores(cards: Sequence[CardViews], prototypes: np.ndarray, labels: Sequence[str]) -> np.ndarray:
    """For every enrollment view, its best similarity to its own card's prototypes."""
    scores, codes = card_scores(np.concatenate([c.embeddings for c in cards]), prototypes, labels)
    own = np.concatenate([[codes.index(c.code)] * len(c.embeddings) for c in cards])
    return scores[np.arange(len(own)), own]


Progress = Callable[[int, int, str], None]


def enroll_faces(
    name: str,
    faces: Mapping[str, np.ndarray],
    embedder: Embedder,
    views: int = DEFAULT_VIEWS,
    strategy: str = DEFAULT_STRATEGY,
    seed: int = 0,
    source: str = "",
    progress: Progress | None = None,
    augment: Augment = Augment(),
) -> DeckProfile:
    """Build the profile of deck ``name`` from one clean face image per card code."""
    if not faces:
        raise EnrollmentError("no card image to enrol")
    rng = np.random.default_rng(seed)
    cards = []
    codes = [c for c in CODES if c in faces]
    for i, code in enumerate(codes):
        cards.append(embed_card(embedder, code, faces[code], views, rng, augment))
        if progress:
            progress(i + 1, len(codes), code)
    return build_profile(name, cards, embedder, strategy, source, seed)


# --------------------------------------------------------------------------- deck folders


@dataclass(frozen=True)
class DeckFolder:
    """A folder of card images named by card code (``H07.jpg``, ``EX.png``...)."""

    path: Path
    files: dict[str, Path]  # card code -> image file
    missing: tuple[str, ...]  # codes without an image, canonical order
    unknown: tuple[str, ...]  # file names that are not a card code with an image suffix


def read_deck_folder(folder: Path | str) -> DeckFolder:
    """Sort the files of ``folder`` into card images and the rest; refuse a card given twice."""
    folder = Path(folder)
    if not folder.is_dir():
        raise EnrollmentError(f"{folder} is not a folder")
    files: dict[str, Path] = {}
    unknown = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or not path.is_file():
            continue
        code = path.stem.strip().upper()
        if path.suffix.lower() not in IMAGE_EXTENSIONS or code not in BY_CODE:
            unknown.append(path.name)
            continue
        if code in files:
            raise EnrollmentError(f"card {code} is given twice in {folder}: {files[code].name} and {path.name}")
        files[code] = path
    missing = tuple(c for c in CODES if c not in files)
    return DeckFolder(folder, files, missing, tuple(unknown))


def read_image(path: Path) -> np.ndarray:
    """A BGR image, or an EnrollmentError naming the file."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise EnrollmentError(f"cannot read image {path}")
    return image


def single_card(image: np.ndarray, size: tuple[int, int] = CROP_SIZE) -> np.ndarray | None:
    """The one card found in ``image`` (a photo or camera frame), straightened to ``size``.

    None when no card or several cards are found: the player is asked to show
    one card alone.
    """
    from vision.localise import find_cards

    quads = find_cards(image)
    if len(quads) != 1:
        return None
    return warp_card(image, quads[0], size)


# --------------------------------------------------------------------------- naming


class PrototypeNamer:
    """Names crops of an enrolled deck by their nearest prototype (same interface as the Namer).

    ``unknown_veto``: when set and the embedder is the recognition model
    (it has ``run`` and an ``unknown`` label), a crop is also rejected when
    the model's own probability of ``unknown`` reaches it -- the model was
    trained to refuse backs, hands, coins and bare table, and gives real
    cards of decks it never saw a probability of unknown near 0 (benchmark).

    ``at_table``: the namer of the camera loop, whose views the tracker fuses
    and asks about. A crop under the profile's similarity threshold that the
    model does not veto is then a card face named unsurely
    (:data:`UNSURE_FACE`) rather than refused; a still image (``classify``)
    keeps the threshold. :meth:`probabilities` gives the tracker every card's
    probability, to weigh with the cards the rules still allow, and
    :attr:`tracker_bars` its bars (:data:`TABLE_BARS`), and :meth:`red_pips` whether the deck prints its
    red suits' pip cards in red ink (the tracker's ``red_ink`` bar holds only then).
    """

    def __init__(
        self,
        profile: DeckProfile,
        embedder: Embedder,
        temperature: float | None = None,
        unknown_veto: float | None = UNKNOWN_VETO,
        at_table: bool = False,
    ):
        self.profile = profile
        self.embedder = embedder
        # the deck's own calibration when its profile has one (``temperature`` given: that one)
        self.temperature = float(temperature if temperature is not None else profile.temperature or TEMPERATURE)
        self.unknown_veto = unknown_veto
        self.at_table = at_table
        self.deck = profile.name
        self.input_size = crop_size(embedder)  # the crop size recognition warps to
        self.tracker_bars = dict(TABLE_BARS)  # the tracker's bars for a deck named by its prototypes
        # the columns of :meth:`probabilities`: the enrolled cards, then ``unknown`` (not a card face)
        self.labels: tuple[str, ...] = (*card_columns(profile.labels)[1], UNKNOWN)
        self._face_keypoints: tuple[list, list[str]] | None = None  # the cards' clean faces' keypoints (_faces)
        self._likeness: np.ndarray | None = None  # face_likeness, found when first needed

    def red_pips(self, bar: float | None = None) -> bool | None:
        """Whether the deck prints its hearts' and diamonds' pip cards in red ink, as its clean faces
        showed at enrollment (:func:`red_pips`; None for a profile enrolled before it was measured).
        ``bar``: the tracker's, which the faces were measured against once and for all (:data:`RED_FACE`)."""
        return self.profile.red_pips

    def _vetoes(self) -> bool:
        labels = getattr(self.embedder, "labels", ())
        return self.unknown_veto is not None and hasattr(self.embedder, "run") and UNKNOWN in labels

    def _embed_with_unknown(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray | None]:
        """Unit embeddings of ``crops`` and, when the embedder is the card model, its probability of unknown."""
        if self._vetoes():
            probs, embeddings = self.embedder.run(crops)
            return normalise(embeddings), np.asarray(probs)[:, list(self.embedder.labels).index(UNKNOWN)]
        return self.embed(crops), None

    def _rejected(self, best_scores: np.ndarray, p_unknown: np.ndarray | None) -> np.ndarray:
        """Which crops are not named: the model calls them unknown (``unknown_veto``), or, unless the namer
        is at the table with the model's veto to refuse what is no card face, their best similarity is under
        the profile's threshold (:data:`UNSURE_FACE`; docs/enrollment.md, "An enrolled deck at the table")."""
        rejected = np.zeros(len(best_scores), bool)
        if p_unknown is not None and self.unknown_veto is not None:
            rejected |= np.asarray(p_unknown) >= self.unknown_veto
        if not self._asks_under_threshold(p_unknown):
            rejected |= best_scores < self.profile.threshold
        return rejected

    def _asks_under_threshold(self, p_unknown: np.ndarray | None) -> bool:
        """Whether a crop under the profile's threshold is a card face named unsurely (:data:`UNSURE_FACE`)
        rather than refused: at the table, with the model's own veto to refuse what is no card face."""
        return self.at_table and p_unknown is not None

    def probabilities(self, crops: Sequence[np.ndarray], keypoints: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
        """Per crop, a probability for each of :attr:`labels` (the deck's cards at its temperature, what
        the model leaves to card faces shared among them; a rejected crop is ``unknown``), and its unit
        embedding: what the tracker weighs with the cards the rules still allow. ``keypoints``: the
        crops' keypoint blocks (:func:`vision.card_keypoints.card_keypoint_blocks`), when found already."""
        if len(crops) == 0:
            return np.zeros((0, len(self.labels)), np.float32), np.zeros((0, 0), np.float32)
        embeddings, p_unknown = self._embed_with_unknown(crops)
        scores, _ = card_scores(apply_transform(embeddings, self.profile.transform), self.profile.prototypes,
                                self.profile.labels)
        cards = card_confidences(scores, self.temperature)
        unknown = np.zeros(len(cards)) if p_unknown is None else np.clip(np.asarray(p_unknown, np.float64), 0, 1)
        best = scores.max(1)
        if self._asks_under_threshold(p_unknown):  # under the threshold: a card face the profile is unsure of
            unknown = np.where(best < self.profile.threshold, np.maximum(unknown, UNSURE_FACE), unknown)
        unknown = np.where(self._rejected(best, p_unknown), 1.0, unknown)
        probs = np.concatenate([cards * (1 - unknown)[:, None], unknown[:, None]], axis=1).astype(np.float32)
        if self.at_table and self.profile.keypoints:
            probs = self._settled(crops, probs, scores, keypoints)
        return probs, embeddings

    def _settled(self, crops: Sequence[np.ndarray], probs: np.ndarray, scores: np.ndarray,
                 keypoints: np.ndarray | None = None) -> np.ndarray:
        """``probs`` with what the cards' clean faces settle (:func:`vision.deck_memory.verified`): a crop
        whose keypoints match the face of one of the :data:`vision.deck_memory.VERIFY_CARDS` cards it is
        most like (``scores``) in :data:`vision.deck_memory.VERIFIED` places or more beyond that face's
        likeness to other faces (:meth:`face_likeness`), and no other of those faces in more than half
        as many, is that card at 0.999. A crop refused as no card face, or named that surely already, is
        not matched."""
        open_crops = np.flatnonzero((probs[:, -1] < 1.0) & (probs[:, :-1].max(axis=1) < VERIFIED_SURE))
        if not len(open_crops):
            return probs
        faces, codes = self._faces()
        likeness = self.face_likeness()
        agreed = np.full((len(probs), len(CODES)), -1, np.int32)
        every = agreed.copy()
        for k in open_crops:
            query = keypoints_of(card_keypoints(crops[k]) if keypoints is None else keypoints[k])
            if not len(query[0]):
                continue
            checked = [j for j in np.argsort(-scores[k])[:VERIFY_CARDS] if faces[j] is not None]
            for j, n in zip(checked, matches_in_place_many(query, [faces[j] for j in checked])):
                every[k, CODE_INDEX[codes[j]]] = n
                agreed[k, CODE_INDEX[codes[j]]] = max(0, n - likeness[j])
        return verified(probs, (agreed, every), self.labels, hold=False)

    def _faces(self) -> tuple[list, list[str]]:
        """Each card's clean face keypoints (:func:`vision.card_keypoints.kept_keypoints`; None for a card
        enrolled without), in the order of :func:`card_scores`'s columns, and those columns' cards."""
        if self._face_keypoints is None:
            codes = card_columns(self.profile.labels)[1]
            kept = self.profile.keypoints
            self._face_keypoints = ([kept_keypoints(kept[c]) if c in kept else None for c in codes], codes)
        return self._face_keypoints

    def face_likeness(self) -> np.ndarray:
        """Per card (:func:`card_scores`'s columns), in how many places its clean face matches, at most,
        the faces of the :data:`vision.deck_memory.LIKENESS_CARDS` cards whose prototypes are most like
        its own: what a crop of another card may match it in by the deck's own print (pips, frames).
        Found once."""
        if self._likeness is None:
            faces, codes = self._faces()
            starts, _ = card_columns(self.profile.labels)
            sims = np.maximum.reduceat(card_scores(self.profile.prototypes, self.profile.prototypes,
                                                   self.profile.labels)[0], starts, axis=0)
            np.fill_diagonal(sims, -np.inf)
            self._likeness = np.zeros(len(codes), np.int32)
            for j in range(len(codes)):
                if faces[j] is not None:
                    alike = [w for w in np.argsort(-sims[j]) if w != j and faces[w] is not None][:LIKENESS_CARDS]
                    self._likeness[j] = max((matches_in_place(faces[j], faces[w]) for w in alike), default=0)
        return self._likeness

    def embed(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        return normalise(self.embedder.embed(crops))

    def name(self, crops: Sequence[np.ndarray]) -> list[Naming]:
        if len(crops) == 0:
            return []
        if self.at_table:  # as the tracker weighs them: a card face under the threshold named, unsurely
            probs, embeddings = self.probabilities(crops)
            best = probs.argmax(1)
            return [Naming(None if self.labels[b] == UNKNOWN else self.labels[b], float(p[b]), e)
                    for b, p, e in zip(best, probs, embeddings)]
        embeddings, p_unknown = self._embed_with_unknown(crops)
        namings = self.name_embeddings(embeddings, p_unknown)
        return self._faces_named(crops, namings, embeddings, p_unknown) if self.profile.keypoints else namings

    def _faces_named(self, crops: Sequence[np.ndarray], namings: list[Naming], embeddings: np.ndarray,
                     p_unknown: np.ndarray | None) -> list[Naming]:
        """A still image's ``namings`` with what the cards' faces settle (:meth:`_settled`): a crop the
        model does not veto as no card face whose keypoints match one card's face so is that card at
        0.999, under the profile's similarity threshold too."""
        scores, _ = card_scores(apply_transform(embeddings, self.profile.transform), self.profile.prototypes,
                                self.profile.labels)
        vetoed = (np.asarray(p_unknown) >= self.unknown_veto if p_unknown is not None and self.unknown_veto is not None
                  else np.zeros(len(scores), bool))
        probs = np.concatenate([card_confidences(scores, self.temperature), vetoed[:, None]], axis=1)
        probs[vetoed, :-1] = 0.0
        probs = probs.astype(np.float32)
        settled = self._settled(crops, probs, scores)
        out = list(namings)
        # the crops the faces settled (one the profile already names that surely is named by its threshold, as before)
        for k in np.flatnonzero((probs[:, :-1].max(axis=1) < VERIFIED_SURE) & (settled[:, :-1].max(axis=1) >= VERIFIED_SURE)):
            j = int(settled[k, :-1].argmax())
            out[k] = Naming(self.labels[j], float(settled[k, j]), embeddings[k])
        return out

    def name_embeddings(self, embeddings: np.ndarray, p_unknown: np.ndarray | None = None) -> list[Naming]:
        """Name crops already embedded (unit rows); ``p_unknown``: the model's probabilities of ``unknown``."""
        compared = apply_transform(embeddings, self.profile.transform)
        scores, codes = card_scores(compared, self.profile.prototypes, self.profile.labels)
        best = scores.argmax(1)
        confidence = card_confidences(scores, self.temperature)[np.arange(len(best)), best]
        accepted = ~self._rejected(scores[np.arange(len(best)), best], p_unknown)
        return [
            Naming(codes[b] if ok else None, float(c), e) for b, ok, c, e in zip(best, accepted, confidence, embeddings)
        ]


def default_embedder() -> Embedder:
    """The shipped recognition model, whose embeddings profiles are built from."""
    from vision.namer import Namer

    return Namer.load()


def load_deck_namer(name: str, base_namer: Embedder | None = None, decks_dir: Path | str | None = None,
                    at_table: bool = False) -> PrototypeNamer:
    """The namer of enrolled deck ``name``: its profile over the embeddings of ``base_namer``.

    ``base_namer`` defaults to the shipped recognition model. A profile built
    with another model is refused (its embeddings would not compare).
    ``at_table``: the namer of the camera loop (:class:`PrototypeNamer`).
    """
    profile = load_profile(name, decks_dir)
    if base_namer is None:
        base_namer = default_embedder()
    current = model_id(base_namer)
    if profile.model != current:
        raise DeckProfileError(
            f"deck {name!r} was enrolled with model {profile.model}, not the current one ({current}): "
            f"enrol it again with `tarotmate enroll {name} ...`"
        )
    return PrototypeNamer(profile, base_namer, at_table=at_table)

"""Training samples for the card classifier: synthetic crops drawn on the fly.

A sample is a crop as the localiser + warp would produce it from one of the
training decks (the built-in deck and every deck folder of ``decks_dir``),
labelled with its card's class index, or an ``unknown`` crop labelled with the
last class. Batches are made from integer seeds, so they can be produced in a
worker process and reproduced.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from engine.cards import CODES
from vision import phone_photos, printings, random_decks, synth

UNKNOWN_INDEX = len(CODES)
LABELS = list(CODES) + [synth.UNKNOWN]
FACE_HEIGHT = 384  # faces are cached at this height: about twice the crop height
# Deck folders of ../shared/decks that no model is trained on: they measure how the models do on a
# deck never seen (a French-suited tarock and another art), so `build_models` leaves them out unless
# told otherwise, and the tests that expect a trained deck's accuracy skip them.
HELD_OUT_DECKS = ("fine-art-tarot-pysolfc", "tarock-adler-cego-pysolfc")


@dataclass
class Recipe:
    decks_dir: str | None
    backgrounds_dir: str | None
    size: tuple[int, int]
    unknown_rate: float = 0.1
    occlusion_rate: float = 0.2
    table_rate: float = 0.0  # fraction of the card crops drawn at a real table (synth.make_table_crop)
    negative_rate: float = 0.0  # fraction of the unknown crops that are screens, text, hands, ... (synth.make_negative_crop)
    exclude: tuple[str, ...] = ()  # deck folders of decks_dir left out (a leave-one-deck-out model)
    corner_errors: str | None = None  # the card finder's measured corner errors (vision.training.corner_errors)
    corner_error_rate: float = 0.0  # fraction of the real-table crops whose corners take one of them
    printing_rate: float = 0.0  # fraction of the card crops whose face is another printing (vision.printings)
    phone_rate: float = 0.0  # fraction of the card crops cut from a phone photo of the card (vision.phone_photos)
    random_deck_rate: float = 0.0  # fraction of the card crops whose face is drawn in a random deck's design (vision.random_decks)


@lru_cache(maxsize=1)
def _random_decks() -> random_decks.RandomDecks:
    return random_decks.RandomDecks()


def random_deck_face(rng: np.random.Generator, code: str) -> synth.Face:
    """``code`` in one of the process's random deck designs (the pool is drawn once per process,
    from a fixed seed: every process and every session trains on the same designs)."""
    return _random_decks().face(rng, code)


_DECKS: dict[tuple, dict[str, tuple]] = {}
_CORNER_ERRORS: dict[str, dict[str, np.ndarray]] = {}
MAX_CORNER_ERROR = 0.25  # in card widths, the mean over the four corners


def corner_error_bank(path: str) -> dict[str, np.ndarray]:
    """The corner errors written by ``vision.training.corner_errors``, (n, 4, 2) arrays by where the
    card lay: ``"pile"`` (on top of a pile or under one) and ``"alone"`` (cached per process)."""
    if path not in _CORNER_ERRORS:
        with np.load(path) as z:
            errors = np.asarray(z["errors"], np.float64)
            pile = np.array(["pile_" in lab for lab in z["labels"]], bool)
        # a quad off by more than a quarter of a card on average mostly shows other things: naming
        # it is the card finder's failure, not a view to learn the card from
        keep = np.linalg.norm(errors, axis=2).mean(1) <= MAX_CORNER_ERROR
        errors, pile = errors[keep], pile[keep]
        _CORNER_ERRORS[path] = {"pile": errors[pile] if pile.any() else errors,
                                "alone": errors[~pile] if (~pile).any() else errors}
    return _CORNER_ERRORS[path]


def parse_exclude(text: str | None) -> tuple[str, ...]:
    """``"a,b"`` -> ``("a", "b")`` (blanks and repeats dropped, order kept)."""
    names = [n.strip() for n in (text or "").split(",")]
    return tuple(dict.fromkeys(n for n in names if n))


def held_out_present(decks_dir: str | None) -> tuple[str, ...]:
    """The :data:`HELD_OUT_DECKS` that are deck folders of ``decks_dir``."""
    if not decks_dir or not Path(decks_dir).is_dir():
        return ()
    folders = {f.name for f in synth.deck_folders(decks_dir)}
    return tuple(n for n in HELD_OUT_DECKS if n in folders)


def trained_deck_folders(decks_dir: str | Path) -> list[Path]:
    """The deck folders of ``decks_dir`` that the models are trained on (all but the held-out ones)."""
    return [f for f in synth.deck_folders(decks_dir) if f.name not in HELD_OUT_DECKS]


def deck_names(decks_dir: str | None, exclude: tuple[str, ...] | list[str] = ()) -> list[str]:
    """The training decks' names, the built-in deck first, without ``exclude``.

    ``exclude`` names deck folders of ``decks_dir``; a name that is not one of
    them raises ``ValueError`` (a typo must not silently train on every deck).
    """
    folders = [f.name for f in synth.deck_folders(decks_dir)] if decks_dir and Path(decks_dir).is_dir() else []
    unknown = [n for n in exclude if n not in folders]
    if unknown:
        raise ValueError(
            f"cannot exclude {', '.join(unknown)}: not a deck folder of {decks_dir} "
            f"(decks: {', '.join(folders) or 'none'})"
        )
    return ["builtin"] + [n for n in folders if n not in exclude]


def training_decks(decks_dir: str | None, exclude: tuple[str, ...] | list[str] = ()) -> dict[str, tuple]:
    """name -> faces, the built-in deck first, without the deck folders named in ``exclude`` (cached per process)."""
    key = (decks_dir, tuple(exclude))
    if key not in _DECKS:
        names = deck_names(decks_dir, tuple(exclude))
        decks = {"builtin": tuple(_shrink(f) for f in synth.builtin_faces())}
        for name in names[1:]:
            decks[name] = synth.load_deck(str(Path(decks_dir) / name), max_height=FACE_HEIGHT)
        _DECKS[key] = decks
    return _DECKS[key]


def _shrink(face: synth.Face) -> synth.Face:
    import cv2

    h, w = face.bgr.shape[:2]
    if h <= FACE_HEIGHT:
        return face
    f = FACE_HEIGHT / h
    size = (round(w * f), FACE_HEIGHT)
    return synth.Face(face.code, cv2.resize(face.bgr, size, interpolation=cv2.INTER_AREA), cv2.resize(face.alpha, size, interpolation=cv2.INTER_AREA))


def deck_weights(names: list[str]) -> np.ndarray:
    """Sampling weight per deck: the Rider-Waite-Smith scans (most test decks are RWS) and the
    built-in deck (the demo draws it) count more."""
    w = np.array([1.4 if "rws" in n or n == "builtin" else 0.8 if "digital" in n else 1.0 for n in names], np.float64)
    return w / w.sum()


def _pick(rng: np.random.Generator, pool: np.ndarray) -> np.ndarray:
    return pool[int(rng.integers(len(pool)))]


def make_sample(rng: np.random.Generator, recipe: Recipe, decks: dict[str, tuple]) -> tuple[np.ndarray, int, str]:
    """(crop BGR, class index, deck name or unknown kind)."""
    names = list(decks)
    if rng.random() < recipe.unknown_rate:
        pool = decks[names[rng.integers(len(names))]]
        if rng.random() < recipe.negative_rate:
            crop, kind = synth.make_negative_crop(rng, recipe.size, backgrounds_dir=recipe.backgrounds_dir)
            return crop, UNKNOWN_INDEX, kind
        crop, kind = synth.make_unknown_crop(rng, recipe.size, pool, recipe.backgrounds_dir, effects=rng.uniform(0.3, 1.2))
        return crop, UNKNOWN_INDEX, kind
    name = names[rng.choice(len(names), p=deck_weights(names))]
    faces = decks[name]
    k = int(rng.integers(len(faces)))
    face = faces[k]
    if recipe.random_deck_rate and rng.random() < recipe.random_deck_rate:
        face, name = random_deck_face(rng, face.code), "random"
    if recipe.printing_rate and rng.random() < recipe.printing_rate:
        face = synth.Face(face.code, printings.reprint(rng, face.bgr)[0], face.alpha)
    if recipe.phone_rate and rng.random() < recipe.phone_rate:
        crop = phone_photos.make_phone_crop(rng, face, recipe.size, recipe.backgrounds_dir, jitter=rng.uniform(0.0, 0.06))
        return crop, CODES.index(face.code), name
    if rng.random() < recipe.table_rate:
        error = None
        if recipe.corner_errors and rng.random() < recipe.corner_error_rate:
            bank = corner_error_bank(recipe.corner_errors)
            error = lambda role: _pick(rng, bank["alone" if role == "alone" else "pile"])  # noqa: E731
        crop, _ = synth.make_table_crop(rng, face, recipe.size, faces, recipe.backgrounds_dir,
                                        severity=rng.uniform(0.2, 1.2), corner_error=error)
        return crop, CODES.index(face.code), name
    occluder = None
    if rng.random() < recipe.occlusion_rate:
        other = decks[names[rng.integers(len(names))]]
        occluder = other[rng.integers(len(other))]
    crop = synth.make_crop(
        rng, face, recipe.size, recipe.backgrounds_dir,
        jitter=rng.uniform(0.0, 0.08), occluder=occluder,
        effects=rng.uniform(0.2, 1.2), colour=rng.uniform(0.3, 1.5),
    )
    return crop, CODES.index(face.code), name


def make_batch(args: tuple[int, int, Recipe]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(uint8 RGB NCHW batch, labels, sources) for seed ``args[0]``, ``args[1]`` samples."""
    import cv2

    cv2.setNumThreads(1)  # one process per core; no thread oversubscription
    seed, n, recipe = args
    rng = np.random.default_rng(seed)
    decks = training_decks(recipe.decks_dir, recipe.exclude)
    w, h = recipe.size
    x = np.empty((n, 3, h, w), np.uint8)
    y = np.empty(n, np.int64)
    src = []
    for i in range(n):
        crop, label, origin = make_sample(rng, recipe, decks)
        x[i] = crop[..., ::-1].transpose(2, 0, 1)
        y[i] = label
        src.append(origin)
    return x, y, src


def real_table_recipe(decks_dir: str | None, backgrounds_dir: str | None, corner_errors: str | Path | None,
                      **changes) -> Recipe:
    """The held-out crops the benchmarks name (``bench_calibration``, ``bench_half_turn``,
    ``bench_deck_memory``): every card crop drawn at a real table, 60 % of them cut with the card
    finder's measured corner errors when ``corner_errors`` is a file (none otherwise), 12 % not a
    card (half of those screens, text, hands...), at the namer's crop size. ``changes`` sets any
    other field of :class:`Recipe` (``exclude``, ``unknown_rate``...)."""
    errors = corner_errors is not None and Path(corner_errors).is_file()
    fields = {"unknown_rate": 0.12, "table_rate": 1.0, "negative_rate": 0.5,
              "corner_errors": str(corner_errors) if errors else None, "corner_error_rate": 0.6 if errors else 0.0}
    return Recipe(decks_dir, backgrounds_dir, (112, 192), **{**fields, **changes})


def namer_batches(recipe: Recipe, crops: int, first_seed: int, batch: int = 80):
    """``crops`` crops of ``recipe`` (at least one batch) as the namer takes them, a batch at a time:
    ``(crops, labels, sources)`` for the seeds ``first_seed``, ``first_seed + 1``, ...; each crop BGR,
    height × width × 3 (:func:`make_batch` gives RGB channels first)."""
    for i in range(max(1, crops // batch)):
        x, y, src = make_batch((first_seed + i, batch, recipe))
        yield [np.ascontiguousarray(c.transpose(1, 2, 0)[..., ::-1]) for c in x], y, src

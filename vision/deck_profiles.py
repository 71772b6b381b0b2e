"""Deck profiles on disk: where they live, how they are written and read.

A deck profile is what enrollment leaves behind: for each enrolled card, one
or more *prototypes* (L2-normalised embeddings of the recognition model) and
the acceptance threshold of the cosine similarity. Classifying a crop of that
deck is then a nearest-prototype search (see :mod:`vision.enroll`).

Layout: every profile is two small files in a decks folder,

* ``<name>.npz``: ``prototypes`` (float16, P x D), ``labels`` (P card
  codes), when the deck has its own metric ``transform`` (float32, D x D),
  and, when its cards' clean faces were enrolled, their keypoints
  (:mod:`vision.card_keypoints`): ``keypoint_cards`` (K card codes),
  ``keypoints`` (uint8, K x the most bytes a card's keypoints take, as
  :func:`vision.card_keypoints.packed` gives them) and ``keypoint_bytes``
  (how many of each row's bytes are its card's);
* ``<name>.json``: the manifest (a human-readable summary: model, threshold,
  views per card, enrolled and missing cards, pairs too similar to tell
  apart, creation time; ``red_pips``: whether the deck prints its hearts' and
  diamonds' pip cards in red ink, when measured; ``keypoint_finder``: how its
  faces' keypoints were found, :data:`vision.card_keypoints.FINDER`: a
  profile whose keypoints were found otherwise is read without them).

Two folders are searched, in this order:

1. the user's decks, ``$TAROTMATE_DATA/decks`` when that variable is set,
   else ``$XDG_DATA_HOME/tarotmate/decks``, else
   ``~/.local/share/tarotmate/decks`` (what ``tarotmate enroll`` writes);
2. the decks shipped with Tarotmate, ``<models>/decks``.

A user deck therefore hides a shipped deck of the same name.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping

import numpy as np

from engine.cards import CODES
from engine.errors import TarotmateError
from vision.card_keypoints import FINDER, KEYPOINTS, ROW
from vision.model_files import models_dir

FORMAT = 1  # version of the files' layout, checked when reading
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class DeckProfileError(TarotmateError):
    """A deck profile that is missing, malformed, or built for another model."""


TEMPERATURE_BOUNDS = (0.001, 0.5)  # a deck's fitted temperature (cosine scores) outside them is a damaged profile


@dataclass(frozen=True)
class SimilarPair:
    """Two enrolled cards whose prototypes the model can hardly tell apart."""

    first: str
    second: str
    similarity: float

    def to_json(self) -> list:
        return [self.first, self.second, round(self.similarity, 4)]


@dataclass(frozen=True)
class DeckProfile:
    """The prototypes of one enrolled deck, and what is known about them.

    ``prototypes`` is a float32 ``(P, D)`` array of unit rows; ``labels[i]``
    is the card code of row ``i`` (a card may own several rows). A crop's
    embedding is multiplied by ``transform`` (the deck's metric, if any) and
    normalised; it is named by its most similar row when that similarity
    reaches ``threshold``, and rejected as unknown otherwise.
    """

    name: str
    prototypes: np.ndarray
    labels: tuple[str, ...]
    threshold: float
    model: str
    views: int = 1
    similar_pairs: tuple[SimilarPair, ...] = ()
    source: str = ""
    transform: np.ndarray | None = None  # (D, D): embeddings are multiplied by it, then compared
    temperature: float | None = None  # the softmax temperature of its confidences, fitted at enrollment (None: the default)
    # per card, the keypoints of its clean face (vision.card_keypoints.packed): what settles a crop of it at the table
    keypoints: Mapping[str, bytes] = field(default_factory=dict)
    # whether the deck prints its hearts' and diamonds' pip cards in red ink (vision.enroll.red_pips); None: not
    # known (a profile enrolled before it was measured)
    red_pips: bool | None = None
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))

    def __post_init__(self) -> None:
        check_name(self.name)
        if self.prototypes.ndim != 2 or len(self.prototypes) != len(self.labels):
            raise DeckProfileError(
                f"deck {self.name!r}: {len(self.labels)} labels for prototypes of shape {self.prototypes.shape}"
            )
        if self.transform is not None and self.transform.shape != (self.dimension, self.dimension):
            raise DeckProfileError(f"deck {self.name!r}: transform of shape {self.transform.shape} for {self.dimension}-d prototypes")
        unknown = sorted(set(self.labels) - set(CODES))
        if unknown:
            raise DeckProfileError(f"deck {self.name!r}: unknown card codes {', '.join(unknown)}")
        for code, blob in self.keypoints.items():
            if code not in self.labels or not isinstance(blob, bytes) or len(blob) % ROW or len(blob) > KEYPOINTS * ROW:
                raise DeckProfileError(f"deck {self.name!r}: malformed keypoints of {code!r}: enrol the deck again")
        if not (self.red_pips is None or isinstance(self.red_pips, bool)):
            raise DeckProfileError(f"deck {self.name!r}: red_pips of {self.red_pips!r} (expected true or false): "
                                   "enrol the deck again")
        low, high = TEMPERATURE_BOUNDS
        if self.temperature is not None and not low <= self.temperature <= high:  # NaN fails too
            raise DeckProfileError(f"deck {self.name!r}: a calibration temperature of {self.temperature} "
                                   f"(expected {low:g} to {high:g}): enrol the deck again")

    @property
    def cards(self) -> tuple[str, ...]:
        """The enrolled card codes, in canonical order."""
        have = set(self.labels)
        return tuple(c for c in CODES if c in have)

    @property
    def missing(self) -> tuple[str, ...]:
        """The card codes not enrolled, in canonical order."""
        have = set(self.labels)
        return tuple(c for c in CODES if c not in have)

    @property
    def dimension(self) -> int:
        return int(self.prototypes.shape[1])

    def manifest(self) -> dict:
        """The JSON manifest written beside the arrays."""
        return {
            "format": FORMAT,
            "name": self.name,
            "model": self.model,
            "threshold": round(float(self.threshold), 6),
            "views": self.views,
            "dimension": self.dimension,
            "metric": "cosine" if self.transform is None else "whitened cosine",
            "prototypes": len(self.labels),
            "cards": len(self.cards),
            "missing": list(self.missing),
            "similar_pairs": [p.to_json() for p in self.similar_pairs],
            "source": self.source,
            "created": self.created,
            **({} if self.temperature is None else {"temperature": round(float(self.temperature), 6)}),
            **({"keypoints": len(self.keypoints), "keypoint_finder": FINDER} if self.keypoints else {}),
            **({} if self.red_pips is None else {"red_pips": self.red_pips}),
        }


def check_name(name: str) -> str:
    """Return ``name`` if it can name a deck (it becomes a file name)."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise DeckProfileError(
            f"bad deck name {name!r}: use 1 to 64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def user_decks_dir() -> Path:
    """Where enrolled decks are written (see the module docstring)."""
    data = os.environ.get("TAROTMATE_DATA")
    if data:
        return Path(data).expanduser() / "decks"
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "tarotmate" / "decks"


def shipped_decks_dir() -> Path:
    """The profiles that ship with Tarotmate, beside the recognition model."""
    return Path(models_dir()) / "decks"


def search_path(decks_dir: Path | str | None = None) -> list[Path]:
    """The folders searched for a profile: ``decks_dir`` if given, else user then shipped."""
    if decks_dir is not None:
        return [Path(decks_dir)]
    return [user_decks_dir(), shipped_decks_dir()]


def _paths(folder: Path, name: str) -> tuple[Path, Path]:
    return folder / f"{name}.npz", folder / f"{name}.json"


def save_profile(profile: DeckProfile, folder: Path | str | None = None) -> Path:
    """Write ``profile`` into ``folder`` (default: the user's decks); return the manifest path.

    Both files are written beside their final names and then renamed, so an
    interrupted save never leaves half a profile.
    """
    folder = Path(folder) if folder is not None else user_decks_dir()
    folder.mkdir(parents=True, exist_ok=True)
    npz, manifest = _paths(folder, profile.name)
    tmp_npz = npz.with_name(npz.name + ".tmp.npz")
    tmp_manifest = manifest.with_name(manifest.name + ".tmp")
    with open(tmp_npz, "wb") as f:
        arrays = {"prototypes": profile.prototypes.astype(np.float16), "labels": np.array(profile.labels, dtype="U3")}
        if profile.transform is not None:
            arrays["transform"] = profile.transform.astype(np.float32)
        if profile.keypoints:
            arrays.update(keypoint_arrays(profile.keypoints))
        np.savez_compressed(f, **arrays)
    tmp_manifest.write_text(json.dumps(profile.manifest(), indent=2) + "\n", encoding="utf-8")
    os.replace(tmp_npz, npz)
    os.replace(tmp_manifest, manifest)
    return manifest


def keypoint_arrays(keypoints: Mapping[str, bytes]) -> dict[str, np.ndarray]:
    """A profile's cards' keypoints as its npz keeps them (see the module doc)."""
    codes = [c for c in CODES if c in keypoints]
    rows = np.zeros((len(codes), KEYPOINTS * ROW), np.uint8)
    for k, code in enumerate(codes):
        rows[k, : len(keypoints[code])] = np.frombuffer(keypoints[code], np.uint8)
    return {"keypoint_cards": np.array(codes, dtype="U3"), "keypoints": rows,
            "keypoint_bytes": np.array([len(keypoints[c]) for c in codes], np.int32)}


def kept_keypoints_of(data) -> dict[str, bytes]:
    """The cards' keypoints an npz keeps (:func:`keypoint_arrays`); none for a profile enrolled without.
    ``ValueError`` for arrays that do not fit together."""
    if "keypoints" not in data.files:
        return {}
    codes, rows, sizes = data["keypoint_cards"], data["keypoints"], data["keypoint_bytes"]
    if rows.dtype != np.uint8 or rows.ndim != 2 or len(rows) != len(codes) or sizes.shape != (len(codes),) \
            or np.any(sizes < 0) or np.any(sizes > rows.shape[1]):
        raise ValueError("keypoint arrays that do not fit together")
    return {str(c): rows[k, : int(n)].tobytes() for k, (c, n) in enumerate(zip(codes, sizes))}


def find_profile(name: str, decks_dir: Path | str | None = None) -> Path:
    """The manifest of deck ``name``: the first found along :func:`search_path`."""
    check_name(name)
    for folder in search_path(decks_dir):
        npz, manifest = _paths(folder, name)
        if manifest.is_file() and npz.is_file():
            return manifest
    known = ", ".join(p.name for p in list_profiles(decks_dir)) or "none"
    raise DeckProfileError(f"no deck profile named {name!r} (enrolled decks: {known})")


def read_manifest(path: Path | str) -> dict:
    path = Path(path)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DeckProfileError(f"cannot read deck manifest {path}: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise DeckProfileError(f"{path} is not a deck manifest of format {FORMAT}")
    return manifest


def load_profile(name: str, decks_dir: Path | str | None = None) -> DeckProfile:
    """Read deck ``name`` (see :func:`find_profile` for where it is looked for)."""
    manifest_path = find_profile(name, decks_dir)
    manifest = read_manifest(manifest_path)
    npz = manifest_path.with_suffix(".npz")
    try:
        with np.load(npz, allow_pickle=False) as data:
            prototypes = data["prototypes"].astype(np.float32)
            labels = tuple(str(x) for x in data["labels"])
            transform = data["transform"].astype(np.float32) if "transform" in data.files else None
            keypoints = kept_keypoints_of(data)
    except (OSError, KeyError, ValueError) as exc:
        raise DeckProfileError(f"cannot read deck profile {npz}: {exc}") from None
    if keypoints and not keypoints_current(manifest, manifest_path):
        keypoints = {}  # found by an older Tarotmate: they match nothing found now (the deck is named without them)
        logging.getLogger(__name__).warning(
            "deck %r: its faces' keypoints were found by an older Tarotmate and are set aside: "
            "enrol it again to settle its cards by them", name)
    try:
        return DeckProfile(
            name=manifest["name"],
            prototypes=prototypes,
            labels=labels,
            threshold=float(manifest["threshold"]),
            model=str(manifest["model"]),
            views=int(manifest.get("views", 1)),
            similar_pairs=tuple(SimilarPair(a, b, float(s)) for a, b, s in manifest.get("similar_pairs", [])),
            source=str(manifest.get("source", "")),
            transform=transform,
            created=str(manifest.get("created", "")),
            temperature=None if manifest.get("temperature") is None else float(manifest["temperature"]),
            keypoints=keypoints,
            red_pips=manifest.get("red_pips"),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise DeckProfileError(f"malformed deck manifest {manifest_path}: {exc}") from None


def keypoints_current(manifest: dict, path: Path | str = "") -> bool:
    """Whether the faces' keypoints a manifest speaks of were found as Tarotmate finds them now
    (``keypoint_finder``, :data:`vision.card_keypoints.FINDER`; a profile enrolled before it was written
    found them with the first). A damaged value is a :class:`DeckProfileError`."""
    finder = manifest.get("keypoint_finder", 1)
    if not isinstance(finder, int) or isinstance(finder, bool):
        raise DeckProfileError(f"malformed deck manifest {path}: keypoint_finder of {finder!r} "
                               "(expected a whole number): enrol the deck again")
    return finder == FINDER


@dataclass(frozen=True)
class ProfileEntry:
    """One profile found on disk, for listings."""

    name: str
    path: Path
    shipped: bool
    manifest: dict


def list_profiles(decks_dir: Path | str | None = None) -> list[ProfileEntry]:
    """Every readable profile along the search path, a hidden one (same name) left out."""
    folders = search_path(decks_dir)
    shipped = None if decks_dir is not None else folders[-1]
    seen: set[str] = set()
    entries = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for manifest_path in sorted(folder.glob("*.json")):
            name = manifest_path.stem
            if name in seen or not _NAME.match(name) or not manifest_path.with_suffix(".npz").is_file():
                continue
            try:
                manifest = read_manifest(manifest_path)
            except DeckProfileError:
                continue
            seen.add(name)
            entries.append(ProfileEntry(name, manifest_path, folder == shipped, manifest))
    return entries

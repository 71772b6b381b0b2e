"""What the table has learned of its deck by sight: a few proven views per card.

At a table Tarotmate sees the same deck all evening, and is told the right
name of many of those views: a player answers a question, a card entered by
hand is then seen, a card committed is never disputed until its trick is
swept and the deal scored. :class:`DeckMemory` keeps, per card, up to
``per_card`` embeddings of such views (the card model's L2-normalised
embedding of the crop), the most different ones: a new view that is nearly
the same as one already kept replaces nothing, and when a card is full the
view most like the others goes. Each view carries where its name came from
(``source``) and a ``ref`` that ties it to the table's record, so that a card
later undone or corrected takes its views with it (:meth:`DeckMemory.forget`).

It lives in a small SQLite file beside the deal log (WAL, every change
committed at once, so a ``kill -9`` or a power cut keeps what was learned
before it) and belongs to one card model (``model_id``): views of another
model's embeddings are never mixed in. Nothing leaves the device.
The same file keeps the table's gauge of how surely the card model reads the
deck (:class:`KeptReading`, :mod:`vision.deck_reading`), so that a restart
judges the deck as it was judged before.

:meth:`DeckMemory.similarity` gives, for each crop, each card's best cosine
to its kept views: what the namer fuses with the model's own probabilities
(:func:`fuse`, :class:`MemoryNamer`), or, on a deck the card model cannot
read, names the crop with alone (:func:`recall`, :class:`MemoryAlone`). There
each view's picture (:mod:`vision.card_picture`) is mixed in, and its
keypoints (:mod:`vision.card_keypoints`) settle a naming when the crop
matches one card's views in place and no other's (:meth:`DeckMemory.matched`,
:func:`verified`). The file notes how its keypoints were found
(``finder``, :data:`vision.card_keypoints.FINDER`): keypoints an older
Tarotmate found match nothing found now and are set aside when it is opened,
the views kept with their embeddings and pictures.
"""

from __future__ import annotations

import functools
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from engine.cards import CODES
from engine.errors import TarotmateError
from vision.calibration import fit_temperature, scaled
from vision.card_keypoints import (FINDER, KEYPOINTS_DIM, MATCHING, card_keypoint_blocks, keypoints_of, kept_keypoints,
                                   matches_in_place, matches_in_place_many, packed)
from vision.card_picture import PICTURE_DIM, card_pictures, picture_similarity
from vision.deck_reading import READ_WINDOW, DeckReading
from vision.votes import red_pip

SCHEMA_VERSION = 6  # 2: each view may keep the model's probabilities of it; 3: and its picture (vision.card_picture);
# 4: and its keypoints (vision.card_keypoints); 5: the places pairs of views match in (pairs); 6: and its red ink
# (vision.votes.red_ink)
MIN_CALIBRATION_VIEWS = 40  # views with probabilities before the memory calibrates its fused probabilities
# views kept before the memory weighs the namings at all: a fresh memory holding a few answers of the first deal
# would make the cards it has a view of surer than those it has none of, uncalibrated (docs/enrollment.md)
MIN_WEIGHING_VIEWS = MIN_CALIBRATION_VIEWS
PER_CARD = 8
# red_pips: the kept views of hearts' and diamonds' pip cards with their red ink measured before the memory says
# whether the deck prints them in red, and the share of them showing red ink that says it does
RED_VIEWS = 8
RED_SHARE = 0.8
SAME_VIEW = 0.995  # a new view this similar to one kept adds nothing
SOURCES = ("answer", "by_hand", "confirmed", "enrolled")
# the tracker's bars while the memory weighs the namings: it makes a card's twin in the other
# suit of its colour (CQ for SQ) surer as often as the card itself, also where the card model
# itself could not tell the two apart (docs/enrollment.md)
LEARNING_BARS = {"suit_margin": 5.0, "model_suit_margin": 2.0}
# on a deck the card model cannot read (vision.deck_reading), the memory names the cards alone (recall): each
# card weighs exp(ALONE_SHARPNESS · its best cosine), a card without a view at most as if its best cosine were
# UNSEEN_COSINE (about what a crop's best cosine to another card's views is; the cards without a view in the
# card model's order); the sharpness that fitted best
# views of a deck never trained on at the hard simulated table, played in docs/tracking.md ("Named by the
# memory alone")
ALONE_SHARPNESS = 40.0
UNSEEN_COSINE = 0.7
# ... where the memory keeps the views' pictures (vision.card_picture), what it names the crops with alone is
# PICTURE_MIX · the embeddings' cosine + (1 − PICTURE_MIX) · the pictures' (recall_similarity), and a card without a view
# weighs as if that were UNSEEN_MIXED (about what a crop's best such mix with another card's views is): chosen on
# views of the fine-art tarot at the hard simulated table, kept for what its evening measured (docs/tracking.md,
# "A card's picture")
PICTURE_MIX = 0.6
UNSEEN_MIXED = 0.6
# ... and "not a card face" weighs as a card would whose mix were PICTURE_FLOOR: a crop that resembles no kept view
# (a quad the card finder found across the pile: its best mix about 0.45, a card's own 0.6 or more) is not
# given to the card it is least unlike
PICTURE_FLOOR = 0.5
# a kept view counts in what the memory names alone only once another view of its card agrees with it (their mix
# at AGREE or more): a player answers a question about the card played, also when the question's quad lay off it
# (across the pile, between the chien's cards), and such a view, kept under that card's name, is like no view of it
AGREE = 0.6
# ... but it orders a question's candidates, counting UNAGREED less: a naming whose best card only such views put
# first is held under UNSURE_ORDER (asked, never committed), the cards' order kept
UNAGREED = 0.1
UNSURE_ORDER = 0.5
# where the views keep their keypoints (vision.card_keypoints), the memory checks what it names alone with them: the
# crop is matched in place with the best VERIFY_VIEWS views (by the mix) of each of the VERIFY_CARDS cards it is most
# like; a card one of whose views another view of it matches in PLACES_AGREE places or more (the same print seen
# twice: not an answer kept from a quad off the card) and that the crop matches in VERIFIED places or more beyond
# what that view shares with other cards' (its likeness: its most places matched with the views most like it of
# LIKENESS_CARDS other cards; a pip card shares its pips' places with its neighbours), no other card's views in more
# than VERIFIED_RATIO as many, is the crop's card at VERIFIED_SURE (another card, or a quad off the card, matches a
# few places: chosen on the fine-art tarot's views at the hard simulated table, docs/tracking.md "A card's keypoints")
VERIFY_CARDS = 5
VERIFY_VIEWS = 2
PLACES_AGREE = 12
LIKENESS_CARDS = 6
VERIFIED = 20
VERIFIED_RATIO = 0.5
VERIFIED_SURE = 0.999
# a card whose view most like the crop matches it in fewer places is not matched further (its other views seldom settle
# it: docs/tracking.md "What the keypoints cost"), unless another card's views reach VERIFIED
SCREEN = 8
CODE_INDEX = {code: i for i, code in enumerate(CODES)}  # a card's column in the similarities (CODES order)


class DeckMemoryError(TarotmateError):
    """A deck memory that cannot be used: another model's, a damaged file, a bad view."""


@dataclass(frozen=True)
class MemoryFootprint:
    """What a memory holds: its views, those the memory alone counts (agreed with, :func:`agreed`;
    every view where none keeps a picture), and the bytes it holds of them once read (embeddings,
    pictures, keypoints)."""

    views: int
    counted: int
    nbytes: int


@dataclass(frozen=True)
class CardMemory:
    """What the memory holds of one card: how many views, when learned, from what."""

    card: str
    views: int
    first: float
    last: float
    sources: dict[str, int]

    def to_json(self) -> dict:
        return {"card": self.card, "views": self.views, "first": self.first, "last": self.last, "sources": dict(self.sources)}


def card_memories(rows) -> list[CardMemory]:
    """(card, learned_at, source) rows of views -> one :class:`CardMemory` per card, in ``CODES`` order."""
    per: dict[str, list] = {}
    for card, when, source in rows:
        per.setdefault(card, []).append((when, source))
    out = []
    for code in CODES:
        if code in per:
            sources: dict[str, int] = {}
            for _, src in per[code]:
                sources[src] = sources.get(src, 0) + 1
            out.append(CardMemory(code, len(per[code]), min(w for w, _ in per[code]), max(w for w, _ in per[code]), sources))
    return out


class DeckMemory:
    """Up to ``per_card`` diverse, proven views per card of the deck in play (see the module doc)."""

    def __init__(self, path: Path | str, model_id: str, dimension: int, per_card: int = PER_CARD):
        if per_card < 1:
            raise ValueError("per_card must be at least 1")
        self.path = Path(path)
        self.model_id = model_id
        self.dimension = int(dimension)
        self.per_card = per_card
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(
                """
                CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS views (
                    id INTEGER PRIMARY KEY,
                    card TEXT NOT NULL,
                    embedding BLOB NOT NULL,
                    learned_at REAL NOT NULL,
                    source TEXT NOT NULL,
                    ref TEXT NOT NULL,
                    probs BLOB,
                    picture BLOB,
                    keypoints BLOB,
                    red REAL
                );
                CREATE INDEX IF NOT EXISTS views_card ON views (card);
                CREATE INDEX IF NOT EXISTS views_ref ON views (ref);
                CREATE TABLE IF NOT EXISTS readings (id INTEGER PRIMARY KEY, reading REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS pairs (
                    a INTEGER NOT NULL,
                    b INTEGER NOT NULL,
                    places INTEGER NOT NULL,
                    PRIMARY KEY (a, b)
                ) WITHOUT ROWID;
                """
            )
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(views)").fetchall()}
            if "probs" not in columns:  # a memory of schema 1: its views keep no probabilities
                with self._db:
                    self._db.execute("ALTER TABLE views ADD COLUMN probs BLOB")
            if "picture" not in columns:  # a memory of schema 1 or 2: its views keep no picture
                with self._db:
                    self._db.execute("ALTER TABLE views ADD COLUMN picture BLOB")
            if "keypoints" not in columns:  # a memory of schema 1 to 3: its views keep no keypoints
                with self._db:
                    self._db.execute("ALTER TABLE views ADD COLUMN keypoints BLOB")
            if "red" not in columns:  # a memory of schema 1 to 5: its views keep no red ink
                with self._db:
                    self._db.execute("ALTER TABLE views ADD COLUMN red REAL")
            meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
            if meta.get("finder") != str(FINDER):  # keypoints found otherwise (or none kept yet): set aside
                with self._db:  # (the views keep their embeddings and pictures; new views bring keypoints)
                    self._db.execute("UPDATE views SET keypoints = NULL WHERE keypoints IS NOT NULL")
                    self._db.execute("DELETE FROM pairs")
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES ('finder', ?)", (str(FINDER),))
            if meta.get("matching") != str(MATCHING):  # pairs matched otherwise (or none kept yet): matched again
                with self._db:
                    self._db.execute("DELETE FROM pairs")
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES ('matching', ?)", (str(MATCHING),))
        except sqlite3.DatabaseError as exc:
            raise DeckMemoryError(f"the deck memory {self.path} cannot be read ({exc}); "
                                  f"'tarotmate deck memory --reset' starts a new one") from exc
        if not meta:
            with self._db:
                self._db.executemany("INSERT INTO meta VALUES (?, ?)", [
                    ("schema", str(SCHEMA_VERSION)), ("model", model_id), ("dimension", str(self.dimension))])
        elif meta.get("model") != model_id or int(meta.get("dimension", -1)) != self.dimension:
            # another card model: its embeddings mean nothing to this one
            self._clear()
            with self._db:
                self._db.execute("UPDATE meta SET value = ? WHERE key = 'model'", (model_id,))
                self._db.execute("UPDATE meta SET value = ? WHERE key = 'dimension'", (str(self.dimension),))
        self._cache: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self._groups: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # the views card by card (card_groups)
        self._keypoints: list | None = None  # each kept view's keypoints (vision.card_keypoints.keypoints_of), read when needed
        self._places_agreed: dict[int, np.ndarray] = {}  # per card: whether another view of it matches each of its views
        self._likeness: dict[tuple[int, int], int] = {}  # per kept view (and others): its most places matched with other cards' views
        self._partners: dict[int, list[list[int]]] = {}  # per count of other cards: the views each view's likeness is matched with
        self._ids: np.ndarray | None = None  # each kept view's row id, in the order of _kept
        # the places two kept views match in (matches_in_place of the first with the second), by their row ids, matched
        # since they were last kept in the file's pairs (_keep_pairs): what the likenesses and agreements are found
        # from, each pair matched once, also across restarts
        self._unsaved: dict[tuple[int, int], int] = {}
        self._dropped: list[int] = []  # the row ids of the views a learning dropped (its card held too many)
        self._temperature: tuple | None = None  # (weights, temperature) fitted on the views kept
        self._red_inks: np.ndarray | None = None  # the red ink of the kept views of red pip cards measured (red_pips)

    # ---------------------------------------------------------------- learning

    def learn(self, card: str, embedding: np.ndarray, source: str, ref: str, when: float | None = None,
              probs: np.ndarray | None = None, red: float | None = None) -> bool:
        """Keep a view of ``card`` whose name is proven (``source``: one of :data:`SOURCES`):
        ``embedding``, the card model's embedding of the crop, or that followed by the crop's
        picture and maybe its keypoints (a :class:`MemoryNamer`'s views, :func:`view_of`; one with
        no picture is not kept);
        ``ref`` ties it to the table's record; ``probs``: the card model's own probabilities of the
        view, when known (what :meth:`temperature` calibrates on); ``red``: how red its ink is
        (:func:`vision.votes.red_ink`, what :meth:`red_pips` reads), when measured. Returns whether
        the memory changed. Committed at once (one transaction, one sync to disk)."""
        self._dropped = []
        with self._transaction():
            changed = self._learn(card, embedding, source, ref, when, probs, red)
        if changed:
            self._changed({card})
        return changed

    def learn_many(self, views: Sequence[tuple], source: str) -> int:
        """:meth:`learn` for each ``(card, embedding, ref, probs)`` or ``(card, embedding, ref, probs, red)``
        of ``views``, in one transaction:
        all kept or none (a deal's confirmed cards, learned when it is scored, cost one sync to
        disk instead of one each). How many views the memory kept. A bad view raises
        :class:`DeckMemoryError` and keeps none of them."""
        kept, cards = 0, set()
        self._dropped = []
        with self._transaction():
            for card, embedding, ref, probs, *red in views:
                if self._learn(card, embedding, source, ref, None, probs, red[0] if red else None):
                    kept += 1
                    cards.add(card)
        if kept:
            self._changed(cards)
        return kept

    @contextmanager
    def _transaction(self):
        """One transaction (the connection commits each statement on its own otherwise): the
        statements inside are all kept, or none when one fails."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _learn(self, card: str, embedding: np.ndarray, source: str, ref: str, when: float | None,
               probs: np.ndarray | None, red: float | None = None) -> bool:
        """:meth:`learn` inside the caller's transaction."""
        if card not in CODES:
            raise DeckMemoryError(f"not a card: {card!r}")
        if red is not None and not np.isfinite(red):
            raise DeckMemoryError(f"a view's red ink must be a finite number, not {red!r}")
        if source not in SOURCES:
            raise DeckMemoryError(f"unknown source {source!r} (one of {', '.join(SOURCES)})")
        v = np.asarray(embedding, np.float32).reshape(-1)
        with_picture = self.dimension + PICTURE_DIM
        if v.shape[0] not in (self.dimension, with_picture, with_picture + KEYPOINTS_DIM) or not np.all(np.isfinite(v)):
            raise DeckMemoryError(f"a view must be a finite {self.dimension}-value embedding "
                                  f"(or {with_picture} with its picture, {with_picture + KEYPOINTS_DIM} and its keypoints)")
        e, picture, keypoints = v[: self.dimension], v[self.dimension: with_picture], v[with_picture:]
        if float(np.linalg.norm(e)) < 1e-6:
            raise DeckMemoryError(f"a view must be a finite {self.dimension}-value embedding")
        e = e / np.linalg.norm(e)
        if len(picture) and float(np.linalg.norm(picture)) <= 1e-6:
            return False  # a view with no picture (all of one colour, vision.card_picture.FLAT): no card's view
        picture = picture / np.linalg.norm(picture) if len(picture) else None
        if probs is not None:
            probs = np.asarray(probs, np.float32).reshape(-1)
            if len(probs) < len(CODES) or not np.all(np.isfinite(probs)) or probs.min() < 0 \
                    or abs(float(probs.sum()) - 1.0) > 1e-3:
                raise DeckMemoryError("a view's probabilities must be finite, at least 78, and sum to 1")
        rows = self._db.execute("SELECT id, embedding, picture FROM views WHERE card = ? ORDER BY id", (card,)).fetchall()
        kept = np.array([np.frombuffer(b, np.float32) for _, b, _ in rows]).reshape(len(rows), self.dimension)
        pics, has = pictures_of([pic for _, _, pic in rows] + [None if picture is None else picture.tobytes()])
        every = np.vstack([kept, e[None]])
        sim = every @ every.T
        mixed = mixed_similarity(sim, pics, pics)
        if picture is not None and has[:-1].any():  # views with pictures: the same view in both
            sim = np.where(has[:, None] & has[None, :], mixed, sim)
        np.fill_diagonal(sim, -1.0)
        if len(rows) and float(sim[-1, :-1].max()) >= SAME_VIEW:
            return False  # the same view again
        drop = None
        if len(rows) >= self.per_card:
            # a kept view that no other view of the card agrees with goes first (the oldest: kept under
            # this name from a quad that lay off the card), else the most redundant of the kept views and
            # the new one: the one most like the others
            lonely = np.flatnonzero(~agreement(mixed, has)[:-1]) if has.any() else []
            if len(lonely):
                drop = rows[int(lonely[0])][0]
            else:
                worst = int(np.argmax(sim.max(1)))
                if worst == len(rows):
                    return False  # the new view is the most redundant: nothing gained
                drop = rows[worst][0]
        if drop is not None:
            self._db.execute("DELETE FROM views WHERE id = ?", (drop,))
            self._db.execute("DELETE FROM pairs WHERE a = ? OR b = ?", (drop, drop))
            self._dropped.append(int(drop))  # its row id may be given to the view kept now
        self._db.execute("INSERT INTO views (card, embedding, learned_at, source, ref, probs, picture, keypoints, red) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (card, e.astype(np.float32).tobytes(), time.time() if when is None else when, source, ref,
                          None if probs is None else probs.tobytes(),
                          None if picture is None else picture.astype(np.float16).tobytes(),
                          (packed(keypoints) or None) if len(keypoints) else None,
                          None if red is None else float(red)))
        return True

    def forget(self, ref: str) -> int:
        """Remove the views learned under ``ref`` (a card undone or corrected); how many went."""
        return self._forget("ref = ?", (ref,))

    def forget_prefix(self, prefix: str) -> int:
        """Remove the views whose ``ref`` starts with ``prefix`` (a whole deal undone)."""
        return self._forget("substr(ref, 1, ?) = ?", (len(prefix), prefix))

    def _forget(self, where: str, args: tuple) -> int:
        """Remove the views ``where`` says, and the places their pairs match in, in one transaction."""
        with self._transaction():
            gone = self._db.execute(f"SELECT id, card FROM views WHERE {where}", args).fetchall()
            n = self._db.execute(f"DELETE FROM views WHERE {where}", args).rowcount
            self._db.executemany("DELETE FROM pairs WHERE a = ? OR b = ?", [(i, i) for i, _ in gone])
        self._dropped = [int(i) for i, _ in gone]
        self._changed({card for _, card in gone})
        return n

    def reset(self) -> int:
        """Forget everything; how many views went."""
        n = self._clear()
        self._changed()
        return n

    def _clear(self) -> int:
        with self._transaction():
            self._db.execute("DELETE FROM readings")  # another deck, or another model: judged afresh
            self._db.execute("DELETE FROM pairs")
            return self._db.execute("DELETE FROM views").rowcount

    # ---------------------------------------------------------------- the deck's reading gauge

    def readings(self, latest: int = READ_WINDOW) -> list[float]:
        """The latest ``latest`` cards' readings kept (:mod:`vision.deck_reading`), oldest first."""
        rows = self._db.execute("SELECT reading FROM readings ORDER BY id DESC LIMIT ?", (max(0, latest),)).fetchall()
        return [float(r) for (r,) in reversed(rows)]

    def forget_readings(self) -> None:
        """The gauge judges the deck afresh (another deck on the table)."""
        with self._db:
            self._db.execute("DELETE FROM readings")

    def add_reading(self, reading: float, keep: int = READ_WINDOW) -> None:
        """A card decided, its best view read this surely: kept, with the latest ``keep`` before it."""
        with self._transaction():
            cur = self._db.execute("INSERT INTO readings (reading) VALUES (?)", (float(reading),))
            self._db.execute("DELETE FROM readings WHERE id <= ?", (cur.lastrowid - max(1, keep),))

    def _changed(self, cards: set[str] | None = None) -> None:
        """The views changed (those of ``cards`` only, when given: views learned): what was derived
        from them is read again when needed. A card's agreement in place depends on its own views
        alone, and is kept for the other cards. The places two views match in are kept, but for the
        views dropped or forgotten (:attr:`_dropped`: their row ids may be given again), or all when
        every view may have changed (``cards`` None)."""
        self._cache = None
        self._groups = None
        self._keypoints = None
        self._ids = None
        self._red_inks = None
        if cards is None:
            self._places_agreed = {}
            self._unsaved = {}
        else:
            for card in cards:
                self._places_agreed.pop(CODE_INDEX[card], None)
            if self._dropped:
                gone = set(self._dropped)
                self._unsaved = {ab: n for ab, n in self._unsaved.items() if ab[0] not in gone and ab[1] not in gone}
        self._dropped = []
        self._likeness = {}
        self._partners = {}
        self._temperature = None

    # ---------------------------------------------------------------- reading

    def _views(self) -> tuple[np.ndarray, np.ndarray]:
        """Each kept view's card (its index in ``CODES``) and embedding, in the order kept."""
        cards, emb, _, _, _ = self._kept()
        return cards, emb

    def _kept(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_views`, each view's picture (zeros where none was kept), whether it has one, and whether
        another view of its card agrees with it (:func:`agreed`)."""
        if self._cache is None:
            rows = self._db.execute("SELECT id, card, embedding, picture FROM views ORDER BY id").fetchall()
            self._ids = np.array([i for i, _, _, _ in rows], np.int64)
            cards = np.array([CODE_INDEX[c] for _, c, _, _ in rows], np.int64)
            emb = np.array([np.frombuffer(b, np.float32) for _, _, b, _ in rows], np.float32).reshape(len(rows), self.dimension)
            pictures, has = pictures_of([pic for _, _, _, pic in rows])
            pictures = pictures.astype(np.float16)  # half the room: a cosine's third decimal
            self._cache = (cards, emb, pictures, has, agreed(cards, emb, pictures))
        return self._cache

    def _best_per_card(self, sim: np.ndarray) -> np.ndarray:
        """:func:`best_per_card` of ``sim`` (crops x the kept views, in :meth:`_kept`'s order), the views
        grouped card by card once after each change."""
        cards = self._kept()[0]
        if self._groups is None:
            self._groups = card_groups(cards)
        return best_per_card(sim, cards, self._groups)

    def _embeddings(self, views: np.ndarray) -> np.ndarray:
        """The unit embeddings of ``views`` (embeddings, or views with their pictures: :func:`view_of`)."""
        x = np.asarray(views, np.float32)
        x = x.reshape(len(x), -1)[:, : self.dimension]
        return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)

    def similarity(self, embeddings: np.ndarray) -> np.ndarray:
        """(N, 78): each crop's best cosine to each card's kept views, in ``engine.cards.CODES``
        order; -1 for a card the memory has no view of. ``embeddings``: the crops' embeddings, or
        their views with pictures (only the embeddings are read)."""
        _, emb = self._views()
        return self._best_per_card(self._embeddings(embeddings) @ emb.T)

    def recall_similarity(self, views: np.ndarray, mix: float = PICTURE_MIX) -> np.ndarray:
        """(N, 78): as :meth:`similarity`, for what the memory names the crops with alone
        (:class:`MemoryAlone`). Where the memory keeps pictures and ``views`` carry them
        (:func:`view_of`), each kept view counts ``mix`` · the embeddings' cosine + (1 − ``mix``) ·
        the pictures' (:func:`vision.card_picture.picture_similarity`, either way up; 0 where either
        has no picture), and only the views another view of their card agrees with
        (:func:`agreed`): a card none of whose views is agreed with is one without a view (-1).
        Else the embeddings' cosine alone, every view."""
        return self.recall_similarities(views, mix)[0]

    def recall_similarities(self, views: np.ndarray, mix: float = PICTURE_MIX,
                            unagreed: float = UNAGREED) -> tuple[np.ndarray, np.ndarray | None]:
        """:meth:`recall_similarity`, and from the same comparison, where it mixes the pictures in,
        the same with the views not agreed with counting too, ``unagreed`` less (what orders a
        question's candidates: :func:`held_order`); None there where it does not mix them."""
        named, ordering, _ = self._recall(views, mix, unagreed, verify=False)
        return named, ordering

    def recall_evidence(self, views: np.ndarray, mix: float = PICTURE_MIX, unagreed: float = UNAGREED
                        ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """:meth:`recall_similarities`, and from the same comparison, where the views carry their
        keypoints (:func:`view_of`), each crop's matches in place with the cards it is most like
        (:meth:`matched`: with the views agreed with in place, and with any); None there otherwise."""
        return self._recall(views, mix, unagreed, verify=True)

    def keypoint_matches(self, views: np.ndarray, mix: float = PICTURE_MIX) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`matched` for views with their pictures and keypoints (:func:`view_of`), the cards
        each is most like by the mix; None where the views or the memory keep no pictures or
        keypoints."""
        x = np.asarray(views, np.float32)
        x = x.reshape(len(x), -1)
        return self._keypoints_matched(x, self._mixed(x, mix))

    def _keypoints_matched(self, x: np.ndarray, mixed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`matched` for the crops' views ``x`` (a row each) and their ``mixed`` similarity with
        each kept view (:meth:`_mixed`); None where that is None or the views carry no keypoints."""
        if mixed is None or x.shape[1] != self.dimension + PICTURE_DIM + KEYPOINTS_DIM:
            return None
        return self.matched(x[:, self.dimension + PICTURE_DIM:], mixed)

    def _mixed(self, x: np.ndarray, mix: float) -> np.ndarray | None:
        """Each crop's :func:`mixed_similarity` with each kept view (``x``: the crops' views, a row
        each); None where the views or the memory keep no pictures."""
        _, emb, pictures, has, _ = self._kept()
        with_picture = self.dimension + PICTURE_DIM
        if x.shape[1] not in (with_picture, with_picture + KEYPOINTS_DIM) or not has.any():
            return None
        return mixed_similarity(self._embeddings(x) @ emb.T, x[:, self.dimension: with_picture], pictures, mix)

    def _recall(self, views: np.ndarray, mix: float, unagreed: float, verify: bool):
        cards, emb, _, _, trusted = self._kept()
        x = np.asarray(views, np.float32)
        x = x.reshape(len(x), -1)
        sim = self._mixed(x, mix)
        if sim is None:
            return self._best_per_card(self._embeddings(x) @ emb.T), None, None
        matches = self._keypoints_matched(x, sim) if verify else None
        ordering = sim.copy()
        ordering[:, ~trusted] -= unagreed
        sim[:, ~trusted] = -1.0
        return self._best_per_card(sim), self._best_per_card(ordering), matches

    def matched(self, blocks: np.ndarray, mixed: np.ndarray, per_crop: int = VERIFY_CARDS, per_card: int = VERIFY_VIEWS,
                screen: int = SCREEN) -> tuple[np.ndarray, np.ndarray]:
        """Two (N, 78) arrays: in how many places each crop (its keypoints, ``blocks``) matches the best
        of the ``per_card`` kept views it is most like (``mixed``: its mix with each kept view, in
        :meth:`_kept`'s order) of each of the ``per_crop`` cards it is most like
        (:func:`vision.card_keypoints.matches_in_place`): among the views agreed with in place
        (:meth:`places_agreed`), beyond each view's :meth:`likeness` to other cards, and among all
        views, as matched; -1 for the cards not checked.

        The views are matched in two steps, the cost of a crop no card's views settle kept low: first
        each card's view most like the crop; then the others of the cards whose first matched it in
        ``screen`` places or more; and once a card's count reaches :data:`VERIFIED`, every card's (what
        :func:`verified` weighs that card against). A card whose first view matched fewer is given the
        counts of that view alone (-1 among the views agreed with where it is not one)."""
        kept = self._kept_keypoints()
        cards = self._kept()[0]
        agreed_out = np.full((len(blocks), len(CODES)), -1, np.int32)
        any_out = agreed_out.copy()
        bests = self._best_per_card(mixed)

        def match(query, counts: dict[int, int], views) -> None:  # the views not matched yet, at once
            new = [v for v in dict.fromkeys(int(v) for v in views) if v not in counts]
            if new:
                counts.update(zip(new, matches_in_place_many(query, [kept[v] for v in new])))

        def outcome(counts: dict[int, int], first, trusted) -> tuple[int, int]:  # a card's two counts, as matched
            seen = [v for v in trusted if v in counts]
            return (max(max(0, counts[v] - self.likeness(v)) for v in seen) if seen else -1,
                    max(counts[v] for v in first if v in counts))

        for k, block in enumerate(blocks):
            query = keypoints_of(block)
            if len(query[0]) == 0:
                continue
            best = bests[k]
            checked = []  # each card checked: its column, its views most like the crop, those agreed with
            for j in np.argsort(-best)[:per_crop]:
                if best[j] < -0.5:
                    break  # no view of that card, nor of those after it
                idx = np.flatnonzero(cards == j)
                order = np.argsort(-mixed[k, idx])
                checked.append((j, idx[order][:per_card], idx[order][self.places_agreed(j, cards)[order]][:per_card]))
            counts: dict[int, int] = {}
            match(query, counts, (first[0] for _, first, _ in checked))
            match(query, counts, (v for _, first, trusted in checked if counts[first[0]] >= screen
                                  for v in (*first, *trusted)))
            if any(max(outcome(counts, first, trusted)) >= VERIFIED for _, first, trusted in checked):
                match(query, counts, (v for _, first, trusted in checked for v in (*first, *trusted)))
            for j, first, trusted in checked:
                agreed_out[k, j], any_out[k, j] = outcome(counts, first, trusted)
        return agreed_out, any_out

    def likeness(self, view: int, others: int = LIKENESS_CARDS) -> int:
        """In how many places the kept view ``view`` (its index in :meth:`_kept`'s order) matches, at
        most, the views most like it (by the mix) of ``others`` other cards: what a crop of another
        card may match it in by the deck's own print (a pip card's pips lie where its neighbours'
        do; a painting's own strokes nowhere else)."""
        if (view, others) not in self._likeness:
            self._likeness[view, others] = max((self._pair(view, w) for w in self._most_like(others)[view]), default=0)
        return self._likeness[view, others]

    def _most_like(self, others: int) -> list[list[int]]:
        """For each kept view, the view most like it (by the mix) of each of the ``others`` other cards
        whose views are most like it, most like first: the views its :meth:`likeness` is matched with.
        Found for all the views at once (one product of the views with themselves, in blocks)."""
        if others not in self._partners:
            cards, emb, pictures, _, _ = self._kept()
            out: list[list[int]] = []
            for start in range(0, len(cards), 256):
                block = slice(start, min(len(cards), start + 256))
                mixed = mixed_similarity(emb[block] @ emb.T, pictures[block], pictures)
                mixed[cards[block, None] == cards[None, :]] = -np.inf
                for row in mixed:
                    chosen: dict[int, int] = {}
                    for w in np.argsort(-row):
                        if len(chosen) >= others or not np.isfinite(row[w]):
                            break
                        chosen.setdefault(int(cards[w]), int(w))
                    out.append(list(chosen.values()))
            self._partners[others] = out
        return self._partners[others]

    def places_agreed(self, card: int, cards: np.ndarray, bar: int = PLACES_AGREE) -> np.ndarray:
        """For each kept view of ``card`` (its index in ``CODES``; ``cards``: each kept view's, in
        :meth:`_kept`'s order), whether another view of it matches it in ``bar`` places or more
        (:func:`vision.card_keypoints.matches_in_place`): the same print seen twice, where a view
        kept under the card's name from a quad off it is like none."""
        card = int(card)
        if card not in self._places_agreed:
            idx = np.flatnonzero(cards == card)
            out = np.zeros(len(idx), bool)
            for a in range(len(idx)):
                for b in range(a + 1, len(idx)):
                    if (not out[a] or not out[b]) and self._pair(idx[a], idx[b]) >= bar:
                        out[a] = out[b] = True
            self._places_agreed[card] = out
        return self._places_agreed[card]

    def derive(self) -> int:
        """Find now what the keypoints' checks read of the views (each view's :meth:`likeness`, each
        card's :meth:`places_agreed`), which the namings otherwise find as they first need them, and
        keep the places the pairs of views matched in; how many pairs were matched for it (none
        matched before, also before a restart). What a table does when it opens its memory and when
        a deal is scored, before the next cards are laid."""
        before = len(self._unsaved)  # matched as the namings needed them, since they were last kept
        cards = self._kept()[0]
        if any(len(k[0]) for k in self._kept_keypoints()):
            for view in range(len(cards)):
                self.likeness(view)
            for card in np.unique(cards):
                self.places_agreed(card, cards)
        matched = len(self._unsaved) - before
        self._keep_pairs()
        return matched

    def _pair(self, a: int, b: int) -> int:
        """In how many places the kept views ``a`` and ``b`` (their indexes in :meth:`_kept`'s order)
        match (:func:`vision.card_keypoints.matches_in_place` of ``a`` with ``b``), matched once and
        kept while both views are (in the file's pairs once :meth:`_keep_pairs` wrote them)."""
        self._kept()
        key = (int(self._ids[a]), int(self._ids[b]))
        if key in self._unsaved:
            return self._unsaved[key]
        row = self._db.execute("SELECT places FROM pairs WHERE a = ? AND b = ?", key).fetchone()
        if row is not None:
            return int(row[0])
        kept = self._kept_keypoints()
        self._unsaved[key] = places = matches_in_place(kept[a], kept[b])
        return places

    def _keep_pairs(self) -> None:
        """Write the pairs matched since last time into the file, in one transaction (a memory that
        cannot be written keeps them in memory: they are found again, never wrong)."""
        if not self._unsaved:
            return
        try:
            with self._transaction():
                self._db.executemany("INSERT OR REPLACE INTO pairs VALUES (?, ?, ?)",
                                     [(a, b, n) for (a, b), n in self._unsaved.items()])
        except sqlite3.Error:
            return
        self._unsaved = {}

    def _kept_keypoints(self) -> list:
        """Each kept view's keypoints (:func:`vision.card_keypoints.kept_keypoints`; none for a view kept
        without), in the order of :meth:`_kept`."""
        if self._keypoints is None:
            rows = self._db.execute("SELECT keypoints FROM views ORDER BY id").fetchall()
            self._keypoints = [kept_keypoints(blob) for (blob,) in rows]
        return self._keypoints

    def red_pips(self, bar: float) -> bool | None:
        """Whether the deck in play prints its hearts' and diamonds' pip cards in red ink, as its kept
        views of them show (their red ink, :func:`vision.votes.red_ink`, measured where learned): at
        least :data:`RED_SHARE` of them show ``bar`` or more. None while fewer than :data:`RED_VIEWS`
        such views are kept. A deck printed so shows it on nearly every view (the built-in deck's and
        the tarock's red pip cards 8-50 at the hard table); a deck printing its Cups and Coins in other
        colours on half of them (docs/tracking.md, "A deck whose red suits are not red")."""
        if self._red_inks is None:
            rows = self._db.execute("SELECT card, red FROM views WHERE red IS NOT NULL").fetchall()
            self._red_inks = np.array([red for card, red in rows if red_pip(card)], np.float64)
        if len(self._red_inks) < RED_VIEWS:
            return None
        return bool(np.mean(self._red_inks >= bar) >= RED_SHARE)

    def temperature(self, labels: Sequence[str], sharpness: float = 20.0, floor: float = 0.6) -> float:
        """The temperature that makes the fused probabilities (:func:`fuse` with these weights) mean
        what they say on this table's deck, fitted on the memory's own proven views: each view with
        the model's probabilities is named by the others (leave one out) and the temperature of
        least negative log-likelihood is kept. 1 until :data:`MIN_CALIBRATION_VIEWS` such views of
        two cards or more are kept."""
        key = (tuple(labels), float(sharpness), float(floor))
        if self._temperature is not None and self._temperature[0] == key:
            return self._temperature[1]
        t = 1.0
        mine, probs, truth = self._proven(labels)
        if len(mine) >= MIN_CALIBRATION_VIEWS and len(set(truth.tolist())) >= 2:
            cards, emb = self._views()
            sim = emb[mine] @ emb.T
            sim[np.arange(len(mine)), mine] = -1.0  # a view is not its own evidence
            t = fit_temperature(fuse(probs, self._best_per_card(sim), labels, sharpness, floor), truth)
        self._temperature = (key, t)
        return t

    def _proven(self, labels: Sequence[str]) -> tuple[list[int], np.ndarray, np.ndarray]:
        """The views kept with the model's probabilities (over ``labels``): their rows in
        :meth:`_views`' order, those probabilities, and their names as indices of ``labels``."""
        rows = self._db.execute("SELECT card, probs FROM views ORDER BY id").fetchall()  # the order of _views
        index = {c: i for i, c in enumerate(labels)}
        mine = [k for k, (card, p) in enumerate(rows) if p is not None and len(p) == 4 * len(labels) and card in index]
        probs = np.array([np.frombuffer(rows[k][1], np.float32) for k in mine], np.float32).reshape(len(mine), len(labels))
        truth = np.array([index[rows[k][0]] for k in mine], np.int64)
        return mine, probs, truth

    def proven_views(self, labels: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(probabilities, embeddings, names) of the views kept with the model's probabilities of
        them: the model's probabilities over ``labels``, the L2-normalised embeddings, and each
        view's proven name as an index of ``labels`` (what :func:`vision.memory_head.fit_head` takes)."""
        mine, probs, truth = self._proven(labels)
        _, emb = self._views()
        return probs, emb[mine], truth

    def footprint(self) -> MemoryFootprint:
        """What the memory holds (:class:`MemoryFootprint`), its views read."""
        cards, emb, pictures, has, trusted = self._kept()
        keypoints = sum(places.nbytes + desc.nbytes for places, desc in self._kept_keypoints())
        pictured = bool(has.any())
        return MemoryFootprint(len(cards), int(trusted.sum()) if pictured else len(cards),
                               emb.nbytes + (pictures.nbytes if pictured else 0) + keypoints)

    def keeps_pictures(self) -> bool:
        """Whether any kept view has its picture (what :meth:`recall_similarity` mixes in)."""
        return bool(self._kept()[3].any())

    def known_cards(self) -> tuple[str, ...]:
        """The cards with at least one view, in ``CODES`` order."""
        cards, _ = self._views()
        return tuple(CODES[j] for j in sorted(set(cards.tolist())))

    def cards(self) -> list[CardMemory]:
        """What is kept of each known card (``CODES`` order)."""
        return card_memories(self._db.execute("SELECT card, learned_at, source FROM views").fetchall())

    def views_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM views").fetchone()[0])

    def close(self) -> None:
        self._keep_pairs()
        self._db.close()

    def __enter__(self) -> "DeckMemory":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def card_columns(labels: Sequence[str]) -> list[int]:
    """Each label's column in ``CODES`` order (the similarity's), -1 for one that is no card (``unknown``)."""
    return [CODE_INDEX.get(lab, -1) for lab in labels]


def label_cards(labels: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The labels that are cards (their indexes) and those cards' columns in ``CODES`` order
    (:func:`card_columns`), found once for a namer's labels: what a crop's namings are weighed with."""
    return _label_cards(tuple(labels))


@functools.lru_cache(maxsize=8)
def _label_cards(labels: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    cols = np.array(card_columns(labels), np.int64)
    ks = np.flatnonzero(cols >= 0)
    ks.flags.writeable = False
    js = cols[ks]
    js.flags.writeable = False
    return ks, js


def pictures_of(blobs: Sequence[bytes | None]) -> tuple[np.ndarray, np.ndarray]:
    """The kept views' pictures as stored (a blob of :data:`PICTURE_DIM` float16, or float32 as
    schema 3 kept them, or None): an (N, PICTURE_DIM) float32 array, zeros where a view has none,
    and whether each has one."""
    kinds = {2 * PICTURE_DIM: np.float16, 4 * PICTURE_DIM: np.float32}
    has = np.array([b is not None and len(b) in kinds for b in blobs], bool)
    pictures = np.zeros((len(blobs), PICTURE_DIM), np.float32)
    for k in np.flatnonzero(has):
        pictures[k] = np.frombuffer(blobs[k], kinds[len(blobs[k])])
    return pictures, has


def mixed_similarity(cosines: np.ndarray, pictures: np.ndarray, kept: np.ndarray, mix: float = PICTURE_MIX) -> np.ndarray:
    """``mix`` · the embeddings' ``cosines`` + (1 − ``mix``) · the pictures' cosines
    (:func:`vision.card_picture.picture_similarity`, either way up; 0 where either has none)."""
    return mix * cosines + (1.0 - mix) * picture_similarity(pictures, kept)


def agreement(mixed: np.ndarray, has: np.ndarray, bar: float = AGREE) -> np.ndarray:
    """For views of one card (their :func:`mixed_similarity` with each other, whether each has a
    picture), whether another of them is like each at ``bar`` or more; a view with no picture is
    agreed with by none."""
    sim = np.where(has[:, None] & has[None, :], mixed, -1.0)
    np.fill_diagonal(sim, -1.0)
    return sim.max(1) >= bar if len(sim) > 1 else np.zeros(len(sim), bool)


def agreed(cards: np.ndarray, embeddings: np.ndarray, pictures: np.ndarray, mix: float = PICTURE_MIX,
           bar: float = AGREE) -> np.ndarray:
    """For each kept view (its card's index, unit embedding and picture, zeros for none), whether
    another view of the same card agrees with it (:func:`agreement`)."""
    out = np.zeros(len(cards), bool)
    has = np.linalg.norm(pictures, axis=1) > 1e-6
    for j in np.unique(cards):
        idx = np.flatnonzero(cards == j)
        if len(idx) >= 2:
            e = embeddings[idx]
            out[idx] = agreement(mixed_similarity(e @ e.T, pictures[idx], pictures[idx], mix), has[idx], bar)
    return out


def best_per_card(sim: np.ndarray, cards: np.ndarray, groups: tuple | None = None) -> np.ndarray:
    """(N, 78): per row of ``sim`` (N crops x kept views), each card's best cosine to its views
    (``cards``: each view's index in ``CODES``; ``groups``: their :func:`card_groups`, when found
    already), in ``CODES`` order; -1 for a card without views."""
    out = np.full((len(sim), len(CODES)), -1.0, np.float32)
    if len(cards) == 0 or len(sim) == 0:
        return out
    order, starts, columns = card_groups(cards) if groups is None else groups
    out[:, columns] = np.maximum.reduceat(np.asarray(sim)[:, order], starts, axis=1)
    return out


def card_groups(cards: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The views card by card (``cards``: each view's index in ``CODES``): the views' order, where
    each card's views start in it, and those cards' columns (what :func:`best_per_card` reduces by)."""
    cards = np.asarray(cards)
    order = np.argsort(cards, kind="stable")
    grouped = cards[order]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]]) if len(cards) else np.zeros(0, np.int64)
    return order, starts, grouped[starts]


def fuse(probs: np.ndarray, similarity: np.ndarray, labels: Sequence[str], sharpness: float = 20.0, floor: float = 0.6) -> np.ndarray:
    """The model's probabilities (``labels`` order, ``unknown`` included) times the memory's
    evidence, renormalised: a card whose kept views the crop resembles (cosine above ``floor``)
    gains ``exp(sharpness · (cosine − floor))``; cards without views, and ``unknown``, keep
    their weight. With an empty memory this is ``probs`` unchanged."""
    p = np.asarray(probs, np.float64).copy()
    ks, js = label_cards(labels)
    s = np.asarray(similarity)[:, js].astype(np.float64)
    p[:, ks] *= np.where(s > floor, np.exp(sharpness * (s - floor)), 1.0)
    return (p / p.sum(1, keepdims=True)).astype(np.float32)


def recall(probs: np.ndarray, similarity: np.ndarray, labels: Sequence[str], sharpness: float = ALONE_SHARPNESS,
           unseen: float = UNSEEN_COSINE, floor: float | None = None) -> np.ndarray:
    """The memory's own probabilities (``labels`` order): each card weighs ``exp(sharpness · cosine)``
    (its best cosine to its kept views, ``similarity``; ``unseen`` for a card without views), and
    the cards share what the card model leaves to them: the model's "not a card face" probability
    (``unknown``) is kept as it is, its probabilities of the cards only order those without a view
    (the memory cannot tell them apart: each weighs its share of the model's best among them). With
    an empty memory the cards are in the model's order. With a ``floor``, "not a card face" also
    competes as a card whose cosine were ``floor``: what it wins goes to ``unknown``."""
    p = np.asarray(probs, np.float64)
    ks, js = label_cards(labels)
    cards = np.zeros(len(labels), bool)
    cards[ks] = True
    sim = np.asarray(similarity, np.float64).reshape(len(p), len(CODES))[:, js]
    cos = np.full((len(p), len(labels)), -np.inf)
    viewless = np.zeros(cos.shape, bool)
    viewless[:, ks] = sim < -0.5  # -1: no view kept of that card
    cos[:, ks] = np.where(sim < -0.5, unseen, sim)
    z = sharpness * (cos - cos[:, cards].max(1, keepdims=True))
    w = np.where(cards, np.exp(np.where(cards, z, 0.0)), 0.0)
    # the cards without a view, which the memory cannot tell apart, in the card model's order: each
    # weighs its share of the model's best among them (that one as before, none more)
    model = np.where(viewless, np.maximum(p, 1e-12), 0.0)
    best = model.max(1, keepdims=True)
    w = np.where(viewless, w * model / np.where(best > 0, best, 1.0), w)
    face = 1.0 - p[:, ~cards].sum(1, keepdims=True)  # what the model gives to the cards, all of them
    total = w.sum(1, keepdims=True)
    none = np.zeros_like(total)
    if floor is not None and (~cards).any():
        none = np.exp(sharpness * (floor - cos[:, cards].max(1, keepdims=True)))
    out = np.where(cards, face * w / (total + none), p)
    first = int(np.flatnonzero(~cards)[0]) if (~cards).any() else -1
    if first >= 0:
        out[:, first] += (face * none / (total + none))[:, 0]
    return out.astype(np.float32)


def held_order(named: np.ndarray, ordering: np.ndarray, labels: Sequence[str], cap: float = UNSURE_ORDER) -> np.ndarray:
    """Per crop, ``named`` (the memory's probabilities from the views it trusts) where ``ordering``
    (from every view) puts the same card first; else ``ordering``'s, its cards' probabilities drawn
    towards even (their order kept, "not a card face" as it is) until the first is at most
    ``cap``: a card only views the memory does not trust yet put first is asked, with it first."""
    out = np.asarray(named, np.float64).copy()
    order = np.asarray(ordering, np.float64)
    cards = np.zeros(len(labels), bool)
    cards[label_cards(labels)[0]] = True
    for k in range(len(out)):
        a, b = out[k, cards], order[k, cards]
        if int(np.argmax(a)) == int(np.argmax(b)):
            continue
        face, top = b.sum(), b.max()
        even = face / len(b)
        s = 1.0 if top <= cap or top <= even else max(0.0, (cap - even) / (top - even))
        out[k] = order[k]
        out[k, cards] = s * b + (1.0 - s) * even
    return out.astype(np.float32)


def verified(probs: np.ndarray, matches: tuple[np.ndarray, np.ndarray], labels: Sequence[str], bar: int = VERIFIED,
             ratio: float = VERIFIED_RATIO, sure: float = VERIFIED_SURE, cap: float = UNSURE_ORDER,
             hold: bool = True) -> np.ndarray:
    """The memory's probabilities (``labels`` order) with what the keypoints settle (``matches``:
    :meth:`DeckMemory.matched`, with the views agreed with in place beyond their likeness to other
    cards, and with any): where a crop matches one card's views agreed with in ``bar`` places or
    more and no other card's views in more than ``ratio`` as many, that card is the crop's at
    ``sure`` (or as it was, if surer), the
    others sharing the rest in their order. Where only views not yet agreed with match so, with
    ``hold``, that card is put first but held at ``cap`` (:func:`held_order`: asked, that card its
    first candidate) unless the memory already put it first. Every other crop as it was."""
    out = np.asarray(probs, np.float64).copy()
    column = dict(zip(*(a.tolist() for a in reversed(label_cards(labels)))))  # a card's column in CODES -> its label's
    agreed, every = (np.asarray(m) for m in matches)

    def winner(counts: np.ndarray, k: int) -> int | None:
        j = int(np.argmax(counts))
        others = np.delete(every[k], j)
        if counts[j] < bar or j not in column or (len(others) and others.max() > ratio * counts[j]):
            return None
        return column[j]

    held, first = [], []
    for k in range(len(out)):
        c = winner(agreed[k], k)
        if c is not None:
            out[k] = made_sure(out[k], c, sure)
        elif hold and (c := winner(every[k], k)) is not None:
            held.append(k)
            first.append(made_sure(out[k], c, sure))
    if held:
        out[held] = held_order(out[held], np.array(first), labels, cap)
    return out.astype(np.float32)


def made_sure(row: np.ndarray, column: int, sure: float) -> np.ndarray:
    """One crop's probabilities with ``column`` at ``sure`` (as it was, if surer), the others sharing the
    rest in their order."""
    row = np.asarray(row, np.float64)
    if row[column] >= sure:
        return row
    rest = row.sum() - row[column]
    out = row * ((1.0 - sure) / rest if rest > 0 else 0.0)
    out[column] = sure
    return out


def view_of(embeddings: np.ndarray, crops, keypoints: np.ndarray | None = None) -> np.ndarray:
    """What the table keeps of each crop named through the memory: its embedding followed by its
    picture (:func:`vision.card_picture.card_pictures`) and its keypoints
    (:func:`vision.card_keypoints.card_keypoints`; ``keypoints``: those blocks, found already), one row
    per crop. :meth:`DeckMemory.learn` takes it whole; :meth:`DeckMemory.similarity` reads only the
    embedding."""
    emb = np.asarray(embeddings, np.float32).reshape(len(crops), -1)
    blocks = card_keypoint_blocks(crops) if keypoints is None else np.asarray(keypoints, np.float32)
    return np.hstack([emb, card_pictures(crops), blocks])


def memory_path_beside(deal_log: Path | str) -> Path:
    """Where the deck memory of the table whose deal log is ``deal_log`` lives: beside it."""
    return Path(deal_log).with_name("deck-memory.db")


def has_readings(db: sqlite3.Connection) -> bool:
    """Whether a deck memory file keeps the deck's reading gauge (files written before it do not)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'readings'").fetchone() is not None


def read_summary(path: Path | str) -> dict | None:
    """What a deck memory file holds, read without changing it (``None`` when there is none):
    ``{"model", "views", "cards": [CardMemory, ...], "readings": [float, ...]}`` (the deck's
    reading gauge, oldest first: :class:`KeptReading`)."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            rows = db.execute("SELECT card, learned_at, source FROM views").fetchall()
            readings = []
            if has_readings(db):
                readings = [float(r) for (r,) in db.execute("SELECT reading FROM readings ORDER BY id").fetchall()]
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        raise DeckMemoryError(f"the deck memory {path} cannot be read ({exc}); "
                              f"'tarotmate deck memory --reset' starts a new one") from exc
    return {"model": meta.get("model"), "views": len(rows), "cards": card_memories(rows),
            "readings": readings[-READ_WINDOW:]}


def reset_file(path: Path | str) -> int:
    """Forget every view of the deck memory file ``path`` (whatever its model); how many went."""
    path = Path(path)
    if not path.is_file():
        return 0
    try:
        db = sqlite3.connect(str(path), isolation_level=None)
        try:
            with db:
                if has_readings(db):
                    db.execute("DELETE FROM readings")
                if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pairs'").fetchone():
                    db.execute("DELETE FROM pairs")  # their views' row ids are given again from the start
                return db.execute("DELETE FROM views").rowcount
        finally:
            db.close()
    except sqlite3.DatabaseError:
        path.unlink()  # damaged beyond reading: a reset starts a new one
        for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            extra.unlink(missing_ok=True)
        return 0


class KeptReading(DeckReading):
    """The deck's reading gauge (:class:`vision.deck_reading.DeckReading`) kept in the deck memory's
    file: each card decided is written at once, so a restart, a ``kill -9`` or a power cut finds
    the deck judged as it was. A file that fails the gauge goes on in memory alone."""

    def __init__(self, memory: DeckMemory, window: int = READ_WINDOW):
        super().__init__(window)
        self.memory = memory
        try:
            self.readings.extend(memory.readings(window))
        except sqlite3.Error:
            pass

    def decided(self, reading: float) -> None:
        super().decided(reading)
        try:
            self.memory.add_reading(reading, self.window)
        except sqlite3.Error:
            pass  # the memory cannot be written any more: the gauge lives on in memory

    def reset(self) -> None:
        super().reset()
        try:
            self.memory.forget_readings()
        except sqlite3.Error:
            pass


class MemoryNamer:
    """A namer whose probabilities are weighed by what the table's deck memory has kept
    (:func:`fuse`) once it keeps ``min_views`` views, and settled where the crop's keypoints match
    one card's agreed views and no other's (:func:`verified`, without holding); everything else
    (labels, threshold, input size, model id) is the base namer's. Until then it names exactly as
    the base namer does.

    Over an enrolled deck's profile (a base with ``probabilities`` and no ``run``:
    :class:`vision.enroll.PrototypeNamer`), ``fuses`` False: the memory only settles what its
    agreed views' keypoints surely tell, from its first views; the profile's probabilities are not
    weighed (they are the deck's own reading, on another scale than the card model's), its bars are
    the tracker's, and the deck's reading is not gauged (:attr:`reads_with_model`)."""

    def __init__(self, base, memory: DeckMemory, sharpness: float = 20.0, floor: float = 0.6,
                 min_views: int = MIN_WEIGHING_VIEWS, fuses: bool = True):
        self.base = base
        self.memory = memory
        self.fuses = fuses
        self.sharpness = sharpness  # how much a close kept view weighs (fuse)
        self.floor = floor  # the cosine over which a kept view counts at all
        self.min_views = max(1, min_views)  # views kept before the memory weighs the namings
        self.reading = KeptReading(memory)  # how surely the card model reads this deck, kept with it

    def __getattr__(self, name):
        return getattr(self.base, name)

    def red_pips(self, bar: float) -> bool | None:
        """Whether the deck in play prints its hearts' and diamonds' pip cards in red ink (the tracker's
        ``red_ink`` bar holds only then): the base namer's answer when it knows (an enrolled deck's
        faces, :meth:`vision.enroll.PrototypeNamer.red_pips`), else what the memory's views of them
        show (:meth:`DeckMemory.red_pips`); None while neither knows."""
        own = getattr(self.base, "red_pips", None)
        known = own(bar) if callable(own) else None
        if known is not None:
            return known
        try:
            return self.memory.red_pips(bar)
        except sqlite3.Error:  # the memory cannot be read any more: not known
            return None

    @property
    def tracker_bars(self) -> dict:
        """The tracker's bars for this namer: the base model's own, :data:`LEARNING_BARS` on top
        where the memory weighs the namings (``fuses``)."""
        return {**(getattr(self.base, "tracker_bars", None) or {}), **(LEARNING_BARS if self.fuses else {})}

    @property
    def reads_with_model(self) -> bool:
        """Whether the base namer gives the card model's probabilities (``run``), which the tracker's
        gauge of the deck's reading reads; an enrolled deck's profile names on its own scale."""
        return callable(getattr(self.base, "run", None))

    def run(self, crops):
        probs, emb, _ = self.run_with_model(crops)
        return probs, emb

    def _base_run(self, crops):
        """The base namer's probabilities of ``crops`` and their views (:func:`view_of`). A profile's
        ``probabilities`` are given the crops' keypoints, found once for both."""
        run = getattr(self.base, "run", None)
        if callable(run):
            probs, emb = run(crops)
            return probs, (view_of(emb, crops) if len(crops) else emb)
        blocks = card_keypoint_blocks(crops)
        probs, emb = self.base.probabilities(crops, keypoints=blocks)
        return probs, (view_of(emb, crops, blocks) if len(crops) else emb)

    def run_with_model(self, crops):
        """:meth:`run`'s probabilities and the crops' views (embeddings with their pictures and
        keypoints: :func:`view_of`, what the table learns), and the card model's own probabilities before the
        memory weighed them (what the tracker holds a card against its colour twin with:
        ``model_suit_margin``, :func:`vision.votes.model_suit_margin`; None over a profile)."""
        probs, emb = self._base_run(crops)
        if not self.fuses:
            probs = np.asarray(probs, np.float32)
            try:
                return self._settled(probs, emb), emb, None
            except sqlite3.Error:  # the memory cannot be read any more: the base namer's alone
                return probs, emb, None
        try:
            similarity = self.kept_similarity(emb)
            if similarity is None:
                return probs, emb, probs
            fused = fuse(probs, similarity, self.base.labels, self.sharpness, self.floor)
            t = self.memory.temperature(self.base.labels, self.sharpness, self.floor)
            named = self._settled(fused if t == 1.0 else scaled(fused, t).astype(np.float32), emb)
        except sqlite3.Error:  # the memory cannot be read any more (its file damaged or gone): the model alone
            return probs, emb, probs
        return named, emb, probs

    def _settled(self, probs: np.ndarray, views: np.ndarray) -> np.ndarray:
        """``probs`` with what the memory's agreed views' keypoints settle (:func:`verified`, without
        holding): a crop whose keypoints match one card's agreed views, and no other's, is that card.
        The crops named as surely already (or refused: ``unknown`` at 1) are not matched: the time it
        takes. ``sqlite3.Error`` when the memory cannot be read: the caller's to handle."""
        unsure = np.flatnonzero(probs.max(axis=1) < VERIFIED_SURE)
        matches = self.memory.keypoint_matches(views[unsure]) if len(unsure) else None
        if matches is None:
            return probs
        named = probs.copy()
        named[unsure] = verified(probs[unsure], matches, self.base.labels, hold=False)
        return named

    def weighs(self, embeddings: np.ndarray) -> bool:
        """Whether the memory weighs these crops' namings: some crop, and ``min_views`` views kept.
        ``sqlite3.Error`` when the memory cannot be read: the caller's to handle."""
        return len(embeddings) > 0 and self.memory.views_count() >= self.min_views

    def kept_similarity(self, embeddings: np.ndarray) -> np.ndarray | None:
        """Each crop's best cosine to each card's kept views (:meth:`DeckMemory.similarity`), or
        None while the memory weighs nothing (:meth:`weighs`). ``embeddings``: the crops'
        embeddings, or their views (:func:`view_of`). ``sqlite3.Error`` when the memory cannot be
        read: the caller's to handle."""
        return self.memory.similarity(embeddings) if self.weighs(embeddings) else None

    def name(self, crops):
        return self.base.namings(*self.run(crops))

    def alone(self) -> "MemoryAlone":
        """This namer naming from the memory alone (:func:`recall`): what the tracker names with on a
        deck the card model cannot read."""
        return MemoryAlone(self)


class MemoryAlone:
    """A :class:`MemoryNamer` naming from what the memory keeps alone (:func:`recall`), the card
    model's own probabilities still given beside (the deck's gauge reads them); labels, threshold
    and input size are the base namer's. Until the memory keeps the namer's ``min_views`` views
    it names as the card model does (a memory holding a few answers knows too few cards to put
    one first). :attr:`names_alone`: whether its latest namings were the memory's alone from its
    views' pictures (what marks the views for the tracker, which commits such a naming at its
    ``memory_alone`` bar; a memory keeping no pictures names the crops too, never marked)."""

    def __init__(self, namer: MemoryNamer, sharpness: float = ALONE_SHARPNESS, unseen: float | None = None):
        self.namer = namer
        self.sharpness = sharpness
        self.unseen = unseen  # None: UNSEEN_MIXED where the pictures are mixed in, else UNSEEN_COSINE
        self.names_alone = False

    def __getattr__(self, name):
        return getattr(self.namer, name)

    def run(self, crops):
        probs, emb, _ = self.run_with_model(crops)
        return probs, emb

    def run_with_model(self, crops):
        """The memory's probabilities of the crops (:func:`recall`, on the embeddings' and the
        pictures' cosines mixed, then what the keypoints settle: :func:`verified`), their views
        (:func:`view_of`), and the card model's own probabilities (before the memory)."""
        base = self.namer.base
        probs, emb = self.namer._base_run(crops)
        self.names_alone = False
        try:
            if not self.namer.weighs(emb):
                return probs, emb, probs  # no crop, or too few views yet: the card model's own
            similarity, by_every_view, matches = self.memory.recall_evidence(emb)
        except sqlite3.Error:  # the memory cannot be read any more: it knows no card
            similarity, by_every_view, matches = np.full((len(probs), len(CODES)), -1.0, np.float32), None, None
        if by_every_view is None:  # the embeddings alone
            unseen = UNSEEN_COSINE if self.unseen is None else self.unseen
            return recall(probs, similarity, base.labels, self.sharpness, unseen), emb, probs
        # the cosines mix the pictures in: a crop like none of the views is no card, and the views no
        # other agrees with, counted less, order the candidates
        self.names_alone = True
        unseen = UNSEEN_MIXED if self.unseen is None else self.unseen
        named = recall(probs, similarity, base.labels, self.sharpness, unseen, PICTURE_FLOOR)
        ordering = recall(probs, by_every_view, base.labels, self.sharpness, unseen, PICTURE_FLOOR)
        named = held_order(named, ordering, base.labels)
        if matches is not None:  # ... and a crop whose keypoints match one card's views, and no other's, is that card
            named = verified(named, matches, base.labels)
        return named, emb, probs

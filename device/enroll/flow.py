"""Guided enrollment of a deck at the table, as a state machine without I/O.

The device names a card ("Show: Rey de Copas"), the player lays it under the
camera and moves it a little while a few views are captured, then confirms
(or redoes, or skips) and the next card is named. After the last card, pairs
of cards that the model can hardly tell apart are shown one by one and the
player may show both again. Finally the deck profile is built.

:class:`EnrollFlow` holds only embeddings, never a camera or a screen: the
app feeds it the embedded views of what the camera saw
(:meth:`EnrollFlow.add_views`, which :class:`Capturer` calls from camera
frames) and the button presses (:meth:`confirm`, :meth:`redo`,
:meth:`skip`, :meth:`back`; in review :meth:`show_again`, :meth:`accept`,
:meth:`accept_all`), and shows :meth:`EnrollFlow.prompt`. After every card it hands a :class:`Snapshot` to
its ``save`` callback (:class:`ProgressFile` writes it next to the deck
profiles), so an interrupted enrollment resumes where it stopped
(:meth:`EnrollFlow.resume`).

Typical wiring in the app::

    progress = ProgressFile.for_deck(name)
    flow = progress.resume_or_start(name, model_id(namer))   # saves into progress
    capturer = Capturer(flow, namer)
    # each camera frame:
    status = capturer.offer(frame.image, frame.timestamp)    # "captured", "remove", "moving" ...
    # buttons: OK -> confirm() or accept(), BACK -> redo(), long BACK -> skip() ...
    # when flow.prompt().step == DONE:
    save_profile(flow.build_profile(namer)); progress.remove()
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from engine.cards import BY_CODE, CODES
from engine.errors import TarotmateError
from vision.card_keypoints import FINDER
from vision.deck_profiles import DeckProfile, SimilarPair, check_name, user_decks_dir
from vision.enroll import (
    DEFAULT_STRATEGY,
    CardViews,
    Embedder,
    build_profile,
    deck_geometry,
    embed_card,
    normalise,
)

SHOW = "show"  # name a card and wait for its views
CONFIRM = "confirm"  # enough views: confirm, redo or skip
REVIEW = "review"  # a pair of cards too alike: show both again, or accept
DONE = "done"  # every card enrolled or skipped: build the profile

DEFAULT_VIEWS_NEEDED = 12  # three captures of four views each
VIEWS_PER_CAPTURE = 4  # the crop, its half turn and two synthesised variations
CAPTURE_INTERVAL_S = 0.3  # between two captures of the same card (the player moves it a little)
FACE_SIZE = (440, 800)  # a captured card is straightened at this size before its views are made

# what Capturer.offer did with a frame
CAPTURED = "captured"
NO_CARD = "no-card"  # no card, or several cards, in the frame
REMOVE = "remove"  # the card just done is still there: take it away first
MOVING = "moving"  # the card is moving: wait until it lies still
WAITING = "waiting"  # too soon after the previous capture
IDLE = "idle"  # the flow is not waiting for views


class EnrollFlowError(TarotmateError):
    """A button or a capture that makes no sense in the current step, or bad progress."""


@dataclass(frozen=True)
class Prompt:
    """What the screen shows now.

    ``card``: the card to show (SHOW, CONFIRM); ``pair``: the two cards too
    alike (REVIEW); ``views``/``views_needed``: captured views of the current
    card; ``enrolled``/``skipped``/``total``: the progress over the deck.
    """

    step: str
    card: str | None
    views: int
    views_needed: int
    enrolled: int
    skipped: int
    total: int
    pair: SimilarPair | None = None


@dataclass(frozen=True)
class Snapshot:
    """All an interrupted enrollment needs to resume."""

    deck: str
    model: str
    views_needed: int
    order: tuple[str, ...]  # the cards of this enrollment, in the order they are named
    enrolled: dict[str, CardViews] = field(default_factory=dict)
    skipped: tuple[str, ...] = ()
    requeued: tuple[str, ...] = ()  # cards to show again, before the rest
    reviewed: tuple[tuple[str, str], ...] = ()  # pairs already shown once


class EnrollFlow:
    """The enrollment of one deck; see the module docstring."""

    def __init__(
        self,
        deck: str,
        model: str,
        views_needed: int = DEFAULT_VIEWS_NEEDED,
        order: Sequence[str] = CODES,
        save: Callable[[Snapshot], None] | None = None,
        strategy: str = DEFAULT_STRATEGY,
    ):
        if views_needed < 1:
            raise EnrollFlowError(f"views_needed must be at least 1, got {views_needed}")
        unknown = [c for c in order if c not in BY_CODE]
        if unknown or len(set(order)) != len(order) or not order:
            raise EnrollFlowError(f"bad card order: {list(order)[:5]}...")
        self.deck = check_name(deck)
        self.model = model
        self.views_needed = views_needed
        self.order = tuple(order)
        self.strategy = strategy  # of the prototypes, for the review of pairs and the profile
        self._save = save
        self._enrolled: dict[str, CardViews] = {}
        self._skipped: list[str] = []
        self._requeued: list[str] = []
        self._reviewed: set[tuple[str, str]] = set()
        self._views: list[np.ndarray] = []
        self._turned: list[np.ndarray] = []
        self._keypoints = b""  # the current card's face's keypoints, from its first capture that has them
        self._red: float | None = None  # its face's red ink (vision.votes.red_ink), from its first capture measuring it
        self._confirming = False
        self._pairs: list[SimilarPair] = []
        self._last: str | None = None  # the card confirmed or skipped last, for back()

    # ------------------------------------------------------------------ state

    @property
    def current(self) -> str | None:
        """The card being shown, or None when every card is enrolled or skipped."""
        if self._requeued:
            return self._requeued[0]
        done = set(self._enrolled) | set(self._skipped)
        return next((c for c in self.order if c not in done), None)

    @property
    def step(self) -> str:
        if self.current is not None:
            return CONFIRM if self._confirming else SHOW
        return REVIEW if self._pairs else DONE

    def prompt(self) -> Prompt:
        views = sum(len(v) for v in self._views)
        return Prompt(
            step=self.step,
            card=self.current,
            views=views,
            views_needed=self.views_needed,
            enrolled=len(self._enrolled),
            skipped=len(self._skipped),
            total=len(self.order),
            pair=self._pairs[0] if self.step == REVIEW else None,
        )

    @property
    def enrolled(self) -> dict[str, CardViews]:
        return dict(self._enrolled)

    @property
    def skipped(self) -> tuple[str, ...]:
        return tuple(self._skipped)

    # ------------------------------------------------------------------ events

    def add_views(self, embeddings: np.ndarray, turned: np.ndarray | None = None, keypoints: bytes = b"",
                  red: float | None = None) -> Prompt:
        """Record embedded views of the current card (one capture may give several); ``keypoints``: its
        straightened face's (:func:`vision.card_keypoints.packed`), ``red`` its red ink
        (:func:`vision.votes.red_ink`), each kept from the first capture giving them."""
        self._expect(SHOW)
        embeddings = np.atleast_2d(np.asarray(embeddings, np.float32))
        turned = np.zeros(len(embeddings), bool) if turned is None else np.asarray(turned, bool)
        if len(turned) != len(embeddings):
            raise EnrollFlowError(f"{len(embeddings)} views but {len(turned)} orientations")
        self._views.append(normalise(embeddings))
        self._turned.append(turned)
        self._keypoints = self._keypoints or keypoints
        self._red = self._red if self._red is not None else red
        if sum(len(v) for v in self._views) >= self.views_needed:
            self._confirming = True
        return self.prompt()

    def confirm(self) -> Prompt:
        """Keep the views of the current card and move on (progress is saved)."""
        self._expect(CONFIRM)
        code = self.current
        assert code is not None
        self._enrolled[code] = CardViews(code, np.concatenate(self._views), np.concatenate(self._turned), self._keypoints,
                                           self._red)
        self._done_with(code)
        return self.prompt()

    def redo(self) -> Prompt:
        """Forget the views captured for the current card and capture again."""
        self._expect(SHOW, CONFIRM)
        self._clear_views()
        return self.prompt()

    def skip(self) -> Prompt:
        """Leave the current card out of this deck (a missing or damaged card)."""
        self._expect(SHOW, CONFIRM)
        code = self.current
        assert code is not None
        self._enrolled.pop(code, None)
        if code not in self._skipped:
            self._skipped.append(code)
        self._done_with(code)
        return self.prompt()

    def back(self) -> Prompt:
        """Show the previous card again (its views are captured anew)."""
        self._expect(SHOW, CONFIRM, DONE)
        if self._last is None:
            raise EnrollFlowError("there is no previous card to show again")
        self._requeue([self._last])
        self._last = None
        self._save_snapshot()
        return self.prompt()

    def show_again(self) -> Prompt:
        """In review: show both cards of the pair again."""
        self._expect(REVIEW)
        pair = self._pairs.pop(0)
        self._reviewed.add((pair.first, pair.second))
        self._requeue([pair.first, pair.second])
        self._pairs = []
        self._save_snapshot()
        return self.prompt()

    def accept(self) -> Prompt:
        """In review: keep this pair as it is (it stays reported in the profile)."""
        self._expect(REVIEW)
        pair = self._pairs.pop(0)
        self._reviewed.add((pair.first, pair.second))
        self._save_snapshot()
        return self.prompt()

    def accept_all(self) -> Prompt:
        """In review: keep every remaining pair as it is."""
        self._expect(REVIEW)
        self._reviewed.update((p.first, p.second) for p in self._pairs)
        self._pairs = []
        self._save_snapshot()
        return self.prompt()

    def build_profile(self, embedder: Embedder, source: str = "device") -> DeckProfile:
        """The deck profile, once every card is enrolled or skipped and every pair reviewed."""
        self._expect(DONE)
        return build_profile(self.deck, list(self._enrolled.values()), embedder, self.strategy, source=source)

    # ------------------------------------------------------------------ snapshots

    def snapshot(self) -> Snapshot:
        return Snapshot(
            deck=self.deck,
            model=self.model,
            views_needed=self.views_needed,
            order=self.order,
            enrolled=dict(self._enrolled),
            skipped=tuple(self._skipped),
            requeued=tuple(self._requeued),
            reviewed=tuple(sorted(self._reviewed)),
        )

    @classmethod
    def resume(
        cls, snapshot: Snapshot, save: Callable[[Snapshot], None] | None = None, strategy: str = DEFAULT_STRATEGY
    ) -> "EnrollFlow":
        """The flow where ``snapshot`` left it (the current card's views are captured anew)."""
        flow = cls(snapshot.deck, snapshot.model, snapshot.views_needed, snapshot.order, save, strategy)
        unknown = (set(snapshot.enrolled) | set(snapshot.skipped) | set(snapshot.requeued)) - set(snapshot.order)
        if unknown:
            raise EnrollFlowError(f"progress of deck {snapshot.deck!r} names cards outside it: {sorted(unknown)}")
        flow._enrolled = dict(snapshot.enrolled)
        flow._skipped = list(snapshot.skipped)
        flow._requeued = list(snapshot.requeued)
        flow._reviewed = set(snapshot.reviewed)
        if flow.current is None:
            flow._pairs = flow._unreviewed_pairs()
        return flow

    # ------------------------------------------------------------------ internals

    def _expect(self, *steps: str) -> None:
        if self.step not in steps:
            raise EnrollFlowError(f"not possible now: enrollment is at step {self.step!r}, not {' or '.join(steps)}")

    def _clear_views(self) -> None:
        self._views, self._turned = [], []
        self._keypoints = b""
        self._red = None
        self._confirming = False

    def _requeue(self, codes: Sequence[str]) -> None:
        for code in codes:
            self._enrolled.pop(code, None)
            if code in self._skipped:
                self._skipped.remove(code)
            if code not in self._requeued:
                self._requeued.append(code)
        self._clear_views()

    def _done_with(self, code: str) -> None:
        if code in self._requeued:
            self._requeued.remove(code)
        self._last = code
        self._clear_views()
        if self.current is None:
            self._pairs = self._unreviewed_pairs()
        self._save_snapshot()

    def _unreviewed_pairs(self) -> list[SimilarPair]:
        cards = list(self._enrolled.values())
        if len(cards) < 2:
            return []
        return [p for p in deck_geometry(cards, self.strategy).pairs if (p.first, p.second) not in self._reviewed]

    def _save_snapshot(self) -> None:
        if self._save is not None:
            self._save(self.snapshot())


# ---------------------------------------------------------------------- camera frames


class Capturer:
    """Turns camera frames into views of the card the flow asks for.

    A frame gives views when it shows exactly one card lying still (same
    corners as in the previous frame, within ``steady`` of the card's length)
    and ``interval_s`` seconds have passed since the last capture: the
    straightened card, its half turn and synthesised variations of it
    (``views_per_capture`` in all). After a card is done, nothing is
    captured until the table has been seen without it, so the previous card
    is never taken for the next one.
    """

    def __init__(
        self,
        flow: EnrollFlow,
        embedder: Embedder,
        views_per_capture: int = VIEWS_PER_CAPTURE,
        interval_s: float = CAPTURE_INTERVAL_S,
        steady: float = 0.02,
        seed: int = 0,
    ):
        self.flow = flow
        self.embedder = embedder
        self.views_per_capture = views_per_capture
        self.interval_s = interval_s
        self.steady = steady
        self._rng = np.random.default_rng(seed)
        self._card: str | None = flow.current  # the card the captures are for
        self._cleared = True  # the table was seen without the previous card
        self._last: float | None = None  # time of the last capture
        self._previous_quad: np.ndarray | None = None

    def offer(self, image: np.ndarray, timestamp: float) -> str:
        """Capture views from one BGR frame if the flow wants them; say what happened."""
        from vision.localise import find_cards
        from vision.warp import warp_card

        if self.flow.current != self._card:  # the previous card was confirmed, skipped or redone
            self._card, self._cleared, self._last = self.flow.current, False, None
        if self.flow.step != SHOW:
            return IDLE
        quads = find_cards(image)
        if len(quads) != 1:
            self._cleared, self._previous_quad = True, None
            return NO_CARD
        if not self._cleared:
            return REMOVE
        quad, previous = np.asarray(quads[0], np.float32), self._previous_quad
        self._previous_quad = quad
        length = float(np.linalg.norm(quad[0] - quad[3]))
        if previous is None or np.abs(quad - previous).max() > self.steady * length:
            return MOVING
        if self._last is not None and timestamp - self._last < self.interval_s:
            return WAITING
        face = warp_card(image, quad, FACE_SIZE)
        views = embed_card(self.embedder, self._card, face, self.views_per_capture, self._rng)
        self.flow.add_views(views.embeddings, views.turned, views.keypoints, views.red)
        self._last = timestamp
        return CAPTURED


# ---------------------------------------------------------------------- progress on disk


def _red_of(meta: dict, code: str) -> float | None:
    """The red ink of ``code``'s face a progress file keeps (None: not measured, or a file written before)."""
    reds = meta.get("red") or {}
    if not isinstance(reds, dict):
        raise ValueError("red inks that are not a table of cards")
    red = reds.get(code)
    if red is None:
        return None
    red = float(red)
    if not np.isfinite(red):
        raise ValueError(f"red ink of {code} is {red}")
    return red


class ProgressFile:
    """The saved progress of one deck's enrollment: ``<decks>/.progress/<deck>.npz``."""

    def __init__(self, path: Path | str):
        self.path = Path(path)

    @classmethod
    def for_deck(cls, deck: str, decks_dir: Path | str | None = None) -> "ProgressFile":
        folder = Path(decks_dir) if decks_dir is not None else user_decks_dir()
        return cls(folder / ".progress" / f"{check_name(deck)}.npz")

    def exists(self) -> bool:
        return self.path.is_file()

    def save(self, snapshot: Snapshot) -> None:
        """Write ``snapshot`` (atomically: a crash leaves the previous one)."""
        meta = {
            "deck": snapshot.deck,
            "model": snapshot.model,
            "views_needed": snapshot.views_needed,
            "order": list(snapshot.order),
            "enrolled": [c for c in snapshot.order if c in snapshot.enrolled],
            "skipped": list(snapshot.skipped),
            "requeued": list(snapshot.requeued),
            "reviewed": [list(p) for p in snapshot.reviewed],
            "red": {code: views.red for code, views in snapshot.enrolled.items() if views.red is not None},
            "finder": FINDER,  # how the faces' keypoints were found: others are set aside on resuming
        }
        arrays = {"meta": np.array(json.dumps(meta))}
        for code, views in snapshot.enrolled.items():
            arrays[f"emb_{code}"] = views.embeddings.astype(np.float16)
            arrays[f"turned_{code}"] = views.turned
            if views.keypoints:
                arrays[f"keypoints_{code}"] = np.frombuffer(views.keypoints, np.uint8)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp.npz")
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, self.path)

    def load(self) -> Snapshot:
        try:
            with np.load(self.path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                current = meta.get("finder", 1) == FINDER  # keypoints found otherwise match nothing found now
                enrolled = {
                    code: CardViews(code, data[f"emb_{code}"].astype(np.float32), data[f"turned_{code}"].astype(bool),
                                    data[f"keypoints_{code}"].tobytes() if current and f"keypoints_{code}" in data.files
                                    else b"", _red_of(meta, code))
                    for code in meta["enrolled"]
                }
            return Snapshot(
                deck=meta["deck"],
                model=meta["model"],
                views_needed=int(meta["views_needed"]),
                order=tuple(meta["order"]),
                enrolled=enrolled,
                skipped=tuple(meta["skipped"]),
                requeued=tuple(meta["requeued"]),
                reviewed=tuple(tuple(p) for p in meta["reviewed"]),
            )
        except (OSError, KeyError, ValueError, TypeError) as exc:
            raise EnrollFlowError(f"cannot read enrollment progress {self.path}: {exc}") from None

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)

    def resume_or_start(
        self,
        deck: str,
        model: str,
        views_needed: int = DEFAULT_VIEWS_NEEDED,
        order: Sequence[str] = CODES,
        strategy: str = DEFAULT_STRATEGY,
    ) -> EnrollFlow:
        """Resume the saved enrollment of ``deck`` if there is one for this model and cards, else start afresh.

        The returned flow saves its progress into this file after every card.
        """
        if self.exists():
            snapshot = self.load()
            if snapshot.deck == deck and snapshot.model == model and snapshot.order == tuple(order):
                return EnrollFlow.resume(snapshot, save=self.save, strategy=strategy)
        return EnrollFlow(deck, model, views_needed, order, save=self.save, strategy=strategy)

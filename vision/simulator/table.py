"""The simulated table: a script planned into a timeline and rendered frame by frame, with ground truth.

A script of actions (a card played from a seat into the middle, cards laid in
a seat's zone, a zone swept towards a seat, cards shown, idle time, lighting
changes) is planned once into a timeline; :meth:`TableSimulator.frames` then
renders the frames lazily, one at a time, so a long deal uses flat memory.

Cards are carried by a hand-like blob (palm and arm) from their seat's edge,
blurred while they move, and land with a small random rotation and offset,
overlapping the cards already in the trick. Frames carry ground truth: where
every card is, whether it moves, how much of it is visible. The expected
table events of the whole script are in :attr:`TableSimulator.expected`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, Sequence

import cv2
import numpy as np

from vision.simulator.actions import Action
from vision.simulator.deck import Deck
from vision.simulator.layout import DEFAULT_FPS, DEFAULT_SIZE, Pose, TableLayout
from vision.simulator.renderer import Renderer
from vision.simulator.timeline import Timeline
from vision.simulator.truth import SimFrame, card_truths
from vision.zones import Zones


class TableSimulator:
    """A simulated table playing ``script``.

    ``players`` seats (2-5) sit around the frame; ``deck`` is a folder of
    scans or ``None`` for the built-in deck; ``background`` an image file (a
    table texture) or ``None`` for a drawn green felt. ``noise`` is the sensor
    noise's standard deviation in grey levels; ``blur`` scales motion blur.
    """

    def __init__(
        self,
        script: Sequence[Action],
        *,
        players: int = 4,
        size: tuple[int, int] = DEFAULT_SIZE,
        fps: float = DEFAULT_FPS,
        seed: int = 0,
        deck: str | Path | Deck | None = None,
        background: str | Path | None = None,
        noise: float = 2.5,
        blur: float = 0.5,
        card_height: float | None = None,
        speed: float = 1.0,
    ):
        self.layout = TableLayout(players, size, card_height)
        self.size = self.layout.size
        self.fps = float(fps)
        self.seed = seed
        self.deck = deck if isinstance(deck, Deck) else Deck(deck)
        self.noise = float(noise)
        self.blur = float(blur)
        self.speed = float(speed)
        self.script = list(script)
        self.timeline = Timeline(self.script, self.layout, np.random.default_rng(seed), self.speed)
        self.expected = self.timeline.expected
        self.renderer = Renderer(self.layout, self.deck, seed=seed, background=background, noise=self.noise, blur=self.blur)
        self.renderer.prepare(self.timeline.codes)

    def __len__(self) -> int:
        return len(self.timeline)

    @property
    def zones(self) -> Zones:
        return self.layout.zones

    def background(self) -> np.ndarray:
        return self.renderer.background()

    def corners(self, pose: Pose) -> np.ndarray:
        """The four corners of a card at ``pose`` (clockwise from its top-left)."""
        return self.layout.corners(pose)

    def frames(self) -> Iterator[SimFrame]:
        """Render every frame in order (a generator: nothing is kept but the static layer)."""
        renderer = self.renderer
        noise = renderer.noise_layers()
        static_key = None
        static = None
        prev_poses: dict[int, Pose] = {}
        for f in range(len(self.timeline)):
            resting, moving, carried = self.timeline.at(f)
            key = tuple((p.ident, p.pose) for p in resting)
            if key != static_key:
                static = renderer.static_layer(resting)
                static_key = key
            image = static.copy()
            hands = self.timeline.hands_at(f, carried)
            if moving or hands:
                renderer.composite_moving(image, moving, hands, prev_poses)
            prev_poses = {p.ident: p.pose for p in moving}
            g = self.timeline.gain_at(f)
            if abs(g - 1.0) > 1e-3:
                image = cv2.convertScaleAbs(image, alpha=g)
            if noise:
                pos, neg = noise[f % len(noise)]
                cv2.add(image, pos, dst=image)
                cv2.subtract(image, neg, dst=image)
            truth = card_truths(self.layout, [(p.code, p.pose) for p in resting], [(p.code, p.pose) for p in moving], hands)
            yield SimFrame(image, f, f / self.fps, truth, len(hands))

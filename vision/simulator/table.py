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

import numpy as np

from vision.simulator.actions import Action
from vision.simulator.conditions import SimConditions, draw_sim_conditions
from vision.simulator.deck import Deck
from vision.simulator.layout import DEFAULT_FPS, DEFAULT_SIZE, Pose, TableLayout
from vision.simulator.renderer import Renderer
from vision.simulator.timeline import Timeline
from vision.simulator.truth import SimFrame, card_truths
from vision.table_conditions import warp_points
from vision.zones import Zone, Zones


def warp_zones(zones: Zones, homography: np.ndarray, size: tuple[int, int]) -> Zones:
    """The zones as a camera whose view is ``homography`` away from the top-down one sees them."""
    w, h = size
    out = []
    for z in zones:
        pts = warp_points(homography, z.pixel_polygon(w, h))
        out.append(Zone(z.name, tuple((float(x) / w, float(y) / h) for x, y in pts), z.seat))
    return Zones(out)


class TableSimulator:
    """A simulated table playing ``script``.

    ``players`` seats (2-5) sit around the frame; ``deck`` is a folder of
    scans or ``None`` for the built-in deck; ``background`` an image file (a
    table texture) or ``None`` for a drawn green felt. ``noise`` is the sensor
    noise's standard deviation in grey levels; ``blur`` scales motion blur.
    ``conditions``: ``"easy"`` (the default), ``"hard"`` (drawn from ``seed``) or a
    :class:`~vision.simulator.conditions.SimConditions` (the same table for several
    scenes); the hard table sets the card size, blur and noise itself. Its camera
    may be tilted: :attr:`zones` and the cards' corners in the ground truth are
    then where the camera sees them.
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
        conditions: SimConditions | str | None = None,
    ):
        if conditions is None or isinstance(conditions, str):
            conditions = draw_sim_conditions(conditions or "easy", seed)
        self.conditions = conditions
        if card_height is None and conditions.card_scale != 1.0:
            card_height = round(int(size[1]) * 0.22) * conditions.card_scale
        if conditions.blur is not None:
            blur = conditions.blur
        self.layout = TableLayout(players, size, card_height)
        self.size = self.layout.size
        self.fps = float(fps)
        self.seed = seed
        self.deck = deck if isinstance(deck, Deck) else Deck(deck)
        self.noise = float(noise)
        self.blur = float(blur)
        self.speed = float(speed)
        self.script = list(script)
        self.timeline = Timeline(self.script, self.layout, np.random.default_rng(seed), self.speed, conditions)
        self.expected = self.timeline.expected
        self.renderer = Renderer(self.layout, self.deck, seed=seed, background=background, noise=self.noise,
                                 blur=self.blur, conditions=conditions)
        self.renderer.prepare(self.timeline.codes)
        hm = self.renderer.homography
        self._zones = self.layout.zones if hm is None else warp_zones(self.layout.zones, hm, self.size)

    def __len__(self) -> int:
        return len(self.timeline)

    @property
    def zones(self) -> Zones:
        """The table's zones where the camera sees them."""
        return self._zones

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
        still_key, still = None, None  # the camera's image of a still table, before noise
        for f in range(len(self.timeline)):
            resting, moving, carried = self.timeline.at(f)
            key = tuple((p.ident, p.pose) for p in resting)
            if key != static_key:
                static = renderer.static_layer(resting)
                static_key = key
            hands = self.timeline.hands_at(f, carried)
            gain = self.timeline.gain_at(f)
            if not (moving or hands) and still_key == (key, gain):
                image = still.copy()
            else:
                image = static.copy()
                if moving or hands:
                    renderer.composite_moving(image, moving, hands, prev_poses)
                image = renderer.camera(image, gain)
                if not (moving or hands):
                    still_key, still = (key, gain), image.copy()
            prev_poses = {p.ident: p.pose for p in moving}
            renderer.add_noise(image, noise, f)
            truth = card_truths(self.layout, [(p.code, p.pose) for p in resting], [(p.code, p.pose) for p in moving], hands)
            if renderer.homography is not None:
                truth = tuple(t._replace(corners=warp_points(renderer.homography, t.corners)) for t in truth)
            yield SimFrame(image, f, f / self.fps, truth, len(hands))

"""How hard the simulated table is: ``easy`` (an evenly lit studio table) or ``hard`` (a real one).

``hard`` draws, from a seed, what a real table does to the camera:

* dim light with the sensor noise that comes with it, a colour cast;
* a lamp whose glare whitens part of the cards lying under it;
* hands that linger over the trick after letting go of their card, casting
  shadows on the table and the cards;
* trick piles: each card lands close to the pile's centre, overlapping the
  cards under it by 20-50 %;
* small cards (a camera further away), a tilted camera, defocus, stronger
  motion blur, JPEG compression.

The pixel effects (light, noise, glare, tilt, defocus, JPEG) are those of
:mod:`vision.table_conditions`, the module the recognition is trained
against; this module only says which and how strong, and the timeline and
renderer apply them frame after frame, consistently (a lamp does not move).
``easy`` changes nothing: the simulator draws exactly what it always did.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.simulator.errors import SimulatorError
from vision.table_conditions import CASTS, TableConditions

CONDITIONS = ("easy", "hard")


@dataclass(frozen=True)
class Lamp:
    """A lamp's glare: cards whose centre lies within ``reach`` card heights of the point
    ``(x, y)`` (normalised frame coordinates) catch a hard spot of ``radius`` (fraction of
    the card's short side)."""

    x: float
    y: float
    reach: float
    radius: float


@dataclass(frozen=True)
class SimConditions:
    """What the simulated table looks like (the defaults: the easy table)."""

    name: str = "easy"
    # light, cast, exposure, noise, tilt, defocus (sigma in pixels of a 1280-wide frame), JPEG; None: none
    camera: TableConditions | None = None
    lamp: Lamp | None = None
    card_scale: float = 1.0  # card height relative to 22 % of the frame height
    blur: float | None = None  # motion-blur scale (None: the simulator's own)
    trick_offset: tuple[float, float] = (0.38, 0.52)  # where a card lands from the pile's centre, card heights
    linger: tuple[int, int] = (0, 0)  # frames a hand stays over the trick after letting go (min, max)
    shadow: float = 0.0  # how much a hand's shadow darkens what lies under it (0: no shadow)
    shadow_offset: tuple[float, float] = (0.0, 0.0)  # the shadow's offset, card heights (x, y)

    @property
    def easy(self) -> bool:
        return self == EASY

    def describe(self) -> str:
        """One line saying what the table is like."""
        if self.easy:
            return "easy table: even light, sharp top-down camera"
        cam = self.camera
        parts = []
        if cam is not None:
            parts.append(f"{cam.light} {cam.cast} light (exposure {cam.exposure:.2f}, noise {cam.noise:.1f})")
            parts.append(f"camera tilted {cam.tilt:.0f}°, defocus {cam.defocus:.1f} px, JPEG {cam.jpeg}")
        if self.lamp is not None:
            parts.append("a lamp's glare")
        parts.append(f"cards at {self.card_scale:.0%} size")
        parts.append(f"hands linger {self.linger[0]}-{self.linger[1]} frames")
        return f"{self.name} table: " + ", ".join(parts)


EASY = SimConditions()


def draw_sim_conditions(name: str, seed: int) -> SimConditions:
    """The table ``name`` (``easy`` or ``hard``); for ``hard``, the seed draws every condition."""
    if name == "easy":
        return EASY
    if name != "hard":
        raise SimulatorError(f"unknown table conditions {name!r}: expected {' or '.join(CONDITIONS)}")
    rng = np.random.default_rng([seed, 0x7AB1E])
    exposure = float(rng.uniform(0.45, 0.65))
    camera = TableConditions(
        light="dim",
        cast=CASTS[int(rng.integers(len(CASTS)))],
        exposure=exposure,
        noise=float(rng.uniform(4.0, 8.0)),
        tilt=float(rng.uniform(5.0, 12.0)),
        tilt_direction=float(rng.uniform(0.0, 360.0)),
        defocus=float(rng.uniform(0.3, 0.7)),  # sigma in pixels of a 1280-wide frame (scaled to the frame)
        jpeg=int(rng.integers(75, 93)),
    )
    lamp = Lamp(float(rng.uniform(0.35, 0.65)), float(rng.uniform(0.35, 0.65)), float(rng.uniform(0.5, 0.9)),
                float(rng.uniform(0.15, 0.3)))
    angle = rng.uniform(0, 2 * np.pi)
    dist = float(rng.uniform(0.08, 0.18))
    return SimConditions(
        name="hard",
        camera=camera,
        lamp=lamp,
        card_scale=float(rng.uniform(0.72, 0.85)),
        blur=float(rng.uniform(0.7, 1.0)),
        trick_offset=(0.26, 0.36),
        linger=(6, 24),
        shadow=float(rng.uniform(0.3, 0.5)),
        shadow_offset=(dist * float(np.cos(angle)), dist * float(np.sin(angle))),
    )

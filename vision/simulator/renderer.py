"""The simulator's renderer: pixels of the table, the cards on it and the hands over it.

The cards at rest are drawn once onto the table (with a soft drop shadow,
and a lamp's glare on those lying under it) into a static layer kept while
nothing at rest changes; each frame copies it, composites the moving cards
and the hands (motion-blurred along the fastest card's movement, with their
shadow on the table), then the camera: its tilt, defocus, the light (cast,
exposure, the gain of ``Light`` actions), the sensor's noise and JPEG
(:meth:`Renderer.camera`). The effects of the hard table come from
:mod:`vision.table_conditions`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from vision import table_conditions as tc
from vision.simulator.conditions import EASY, SimConditions
from vision.simulator.deck import Deck
from vision.simulator.errors import SimulatorError
from vision.simulator.hands import draw_hand, hand_extent
from vision.simulator.layout import Pose, TableLayout
from vision.simulator.timeline import Placed


def rounded_alpha(w: int, h: int, radius: int) -> np.ndarray:
    """A card's coverage: 1 inside a rounded rectangle, anti-aliased corners."""
    a = np.zeros((h, w), np.float32)
    cv2.rectangle(a, (radius, 0), (w - 1 - radius, h - 1), 1.0, -1)
    cv2.rectangle(a, (0, radius), (w - 1, h - 1 - radius), 1.0, -1)
    for cx, cy in ((radius, radius), (w - 1 - radius, radius), (radius, h - 1 - radius), (w - 1 - radius, h - 1 - radius)):
        cv2.circle(a, (cx, cy), radius, 1.0, -1, cv2.LINE_AA)
    return a


def make_background(size: tuple[int, int], seed: int, path: str | Path | None) -> np.ndarray:
    """The empty table: an image file (a tile is repeated) or a drawn green felt, under a lamp's vignette."""
    w, h = size
    if path is not None:
        tex = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if tex is None:
            raise SimulatorError(f"cannot read background image {path}")
        if tex.shape[0] < 200:  # a small tile: repeat it
            reps = (h // tex.shape[0] + 1, w // tex.shape[1] + 1, 1)
            tex = np.tile(tex, reps)[:h, :w]
        img = cv2.resize(tex, (w, h), interpolation=cv2.INTER_AREA)
    else:
        rng = np.random.default_rng(seed + 1)
        base = np.array([52, 105, 38], np.float32)
        low = cv2.resize(rng.normal(0, 1, (9, 16)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.2)
        shade = 1 + 0.06 * low + 0.05 * fine
        img = np.clip(base[None, None, :] * shade[..., None], 0, 255)
    # a lamp above the middle: a soft vignette
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r = ((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2
    vignette = 1.08 - 0.5 * r
    return np.clip(img.astype(np.float32) * vignette[..., None], 0, 255).astype(np.uint8)


def _remap_tables(homography: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-point remap tables equal to ``cv2.warpPerspective(img, homography, size)`` (built once:
    remapping with them costs a third of warping every frame)."""
    w, h = size
    inv = np.linalg.inv(homography)
    xx, yy = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    pts = np.stack([xx, yy, np.ones_like(xx)], -1) @ inv.T
    mx = (pts[..., 0] / pts[..., 2]).astype(np.float32)
    my = (pts[..., 1] / pts[..., 2]).astype(np.float32)
    return cv2.convertMaps(mx, my, cv2.CV_16SC2)


def _light_table(camera: tc.TableConditions, seed: int) -> np.ndarray:
    """The camera's light (cast, exposure, tone curve; no noise) as a per-channel lookup table,
    measured by passing every grey level through :func:`vision.table_conditions.apply_light`
    with the same generator, so that the lamp is the same in every frame."""
    ramp = np.repeat(np.arange(256, dtype=np.uint8)[None, :, None], 3, axis=2)
    rng = np.random.default_rng([seed, 0x11647])
    return tc.apply_light(ramp, rng, camera.light, camera.cast, camera.exposure, 0.0)


class Renderer:
    """Draws the frames of one table: ``deck`` faces on the ``background`` (an image file or
    ``None`` for felt); ``noise`` is the sensor noise's standard deviation in grey levels,
    ``blur`` scales motion blur."""

    def __init__(self, layout: TableLayout, deck: Deck, *, seed: int = 0, background: str | Path | None = None,
                 noise: float = 2.5, blur: float = 0.5, conditions: SimConditions = EASY):
        self.layout = layout
        self.conditions = conditions
        cam = conditions.camera
        self.homography = (tc.tilt_homography(layout.size, cam.tilt, cam.tilt_direction)
                           if cam is not None and cam.tilt > 0 else None)
        self._tilt_maps = None if self.homography is None else _remap_tables(self.homography, layout.size)
        self._light_lut = None if cam is None else _light_table(cam, seed)
        self.size = layout.size
        self.deck = deck
        self.seed = seed
        self.noise = float(noise)
        self.blur = float(blur)
        self._background_path = background
        self._background: np.ndarray | None = None
        self._cw, self._ch = layout.card_px
        self._card_alpha = rounded_alpha(self._cw, self._ch, radius=max(2, self._cw // 14))

    def prepare(self, codes: Sequence[str]) -> None:
        """Scale these faces now, so that rendering later allocates nothing lasting."""
        for code in codes:
            self.deck.scaled(code, self._cw, self._ch)

    def background(self) -> np.ndarray:
        if self._background is None:
            self._background = make_background(self.size, self.seed, self._background_path)
        return self._background

    def noise_layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Three frames of sensor noise as (added, subtracted) uint8 layers, used in turn."""
        w, h = self.size
        rng = np.random.default_rng(self.seed + 7)
        noise = []
        cam = self.conditions.camera
        if cam is not None:
            # the camera's own noise (vision.table_conditions.apply_light: shot noise, colour
            # blotches when dim) measured on a mid-grey frame
            grey = np.full((h, w, 3), 128, np.uint8)
            for _ in range(3):
                n = tc.apply_light(grey, rng, cam.light, "neutral", 1.0, cam.noise).astype(np.float32)
                n -= n.mean()
                noise.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))
        elif self.noise > 0:
            for _ in range(3):
                n = rng.normal(0, self.noise, (h, w, 3)).astype(np.float32)
                noise.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))
        return noise

    def draw_card(self, canvas: np.ndarray, alpha: np.ndarray | None, code: str, pose: Pose, ox: int, oy: int, shadow: bool) -> None:
        """Composite one card onto ``canvas`` (uint8 BGR whose origin is (ox, oy))."""
        h, w = canvas.shape[:2]
        m = self.layout.card_matrix(pose, ox, oy)
        pts = self.layout.corners(pose) - (ox, oy)
        x0, y0 = np.floor(pts.min(0)).astype(int) - 8
        x1, y1 = np.ceil(pts.max(0)).astype(int) + 8
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            return
        m[0, 2] -= x0
        m[1, 2] -= y0
        face = self.deck.scaled(code, self._cw, self._ch)
        size = (x1 - x0, y1 - y0)
        img = cv2.warpAffine(face, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        a = cv2.warpAffine(self._card_alpha, m, size, flags=cv2.INTER_LINEAR, borderValue=0)
        roi = canvas[y0:y1, x0:x1]
        if shadow:
            ms = m.copy()
            ms[0, 2] += 3
            ms[1, 2] += 4
            sa = cv2.warpAffine(self._card_alpha, ms, size, flags=cv2.INTER_LINEAR, borderValue=0)
            sa = cv2.GaussianBlur(sa, (0, 0), 2.5) * 0.35
            roi[:] = (roi.astype(np.float32) * (1 - sa[..., None])).astype(np.uint8)
        a3 = a[..., None]
        roi[:] = (roi.astype(np.float32) * (1 - a3) + img.astype(np.float32) * a3 + 0.5).astype(np.uint8)
        if alpha is not None:
            np.maximum(alpha[y0:y1, x0:x1], a, out=alpha[y0:y1, x0:x1])

    def static_layer(self, resting: Sequence[Placed]) -> np.ndarray:
        """The table with the cards at rest on it, bottom of the pile first."""
        img = self.background().copy()
        for placed in resting:
            self.draw_card(img, None, placed.code, placed.pose, 0, 0, shadow=True)
            if self.conditions.lamp is not None:
                self._lamp_glare(img, placed)
        return img

    def _lamp_glare(self, img: np.ndarray, placed: Placed) -> None:
        """The lamp's glare on a card lying near the point under it (the same spot every frame)."""
        lamp = self.conditions.lamp
        w, h = self.size
        x, y, _ = placed.pose
        if np.hypot(x - lamp.x * w, y - lamp.y * h) > lamp.reach * self.layout.card_h:
            return
        quad = self.layout.corners(placed.pose)
        x0, y0 = np.maximum(np.floor(quad.min(0)).astype(int), 0)
        x1, y1 = np.minimum(np.ceil(quad.max(0)).astype(int) + 1, (w, h))
        if x1 <= x0 or y1 <= y0:
            return
        roi = img[y0:y1, x0:x1]
        lit = roi.copy()
        rng = np.random.default_rng([self.seed, placed.ident, 0x1A3F])
        tc.add_glare(lit, rng, quad - (x0, y0), lamp.radius, on_index=bool(rng.random() < 0.3))
        inside = tc.quad_mask(roi.shape, quad - (x0, y0))  # a glossy card shines, the felt does not
        roi[inside] = lit[inside]

    def camera(self, image: np.ndarray, gain: float) -> np.ndarray:
        """What the camera makes of the table: tilt, defocus, light and ``gain``, JPEG (the
        sensor's noise comes after, :meth:`add_noise`, so that a still table is processed once)."""
        cam = self.conditions.camera
        if cam is not None:
            if self._tilt_maps is not None:
                image = cv2.remap(image, *self._tilt_maps, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
            image = tc.defocus(image, cam.defocus * self.size[0] / 1280)  # the same lens at any frame size
            image = cv2.LUT(image, self._light_lut)
        if abs(gain - 1.0) > 1e-3:
            image = cv2.convertScaleAbs(image, alpha=gain)
        if cam is not None and cam.jpeg:
            image = tc.jpeg(image, cam.jpeg)
        return image

    @staticmethod
    def add_noise(image: np.ndarray, noise: list[tuple[np.ndarray, np.ndarray]], f: int) -> None:
        """The sensor's noise of frame ``f`` (one of :meth:`noise_layers` in turn), in place."""
        if noise:
            pos, neg = noise[f % len(noise)]
            cv2.add(image, pos, dst=image)
            cv2.subtract(image, neg, dst=image)

    def composite_moving(self, image: np.ndarray, moving: Sequence[Placed], hands: Sequence[tuple[int, Pose]],
                         prev_poses: dict[int, Pose]) -> None:
        """Draw the moving cards and the hands onto ``image``, blurred along the fastest
        card's movement since ``prev_poses`` (ident -> pose at the previous frame)."""
        w, h = self.size
        pts = []
        for placed in moving:
            pts.append(self.layout.corners(placed.pose))
        for seat_no, palm in hands:
            pts.extend(hand_extent(self.layout, seat_no, palm))
        allp = np.concatenate(pts)
        shadow = self.conditions.shadow
        sdx, sdy = (o * self.layout.card_h for o in self.conditions.shadow_offset)
        pad = 12 + (int(abs(sdx) + abs(sdy) + self.layout.card_h * 0.15) if shadow > 0 else 0)
        x0, y0 = np.floor(allp.min(0)).astype(int) - pad
        x1, y1 = np.ceil(allp.max(0)).astype(int) + pad
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            return
        layer = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
        alpha = np.zeros((y1 - y0, x1 - x0), np.float32)
        speed = 0.0
        vx = vy = 0.0
        for placed in moving:
            pose = placed.pose
            self.draw_card(layer, alpha, placed.code, pose, x0, y0, shadow=False)
            if placed.ident in prev_poses:
                p = prev_poses[placed.ident]
                dx, dy = pose[0] - p[0], pose[1] - p[1]
                if math.hypot(dx, dy) > speed:
                    speed, vx, vy = math.hypot(dx, dy), dx, dy
        for seat_no, palm in hands:
            draw_hand(layer, alpha, self.layout, seat_no, palm, x0, y0)
        kx = int(abs(vx) * self.blur) | 1
        ky = int(abs(vy) * self.blur) | 1
        lf = layer.astype(np.float32) * alpha[..., None]
        if kx > 1 or ky > 1:
            lf = cv2.blur(lf, (kx, ky))
            alpha = cv2.blur(alpha, (kx, ky))
        roi = image[y0:y1, x0:x1]
        if shadow > 0:  # the hands' and carried cards' shadow on what lies under them
            shift = np.float32([[1, 0, sdx], [0, 1, sdy]])
            sa = cv2.warpAffine(alpha, shift, (alpha.shape[1], alpha.shape[0]))
            sa = cv2.GaussianBlur(sa, (0, 0), max(1.5, self.layout.card_h * 0.05)) * shadow
            roi[:] = (roi.astype(np.float32) * (1 - sa[..., None])).astype(np.uint8)
        a3 = alpha[..., None]
        roi[:] = np.clip(roi.astype(np.float32) * (1 - a3) + lf + 0.5, 0, 255).astype(np.uint8)

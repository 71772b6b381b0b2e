"""Table scenes with known camera troubles, for the camera check's tests and benchmark.

:func:`trouble_scene` draws a real-table scene (:func:`vision.synth.make_table_scene`)
and sets each of the check's troubles on or off in it, whatever the draw gave:

* ``dim``: a dim room (exposure 0.35–0.7 with its sensor noise 5–14) — else a lit
  one (0.8–1.15, noise 1–4);
* ``glare``: a hard glare spot on one card (radius 0.2–0.45 of its short side), its core
  clipped white as a lamp's reflection is on a sensor whatever the room's light — else none;
* ``blur``: the lens out of focus, defocus sigma 2–3 px — else 0–1.4 px;
* ``small``: cards 70–105 px long — else 122–194 px (17–27 % of a 720-line frame).

The other conditions (tilt, hands and shadows, colour cast, thrown cards, JPEG)
stay as drawn at ``severity``. :func:`factorial` gives every combination of the
four troubles in turn, so that each is on in half of a set and off in the other half.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision import synth

TROUBLES = ("dim", "glare", "blur", "small")


def _set(rng: np.random.Generator, on: dict[str, bool]):
    def adjust(cond):
        if on["dim"]:
            cond = replace(cond, light="dim", exposure=float(rng.uniform(0.35, 0.7)), noise=float(rng.uniform(5, 14)))
        else:
            cond = replace(cond, light="normal", exposure=float(rng.uniform(0.8, 1.15)), noise=float(rng.uniform(1, 4)))
        cards = [replace(c, glare=0.0, glare_on_index=False) for c in cond.cards]
        if on["glare"] and cards:
            k = int(rng.integers(len(cards)))
            cards[k] = replace(cards[k], glare=float(rng.uniform(0.2, 0.45)), glare_on_index=bool(rng.random() < 0.5))
        cond = replace(cond, cards=tuple(cards), glare_clips=True)
        sigma = float(rng.uniform(2.0, 3.0)) if on["blur"] else float(rng.uniform(0.0, 1.4))
        return replace(cond, defocus=sigma)
    return adjust


def trouble_scene(seed: int, on: dict[str, bool], size: tuple[int, int] = (1280, 720), severity: float = 1.0,
                  faces=None) -> synth.Scene:
    """One scene with the troubles ``on`` (``{"dim": True, ...}``; missing ones are off)."""
    on = {t: bool(on.get(t, False)) for t in TROUBLES}
    rng = np.random.default_rng(seed)
    side = np.random.default_rng(seed + 7_000_003)  # the troubles' own draws: the scene stays the same
    length = float(side.uniform(70, 105)) if on["small"] else float(side.uniform(0.17, 0.27) * size[1])
    scene = synth.make_table_scene(rng, faces or synth.builtin_faces(), size=size, severity=severity,
                                   card_length=length, adjust=_set(side, on))
    scene.conditions["troubles"] = [t for t in TROUBLES if on[t]]
    return scene


def factorial(index: int) -> dict[str, bool]:
    """The troubles of scene ``index`` of a factorial set: bit k of ``index`` sets trouble k."""
    return {t: bool(index >> k & 1) for k, t in enumerate(TROUBLES)}


def inside_share(corners, size: tuple[int, int]) -> float:
    """The share of a card (its corners) that lies inside a ``size`` (width, height) frame."""
    import cv2

    w, h = size
    q = np.asarray(corners, np.float32).reshape(4, 2)
    area = abs(float(cv2.contourArea(q)))
    if area <= 0:
        return 0.0
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    common, _ = cv2.intersectConvexConvex(np.ascontiguousarray(q), frame)
    return min(1.0, float(common) / area)


def cut_scene(seed: int, size: tuple[int, int] = (1280, 720), share: float = 0.7, faces=None) -> synth.Scene | None:
    """A scene with a card cut by the picture's edge: a trouble-free scene seen through a
    window ``share`` of its size (the camera aimed off the table's middle and a little too
    close) whose edge crosses one card within 0.3 of its short side from its centre, so that
    20-80 % of it shows. ``None`` when no card of the scene can be cut so. The scene's cards
    carry their new corners and ``inside`` (the share in the frame); ``conditions["cut"]``
    names the edge."""
    import cv2

    scene = trouble_scene(seed, {}, size=size, faces=faces)
    rng = np.random.default_rng(seed + 9_000_011)
    w, h = size
    ww, wh = int(w * share), int(h * share)
    options = []
    for card in scene.cards:
        q = np.asarray(card.corners, np.float32)
        cx, cy = q.mean(0)
        short = min(float(np.linalg.norm(q[0] - q[1])), float(np.linalg.norm(q[1] - q[2])))
        u = float(rng.uniform(-0.3, 0.3)) * short
        free_x = float(np.clip(cx - ww / 2 + rng.uniform(-ww / 4, ww / 4), 0, w - ww))
        free_y = float(np.clip(cy - wh / 2 + rng.uniform(-wh / 4, wh / 4), 0, h - wh))
        for side, x0, y0 in (("left", cx + u, free_y), ("right", cx + u - ww, free_y),
                             ("top", free_x, cy + u), ("bottom", free_x, cy + u - wh)):
            if 0 <= x0 <= w - ww and 0 <= y0 <= h - wh:
                options.append((side, int(x0), int(y0)))
    if not options:
        return None
    side, x0, y0 = options[int(rng.integers(len(options)))]
    image = cv2.resize(scene.image[y0:y0 + wh, x0:x0 + ww], size, interpolation=cv2.INTER_AREA)
    scale = np.array([w / ww, h / wh], np.float32)
    cards = []
    for card in scene.cards:
        corners = (np.asarray(card.corners, np.float32) - np.array([x0, y0], np.float32)) * scale
        cards.append(replace(card, corners=corners, inside=inside_share(corners, size)))
    conditions = dict(scene.conditions or {}, troubles=["cut"], cut=side)
    return synth.Scene(image, cards, scene.distractors, conditions, scene.backs)

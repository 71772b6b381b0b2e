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

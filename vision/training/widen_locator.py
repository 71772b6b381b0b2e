"""A wider card locator that starts where a trained narrower one left off.

    .venv-train/bin/python -m vision.training.widen_locator --from models/training/locator-run.pt \
        --to models/training/locator-w2/locator_full.pt --width 2

``LocatorNet(width=k)`` has k times the channels of ``LocatorNet(width=1)`` in
every layer. Trained from scratch it would need the hours the narrow one has
already had; instead each of its channels is a copy of one of the narrow
network's (new channel ``j`` copies old channel ``j mod c``), so that it
computes exactly the same maps (a function-preserving widening, as in
Net2Net):

* a depthwise convolution, a batch norm: each copy gets its channel's filter
  and statistics;
* a convolution reading widened channels: the copies of an input channel share
  its weight, split at random between them (the parts sum to the weight), so
  the sum over the copies is the narrow network's sum. The random split makes
  the copies' outgoing weights differ, so their gradients differ and training
  pulls the copies apart instead of keeping them twins.

The result is written as a bare state dict, which ``build_locator --resume
--work DIR`` takes as ``DIR/locator_full.pt``: its weights, a new schedule.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def widened_tensor(old, new_shape, factor: int, rng: np.random.Generator):
    """``old`` grown to ``new_shape`` by copying channels; an input dimension that grows is split."""
    import torch

    old_shape = tuple(old.shape)
    if old_shape == tuple(new_shape):
        return old.clone()
    grown = [n != o for n, o in zip(new_shape, old_shape)]
    for n, o, g in zip(new_shape, old_shape, grown):
        if g and n != factor * o:
            raise ValueError(f"cannot widen a tensor of shape {old_shape} to {tuple(new_shape)} by {factor}")
    out = old
    for dim, g in enumerate(grown):
        if g:
            out = torch.cat([out] * factor, dim=dim)  # new channel j = old channel j mod c
    if len(old_shape) == 4 and grown[1]:
        # the input channels of a convolution grew: split each weight among its copies
        parts = rng.dirichlet(np.full(factor, 4.0), size=(new_shape[0], old_shape[1]) + tuple(old_shape[2:]))
        parts = torch.from_numpy(np.moveaxis(parts, -1, 1).reshape(new_shape[0], factor * old_shape[1], *old_shape[2:]))
        out = out * parts.to(out.dtype)
    return out.contiguous()


def widen_state(state: dict, width: int, seed: int = 0) -> dict:
    """The state dict of ``LocatorNet(width)`` computing what the width-1 ``state`` computes."""
    from vision.training.locator_model import LocatorNet

    old_width = int(state["stem.0.0.weight"].shape[0]) // 16
    if width % old_width:
        raise ValueError(f"a locator of width {old_width} widens to a multiple of it, not {width}")
    factor = width // old_width
    target = LocatorNet(width=width).state_dict()
    if set(target) != set(state):
        raise ValueError("the checkpoint is not a LocatorNet's state dict")
    rng = np.random.default_rng(seed)
    return {k: widened_tensor(state[k], tuple(v.shape), factor, rng) for k, v in target.items()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="widen_locator", description=__doc__.split("\n\n")[0])
    p.add_argument("--from", dest="source", required=True, help="a locator checkpoint (locator-run.pt or a bare state dict)")
    p.add_argument("--to", required=True, help="where the widened weights go (WORK/locator_full.pt for build_locator --resume)")
    p.add_argument("--width", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    import torch

    from vision.training.run_state import load_checkpoint

    tensors, _ = load_checkpoint(Path(a.source))
    try:
        wide = widen_state(tensors["model"], a.width, a.seed)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = Path(a.to)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    torch.save(wide, tmp)
    tmp.replace(out)
    print(f"{a.source} widened to width {a.width} -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

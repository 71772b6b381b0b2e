"""Where a training run's steps run: the CPU, or a GPU on a machine that lends one.

``step_device(name, log)`` is the ``torch.device`` for ``--device NAME``, with a
GPU's fast paths switched on and its name logged, or None (the error printed)
when ``cuda`` is asked for and torch sees no GPU. ``on_cpu(net)`` is the network
to export: itself on the CPU, a CPU copy of it on a GPU (the graph traced free of
device copies).
"""

from __future__ import annotations

import sys
from typing import Callable


def step_device(name: str, log: Callable[[str], None]):
    import torch

    device = torch.device(name)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            print("error: --device cuda: no GPU that torch can use here", file=sys.stderr)
            return None
        torch.backends.cudnn.benchmark = True
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True
        log(f"steps on {torch.cuda.get_device_name(device)}")
    return device


def on_cpu(net):
    """``net`` where an export traces it: itself when on the CPU, else a copy moved there."""
    import copy

    if next(net.parameters()).device.type == "cpu":
        return net
    return copy.deepcopy(net).cpu()

"""Rebuild a training checkpoint from an exported ``cards.onnx``.

    .venv-train/bin/python -m vision.training.checkpoint_from_onnx [--model models/cards.onnx] [--work models/training]

``build_models --resume`` starts from ``--work``/cardnet.pt, which lives outside
the repository and is lost with the machine's ``/tmp``. The exported model holds
the same weights, except that each batch norm is folded into the convolution
before it (``W' = W·γ/σ``, ``b' = β − μ·γ/σ``). This writes an equivalent
:class:`vision.training.model.CardNet`: each convolution gets ``W'``, and its
batch norm gets the mean ``m`` and variance ``v`` of ``W'x`` over a few
synthetic training batches, ``γ = sqrt(v + ε)`` and ``β = m + b'``. In eval mode
that is exactly the exported function (checked against onnxruntime); in train
mode the batch statistics stay close to ``m`` and ``v``, so a further cycle
starts where the exported model left off.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def conv_bn_pairs(net) -> list:
    """(conv, batch norm) in the order the exported graph runs them."""
    pairs = [(net._conv_stem, net._bn0)]
    for b in net._blocks:
        if hasattr(b, "_expand_conv"):
            pairs.append((b._expand_conv, b._bn0))
        pairs.append((b._depthwise_conv, b._bn1))
        pairs.append((b._project_conv, b._bn2))
    pairs.append((net.head[0], net.head[1]))
    return pairs


def locator_pairs(net) -> list:
    """(conv, batch norm or None) of :class:`LocatorNet` in the order its forward pass runs them."""
    import torch
    from torch import nn

    order = []
    hooks = [m.register_forward_hook(lambda mod, i, o: order.append(mod)) for m in net.modules() if isinstance(m, nn.Conv2d)]
    with torch.no_grad():
        net(torch.zeros(1, 3, 64, 64))
    for h in hooks:
        h.remove()
    bn_after = {}
    for m in net.modules():
        if isinstance(m, nn.Sequential):
            kids = list(m)
            for a, b in zip(kids, kids[1:]):
                if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
                    bn_after[a] = b
    return [(c, bn_after.get(c)) for c in order]


def rebuild_locator(model_path: str, work: str, decks: str | None, backgrounds: str | None, scenes: int = 24) -> Path:
    """Write ``work``/locator_full.pt, the :class:`LocatorNet` equivalent of ``model_path``
    (``build_locator --resume`` starts from it); batch-norm statistics from ``scenes`` training scenes."""
    import onnx
    import onnxruntime as ort
    import torch
    from onnx import numpy_helper

    from vision.locator import input_shape
    from vision.training.locator_data import make_locator_scene
    from vision.training.locator_targets import pad_to
    from vision.training.data import training_decks
    from vision.training.locator_model import LocatorNet

    model = onnx.load(model_path)
    init = {i.name: numpy_helper.to_array(i).copy() for i in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    net = LocatorNet()
    pairs = locator_pairs(net)
    if len(convs) != len(pairs):
        raise SystemExit(f"{model_path}: {len(convs)} convolutions, LocatorNet has {len(pairs)}")
    for node, (conv, bn) in zip(convs, pairs):
        weight = init[node.input[1]]
        bias = init[node.input[2]] if len(node.input) > 2 else np.zeros(weight.shape[0], np.float32)
        if tuple(weight.shape) != tuple(conv.weight.shape):
            raise SystemExit(f"{model_path}: {node.input[1]} is {weight.shape}, LocatorNet wants {tuple(conv.weight.shape)}")
        conv.weight.data = torch.from_numpy(weight)
        if bn is None:
            conv.bias.data = torch.from_numpy(bias)
            continue
        bn.weight.data.fill_(1.0)
        bn.bias.data = torch.from_numpy(bias)
        bn.running_mean.zero_()
        bn.running_var.fill_(1.0 - bn.eps)
    net.eval()
    rng = np.random.default_rng(555)
    deck_list = list(training_decks(decks).values())
    imgs = [make_locator_scene(rng, deck_list, backgrounds).image for _ in range(scenes)]
    h = input_shape(imgs[0].shape[1], imgs[0].shape[0])[1]
    x = torch.from_numpy(np.stack([pad_to(i, h)[..., ::-1].transpose(2, 0, 1) for i in imgs]).astype(np.float32) / 255.0)
    stats = {}
    hooks = [conv.register_forward_hook(lambda mod, inp, out, k=k: stats.__setitem__(k, (out.mean((0, 2, 3)), out.var((0, 2, 3), unbiased=False))))
             for k, (conv, bn) in enumerate(pairs) if bn is not None]
    with torch.no_grad():
        net(x)
    for hook in hooks:
        hook.remove()
    for k, (_, bn) in enumerate(pairs):
        if bn is None:
            continue
        mean, var = stats[k]
        bias = bn.bias.data.clone()
        bn.running_mean.copy_(mean)
        bn.running_var.copy_(var)
        bn.weight.data = torch.sqrt(var + bn.eps)
        bn.bias.data = mean + bias
    with torch.no_grad():
        out = net(x).numpy()
    ref = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"]).run(None, {"image": x.numpy()})[0]
    diff = float(np.abs(ref - out).max())
    print(f"largest map difference to {model_path} over {len(x)} scenes: {diff:.2e}")
    if diff > 1e-3:
        raise SystemExit("the rebuilt locator does not match the exported model")
    meta = next((prop for prop in model.metadata_props if prop.key == "tarotmate"), None)
    info = json.loads(meta.value) if meta is not None else {}
    dest = Path(work) / "locator_full.pt"
    dest.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state": net.state_dict(), "steps": info.get("steps", 0), "minutes": info.get("minutes", 0.0)}, dest)
    print(f"wrote {dest}")
    return dest


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="checkpoint_from_onnx", description=__doc__.splitlines()[0])
    p.add_argument("--model", default=None, help="the exported model (default models/cards.onnx, or models/locator.onnx with --locator)")
    p.add_argument("--locator", action="store_true", help="rebuild the card locator's checkpoint (locator_full.pt) instead")
    p.add_argument("--work", default=str(ROOT / "models" / "training"), help="writes cardnet.pt (or locator_full.pt) here")
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"))
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"))
    p.add_argument("--batches", type=int, default=4, help="batches of 32 crops for the statistics")
    a = p.parse_args(argv)
    decks_dir = a.decks if Path(a.decks).is_dir() else None
    bg_dir = a.backgrounds if Path(a.backgrounds).is_dir() else None
    if a.locator:
        rebuild_locator(a.model or str(ROOT / "models" / "locator.onnx"), a.work, decks_dir, bg_dir)
        return 0
    a.model = a.model or str(ROOT / "models" / "cards.onnx")

    import onnx
    import onnxruntime as ort
    import torch
    from onnx import numpy_helper

    from vision.training.data import LABELS, Recipe, make_batch
    from vision.training.model import CardNet

    model = onnx.load(a.model)
    init = {i.name: numpy_helper.to_array(i).copy() for i in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    net = CardNet(len(LABELS))
    pairs = conv_bn_pairs(net)
    if len(convs) != len(pairs):
        raise SystemExit(f"{a.model}: {len(convs)} convolutions, CardNet has {len(pairs)}")
    for node, (conv, bn) in zip(convs, pairs):
        weight, bias = init[node.input[1]], init[node.input[2]]
        if tuple(weight.shape) != tuple(conv.weight.shape):
            raise SystemExit(f"{a.model}: {node.input[1]} is {weight.shape}, CardNet wants {tuple(conv.weight.shape)}")
        conv.weight.data = torch.from_numpy(weight)
        bn.weight.data.fill_(1.0)  # an identity batch norm plus the folded bias, for now
        bn.bias.data = torch.from_numpy(bias)
        bn.running_mean.zero_()
        bn.running_var.fill_(1.0 - bn.eps)
    net.project.weight.data = torch.from_numpy(init["project.weight"])
    net.project.bias.data = torch.from_numpy(init["project.bias"])
    net.classifier.data = torch.from_numpy(init["classifier"])
    net.mean.copy_(torch.from_numpy(init["mean"]).view(1, 3, 1, 1))
    net.std.copy_(torch.from_numpy(init["std"]).view(1, 3, 1, 1))
    net.eval()

    meta = next((prop for prop in model.metadata_props if prop.key == "tarotmate"), None)
    w, h = (112, 192)
    if meta is not None:
        w, h = json.loads(meta.value).get("input_size", [w, h])
    decks = a.decks if Path(a.decks).is_dir() else None
    bg = a.backgrounds if Path(a.backgrounds).is_dir() else None
    recipe = Recipe(decks, bg, (w, h))
    x = np.concatenate([make_batch((777_000 + i, 32, recipe))[0] for i in range(a.batches)])
    xt = torch.from_numpy(x).float().div_(255.0)

    stats = {}
    hooks = [conv.register_forward_hook(lambda mod, inp, out, k=k: stats.__setitem__(k, (out.mean((0, 2, 3)), out.var((0, 2, 3), unbiased=False))))
             for k, (conv, _) in enumerate(pairs)]
    with torch.no_grad():
        net(xt)
    for hook in hooks:
        hook.remove()
    for k, (_, bn) in enumerate(pairs):
        mean, var = stats[k]
        bias = bn.bias.data.clone()
        bn.running_mean.copy_(mean)
        bn.running_var.copy_(var)
        bn.weight.data = torch.sqrt(var + bn.eps)
        bn.bias.data = mean + bias

    with torch.no_grad():
        logits, _ = net(xt)
    ref = ort.InferenceSession(a.model, providers=["CPUExecutionProvider"]).run(None, {"input": xt.numpy()})[0]
    diff = float(np.abs(ref - logits.numpy()).max())
    print(f"largest logit difference to {a.model} over {len(x)} crops: {diff:.2e}")
    if diff > 1e-3:
        raise SystemExit("the rebuilt network does not match the exported model")
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), work / "cardnet.pt")
    print(f"wrote {work / 'cardnet.pt'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

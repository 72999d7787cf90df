# spec: {"model": "c3_warn_init_only.py:ConvNormAct", "init": {"args": [3, 8], "kwargs": {"padding": 3}}, "inputs": [{"tensor": [2, 3, 16, 16]}], "calls": 3}
import warnings

import torch
from torch import nn


class ConvNormAct(nn.Module):
    """Warns once, at construction, about an unusual padding; forward is plain."""

    def __init__(self, in_chs, out_chs, kernel_size=3, padding=None, norm=True):
        super().__init__()
        if padding is None:
            padding = kernel_size // 2
        elif padding != kernel_size // 2:
            warnings.warn(f"padding={padding} does not preserve the spatial size for kernel {kernel_size}")
        self.conv = nn.Conv2d(in_chs, out_chs, kernel_size, padding=padding, bias=not norm)
        self.bn = nn.BatchNorm2d(out_chs) if norm else nn.Identity()
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))

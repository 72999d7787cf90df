# spec: {"model": "conv_kernel_tuple_arg.py:DepthwiseMixer", "init": {"args": [8]}, "inputs": [{"tensor": [1, 8, 12, 12]}, {"tuple": [1, 1]}], "variants": [{"inputs": [{"tensor": [1, 8, 12, 12]}, {"tuple": [2, 2]}]}, {"inputs": [{"tensor": [1, 8, 12, 12]}, {"tuple": [3, 1]}]}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class DepthwiseMixer(nn.Module):
    """ConvNeXt-like depthwise mixer whose dilation is passed per call (multi-dilation evaluation)."""

    def __init__(self, channels):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(channels, 1, 3, 3) * 0.1)
        self.pw = nn.Conv2d(channels, channels, 1)

    def forward(self, x, dilation=(1, 1)):
        pad = tuple(d for d in dilation)
        y = F.conv2d(x, self.weight, padding=pad, dilation=dilation, groups=x.shape[1])
        return x + self.pw(F.gelu(y))

# spec: {"model": "s4_bn_freeze_after_warmup.py:Backbone", "init": {"args": [4]}, "inputs": [{"tensor": [2, 4, 8, 8]}], "calls": 3, "mode": "train"}
import torch
from torch import nn


class Backbone(nn.Module):
    """Detectron-style: BatchNorm statistics are frozen (`.eval()`) once warmup is over."""

    def __init__(self, channels, freeze_bn_after=1):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.freeze_bn_after = freeze_bn_after
        self.iter = 0

    def forward(self, x):
        self.iter += 1
        if self.iter > self.freeze_bn_after:
            self.bn.eval()
        return torch.relu(self.bn(self.conv(x)))

# spec: {"model": "cnt_cosine_aux_weight.py:SegHead", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 8, 6, 6]}], "calls": 4, "mode": "train"}
import math

import torch
from torch import nn


class SegHead(nn.Module):
    """An mmseg-style decode head with an auxiliary branch whose loss weight follows a cosine
    decay over the iterations counted on the head."""

    def __init__(self, channels, num_classes, total_iters=3, aux_weight=0.4):
        super().__init__()
        self.conv_seg = nn.Conv2d(channels, num_classes, 1)
        self.aux = nn.Conv2d(channels, num_classes, 3, padding=1)
        self.total_iters = total_iters
        self.aux_weight = aux_weight
        self.global_iter = 0

    def forward(self, feats):
        out = self.conv_seg(feats)
        progress = min(self.global_iter, self.total_iters) / self.total_iters
        w = self.aux_weight * 0.5 * (1.0 + math.cos(math.pi * progress))
        self.global_iter += 1
        aux = self.aux(feats)
        return out + w * aux

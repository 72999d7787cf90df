# spec: {"model": "det_centerness_per_image.py:CenternessHeadLoss", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8, 6, 6]}, {"tensor": [2, 36], "init": "rand"}, {"tensor": [2, 36], "dtype": "int64", "init": "randint", "low": 0, "high": 3}]}
import torch
import torch.nn.functional as F
from torch import nn


class CenternessHeadLoss(nn.Module):
    """FCOS-style centerness branch whose loss is computed image by image on the positive locations (per-image loss loops of detection heads)."""

    def __init__(self, ch):
        super().__init__()
        self.tower = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.GroupNorm(2, ch), nn.ReLU())
        self.centerness = nn.Conv2d(ch, 1, 3, padding=1)

    def forward(self, feats, ctr_targets, labels):
        ctr = self.centerness(self.tower(feats)).flatten(1)
        losses = []
        for i in range(ctr.shape[0]):
            pos = labels[i] > 0
            pred = ctr[i][pos]
            target = ctr_targets[i][pos]
            losses.append(F.binary_cross_entropy_with_logits(pred, target, reduction="sum") / target.numel())
        return torch.stack(losses).mean()

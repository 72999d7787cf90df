# spec: {"model": "loss_ohem_ce.py:OhemCrossEntropy", "inputs": [{"tensor": [2, 6, 12, 12]}, {"tensor": [2, 12, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 6}]}
import torch
import torch.nn.functional as F
from torch import nn


class OhemCrossEntropy(nn.Module):
    """Online hard example mining for semantic segmentation (mmseg / HRNet style)."""

    def __init__(self, thresh=0.7, min_kept=64, ignore_index=255):
        super().__init__()
        self.thresh = thresh
        self.min_kept = min_kept
        self.ignore_index = ignore_index

    def forward(self, logits, target):
        pixel_losses = F.cross_entropy(logits, target, ignore_index=self.ignore_index, reduction="none")
        with torch.no_grad():
            prob = logits.softmax(1).gather(1, target.unsqueeze(1)).squeeze(1)
            hard = prob < self.thresh
        losses = pixel_losses.masked_select(hard)
        if losses.numel() < self.min_kept:
            losses = pixel_losses.flatten().topk(self.min_kept).values
        return losses.mean()

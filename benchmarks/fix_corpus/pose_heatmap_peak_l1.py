# spec: {"model": "pose_heatmap_peak_l1.py:PeakOffsetLoss", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8, 6, 6]}, {"tensor": [2, 6, 6], "init": "rand"}, {"tensor": [2, 2, 6, 6]}]}
import torch
from torch import nn


class PeakOffsetLoss(nn.Module):
    """CenterNet-style offset loss: an L1 loss on the predicted offsets at the annotated
    peaks only, the peaks found with `nonzero()` and read through their coordinates."""

    def __init__(self, in_ch):
        super().__init__()
        self.offset_head = nn.Conv2d(in_ch, 2, 3, padding=1)

    def forward(self, feats, heatmap, offset_gt):
        offset = self.offset_head(feats).permute(0, 2, 3, 1)
        target = offset_gt.permute(0, 2, 3, 1)
        peaks = heatmap > 0.8
        idx = peaks.nonzero()
        err = (offset - target).abs()
        loss = err[idx[:, 0], idx[:, 1], idx[:, 2]].sum() / max(len(idx), 1)
        return loss

# spec: {"model": "lx_center_loss_unique_method.py:CenterLoss", "init": {"args": [6, 4]}, "inputs": [{"tensor": [10, 6]}, {"tensor": [10], "dtype": "int64", "data": [0, 0, 1, 1, 1, 3, 3, 0, 1, 3]}]}
import torch
from torch import nn


class CenterLoss(nn.Module):
    """Face-recognition center loss over the labels present in the batch, background label 0 skipped."""

    def __init__(self, dim, num_classes, background=0):
        super().__init__()
        self.centers = nn.Parameter(torch.randn(num_classes, dim))
        self.num_classes = num_classes
        self.background = background

    def forward(self, feats, labels):
        loss = feats.new_zeros(())
        for c in labels.unique():
            if c == self.background:
                continue
            w = (labels == c).float()[:, None]
            diff = (feats - self.centers[c]) * w
            loss = loss + diff.pow(2).sum() / w.sum()
        return loss

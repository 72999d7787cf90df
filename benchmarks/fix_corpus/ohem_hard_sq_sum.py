# spec: {"model": "ohem_hard_sq_sum.py:HardSq", "inputs": [{"tensor": [4, 10]}, {"tensor": [4, 10], "init": "rand"}]}
import torch
from torch import nn


class HardSq(nn.Module):
    """Online hard example mining for regression (detectron-like): errors above a threshold
    are squared and summed, normalized by the number of all elements."""

    def __init__(self, dim=10, thresh=0.3):
        super().__init__()
        self.reg = nn.Linear(dim, dim)
        self.thresh = thresh

    def forward(self, x, target):
        err = (self.reg(x) - target).abs()
        hard = err[err > self.thresh]
        loss = (hard**2).sum() / err.numel()
        return loss

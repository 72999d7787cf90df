# spec: {"model": "r3_loss_history_list.py:TrackedLoss", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}, {"tensor": [4, 8]}], "calls": 4}
import torch
from torch import nn


class TrackedLoss(nn.Module):
    """A loss module keeping the last losses on self for a smoothed value."""

    def __init__(self, dim, window=3):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.window = window
        self.history = []

    def forward(self, pred, target):
        loss = ((self.proj(pred) - target) ** 2).mean()
        self.history.append(loss.detach())
        recent = self.history[-self.window :]
        smooth = sum(recent) / len(recent)
        return loss, smooth

# spec: {"model": "cnt_loss_running_mean.py:RegressionLoss", "init": {"args": [5]}, "inputs": [{"tensor": [4, 5]}, {"tensor": [4, 1]}], "calls": 3}
import torch
from torch import nn


class RegressionLoss(nn.Module):
    """A loss module that keeps the running mean of its value for the progress bar, the way
    hand-written training loops track an average meter."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, 1)
        self.total = 0.0
        self.n = 0

    def forward(self, x, y):
        loss = (self.fc(x) - y).pow(2).mean()
        self.total += loss.item()
        self.n += 1
        return loss

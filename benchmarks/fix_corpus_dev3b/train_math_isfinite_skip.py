# spec: {"model": "train_math_isfinite_skip.py:GuardedLoss", "init": {"args": [10]}, "inputs": [{"tensor": [4, 10]}, {"tensor": [4, 1]}], "mode": "train"}
import math

from torch import nn


class GuardedLoss(nn.Module):
    """Regression step that skips a non-finite loss, checked with math.isfinite (fairseq-like)."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, 1)
        self.skipped = 0

    def forward(self, x, y):
        loss = nn.functional.smooth_l1_loss(self.fc(x), y)
        if not math.isfinite(loss):
            self.skipped += 1
            loss = loss * 0.0
        return loss

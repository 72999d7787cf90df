# spec: {"model": "wl_unbounded_bisect.py:Bisection", "inputs": [{"tensor": [3]}]}
import torch
from torch import nn


class Bisection(nn.Module):
    """Bisection without an iteration cap (no bound: no mechanical rewrite)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        target = torch.sigmoid(self.fc(x)).mean()
        lo, hi = torch.zeros(()), torch.ones(())
        while hi - lo > 1e-3:
            mid = (lo + hi) / 2
            if mid * mid < target:
                lo = mid
            else:
                hi = mid
        return x * lo

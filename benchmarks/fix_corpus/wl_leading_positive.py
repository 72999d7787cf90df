# spec: {"model": "wl_leading_positive.py:PrefixScorer", "inputs": [{"tensor": [6, 4]}]}
import torch
from torch import nn


class PrefixScorer(nn.Module):
    """Sums the scores of the leading run of positive rows (a while loop bounded by the size)."""

    def __init__(self, dim=4):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, x):
        t = self.score(x).squeeze(-1)
        total = torch.zeros(())
        i = 0
        while i < t.size(0) and t[i] > 0:
            total = total + t[i]
            i += 1
        return total

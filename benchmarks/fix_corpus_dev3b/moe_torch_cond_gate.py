# spec: {"model": "moe_torch_cond_gate.py:CondSkipBlock", "init": {"args": [10]}, "inputs": [{"tensor": [4, 10]}]}
import torch
from torch import nn


class CondSkipBlock(nn.Module):
    """A block that skips its expensive branch by a data-dependent gate with torch.cond
    (early-exit research code written for torch.compile)."""

    def __init__(self, dim, threshold=0.5):
        super().__init__()
        self.gate = nn.Linear(dim, 1)
        self.expert = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.threshold = threshold

    def forward(self, x):
        g = self.gate(x).sigmoid().mean()
        return torch.cond(g > self.threshold, lambda t: t + self.expert(t), lambda t: t.clone(), (x,))

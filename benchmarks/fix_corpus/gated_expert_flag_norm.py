# spec: {"model": "gated_expert_flag_norm.py:GatedBlock", "inputs": [{"tensor": [4, 8], "init": "randn"}]}
import torch
from torch import nn


class GatedBlock(nn.Module):
    """A residual block that routes through a heavy or a light path: always heavy when the flag
    is set, otherwise when the input is large (adaptive-computation style)."""

    def __init__(self, dim=8, thresh=3.0, use_gate=False):
        super().__init__()
        self.use_gate = use_gate
        self.thresh = thresh
        self.heavy = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.light = nn.Linear(dim, dim)

    def forward(self, x):
        if self.use_gate or x.norm() > self.thresh:
            y = self.heavy(x)
        else:
            y = self.light(x)
        return x + y

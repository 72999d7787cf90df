# spec: {"model": "norm_gated_skip_flag.py:AdaptiveDepthBlock", "init": {"args": [16]}, "inputs": [{"tensor": [4, 16], "init": "randn"}]}
import torch
from torch import nn


class AdaptiveDepthBlock(nn.Module):
    """A residual block skipped at inference when the update would be tiny (adaptive-computation habit)."""

    def __init__(self, dim, skip_eps=0.5, allow_skip=True):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.gate = nn.Linear(dim, 1)
        self.skip_eps = skip_eps
        self.allow_skip = allow_skip

    def forward(self, x):
        g = torch.sigmoid(self.gate(x))
        if self.allow_skip and not self.training and g.mean() < self.skip_eps:
            return x
        return x + g * self.ff(self.norm(x))

# spec: {"model": "lazy_proj_head.py:LazyProjectionHead", "init": {"args": [8]}, "inputs": [{"tensor": [4, 24]}]}
import torch
from torch import nn


class LazyProjectionHead(nn.Module):
    """A contrastive projection head that infers its input width on the first call (research code)."""

    def __init__(self, out_dim):
        super().__init__()
        self.out_dim = out_dim
        self.proj = None

    def forward(self, feats):
        if self.proj is None:
            self.proj = nn.Sequential(
                nn.Linear(feats.shape[-1], 2 * self.out_dim), nn.ReLU(), nn.Linear(2 * self.out_dim, self.out_dim)
            )
        z = self.proj(feats)
        return nn.functional.normalize(z, dim=-1)

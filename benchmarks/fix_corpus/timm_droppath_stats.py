# spec: {"model": "timm_droppath_stats.py:ResBlock", "init": {"args": [16]}, "inputs": [{"tensor": [8, 16]}], "mode": "train", "calls": 3}
import torch
from torch import nn


class ResBlock(nn.Module):
    """A residual MLP block with timm-style drop-path that records how many samples it kept."""

    def __init__(self, dim, drop_prob=0.25):
        super().__init__()
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)
        self.drop_prob = drop_prob
        self.kept_frac = 1.0
        self.last_stats = {}

    def forward(self, x):
        h = self.fc2(torch.relu(self.fc1(x)))
        if self.training:
            keep = torch.rand(x.shape[0], 1, device=x.device) >= self.drop_prob
            self.kept_frac = float(keep.float().mean())
            h = h * keep / (1 - self.drop_prob)
        self.last_stats = {"res_norm": h.norm(dim=-1).mean().item(), "x_norm": float(x.norm(dim=-1).mean())}
        return x + h

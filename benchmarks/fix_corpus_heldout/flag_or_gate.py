# spec: {"model": "flag_or_gate.py:GatedSkip", "init": {"args": [16]}, "inputs": [{"tensor": [4, 16]}]}
import torch
from torch import nn


class GatedSkip(nn.Module):
    """A highway-style skip that is taken when forced by config or when the gate is mostly open."""

    def __init__(self, dim, force_skip=False):
        super().__init__()
        self.gate = nn.Linear(dim, 1)
        self.body = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.force_skip = force_skip

    def forward(self, x):
        g = torch.sigmoid(self.gate(x))
        if self.force_skip or g.mean() > 0.5:
            return x + g * self.body(x)
        return self.body(x)

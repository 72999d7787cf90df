# spec: {"model": "mf_force_or_mean_gate.py:GatedResidual", "inputs": [{"tensor": [4, 8]}], "mode": "train"}
import torch
from torch import nn


class GatedResidual(nn.Module):
    """A residual branch taken when forced by config or when the gate opens (timm-like)."""

    def __init__(self, dim=8, force=False):
        super().__init__()
        self.gate = nn.Linear(dim, 1)
        self.branch = nn.Linear(dim, dim)
        self.force = force

    def forward(self, x):
        g = torch.sigmoid(self.gate(x))
        y = x
        if self.force or g.mean() > 0.5:
            y = x + self.branch(x) * g
        return y

# spec: {"model": "skip_layer_energy_gate.py:EarlyExitNet", "inputs": [{"tensor": [2, 8], "init": "randn"}]}
import torch
import torch.nn.functional as F
from torch import nn


class EarlyExitNet(nn.Module):
    """Early-exit classifier (BranchyNet-style): the exit head answers when its entropy is low,
    else the deep branch runs; `force_deep` is a debug flag."""

    def __init__(self, dim=8, classes=5, max_entropy=1.0, force_deep=False):
        super().__init__()
        self.force_deep = force_deep
        self.max_entropy = max_entropy
        self.stem = nn.Linear(dim, dim)
        self.exit_head = nn.Linear(dim, classes)
        self.deep = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, classes))

    def forward(self, x):
        h = F.relu(self.stem(x))
        p = F.softmax(self.exit_head(h), -1)
        entropy = -(p * p.log()).sum(-1).mean()
        if not self.force_deep and entropy < self.max_entropy:
            out = self.exit_head(h)
        else:
            out = self.deep(h)
        return out

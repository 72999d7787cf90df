# spec: {"model": "r3_seen_shapes_set.py:ShapeLogger", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "variants": [{"inputs": [{"tensor": [3, 8]}]}, {"inputs": [{"tensor": [4, 8]}]}]}
import torch
from torch import nn


class ShapeLogger(nn.Module):
    """Records each batch size it has seen in a set on the module."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.seen_batch_sizes = set()

    def forward(self, x):
        self.seen_batch_sizes.add(x.shape[0])
        return self.fc(x)

# spec: {"model": "misc_nonzero.py:SparseGate", "inputs": [{"tensor": [6, 8]}]}
import torch
from torch import nn


class SparseGate(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        mask = h > 0
        total = h[mask].sum()
        return x * total

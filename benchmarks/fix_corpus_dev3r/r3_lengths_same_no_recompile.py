# spec: {"model": "r3_lengths_same_no_recompile.py:Pooler", "init": {"args": [8]}, "inputs": [{"tensor": [3, 6, 8]}, [6, 4, 2]], "variants": [{"inputs": [{"tensor": [3, 6, 8], "init": "rand"}, [6, 4, 2]]}]}
import torch
from torch import nn


class Pooler(nn.Module):
    """Mean-pools each sequence over its length, the same lengths on both calls."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x, lengths):
        h = self.fc(x)
        return torch.stack([h[i, :n].mean(0) for i, n in enumerate(lengths)])

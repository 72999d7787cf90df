# spec: {"model": "debug_assert_close_equivariance.py:EquivariantLayer", "init": {"args": [6]}, "inputs": [{"tensor": [5, 6]}]}
import torch
from torch import nn


class EquivariantLayer(nn.Module):
    """DeepSets layer with a built-in permutation-equivariance check (research code): the
    output of a permuted input must match the permuted output."""

    def __init__(self, dim):
        super().__init__()
        self.lam = nn.Linear(dim, dim)
        self.gam = nn.Linear(dim, dim, bias=False)

    def layer(self, x):
        return self.lam(x) - self.gam(x.mean(0, keepdim=True))

    def forward(self, x):
        out = self.layer(x)
        perm = torch.arange(x.shape[0] - 1, -1, -1)
        torch.testing.assert_close(self.layer(x[perm]), out[perm])
        return out

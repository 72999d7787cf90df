# spec: {"model": "nz_act_sparsity_log.py:SparseMLP", "init": {"args": [12, 24]}, "inputs": [{"tensor": [3, 12]}]}
import torch
from torch import nn


class SparseMLP(nn.Module):
    """An MLP that reports the fraction of active units among the non-padding rows (sparse
    autoencoder / MoE logging), counting nonzeros of a selection."""

    def __init__(self, dim, hidden):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        h = torch.relu(self.up(x))
        rows = x.abs().sum(-1, keepdim=True).expand_as(h) > 0
        active = torch.count_nonzero(h[rows])
        density = active / h.numel()
        return self.down(h), density

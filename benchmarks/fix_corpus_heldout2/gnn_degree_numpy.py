# spec: {"model": "gnn_degree_numpy.py:DegreeScaledConv", "init": {"args": [8]}, "inputs": [{"tensor": [12, 8]}, {"tensor": [2, 30], "dtype": "int64", "init": "randint", "low": 0, "high": 12}]}
import numpy as np
import torch
from torch import nn


class DegreeScaledConv(nn.Module):
    """A GCN layer whose symmetric normalisation is computed with NumPy (ported from a scipy.sparse codebase)."""

    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x, edge_index):
        ei = edge_index.cpu().numpy()
        deg = np.bincount(ei[1], minlength=x.shape[0]).astype(np.float32) + 1.0
        norm = torch.from_numpy(1.0 / np.sqrt(deg[ei[0]] * deg[ei[1]]))
        h = self.lin(x)
        out = torch.zeros_like(h).index_add_(0, edge_index[1], h[edge_index[0]] * norm[:, None])
        return out + h

# spec: {"model": "np_gcn_degree_bincount.py:GCNLayer", "inputs": [{"tensor": [6, 8]}, {"tensor": [2, 14], "dtype": "int64", "init": "randint", "low": 0, "high": 6}]}
import numpy as np
import torch
from torch import nn


class GCNLayer(nn.Module):
    """PyG-era GCN layer whose degree normalisation is counted with NumPy."""

    def __init__(self, dim=8):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x, edge_index):
        n = x.shape[0]
        src, dst = edge_index
        deg = np.bincount(dst.cpu().numpy(), minlength=n)
        deg = torch.from_numpy(deg).to(x.dtype).clamp(min=1)
        norm = deg[src].rsqrt() * deg[dst].rsqrt()
        msg = self.lin(x)[src] * norm[:, None]
        return torch.zeros_like(x).index_add(0, dst, msg)

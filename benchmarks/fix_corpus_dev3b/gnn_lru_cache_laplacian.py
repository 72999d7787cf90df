# spec: {"model": "gnn_lru_cache_laplacian.py:ChebGridConv", "init": {"args": [4, 3]}, "inputs": [{"tensor": [2, 9, 4]}], "calls": 2}
import functools

import torch
from torch import nn


@functools.lru_cache(maxsize=8)
def grid_laplacian(side):
    n = side * side
    adj = torch.zeros(n, n)
    for i in range(n):
        if (i + 1) % side:
            adj[i, i + 1] = adj[i + 1, i] = 1.0
        if i + side < n:
            adj[i, i + side] = adj[i + side, i] = 1.0
    deg = adj.sum(1)
    return torch.eye(n) - adj / deg.sqrt().outer(deg.sqrt())


class ChebGridConv(nn.Module):
    """Chebyshev graph convolution on a square grid whose Laplacian is built once per size and
    memoised with functools.lru_cache (spectral GNN research code)."""

    def __init__(self, cin, side):
        super().__init__()
        self.side = side
        self.w0 = nn.Linear(cin, cin)
        self.w1 = nn.Linear(cin, cin)

    def forward(self, x):
        lap = grid_laplacian(self.side)
        return self.w0(x) + self.w1(lap @ x)

# spec: {"model": "gnn_print_degree.py:GINLayer", "init": {"args": [8]}, "inputs": [{"tensor": [10, 8]}, {"tensor": [2, 24], "dtype": "int64", "init": "randint", "low": 0, "high": 10}]}
import torch
from torch import nn


class GINLayer(nn.Module):
    """A GIN layer from a GNN course notebook, still printing the mean degree."""

    def __init__(self, dim, eps=0.0):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.eps = nn.Parameter(torch.tensor(eps))

    def forward(self, x, edge_index):
        src, dst = edge_index
        agg = torch.zeros_like(x).index_add_(0, dst, x[src])
        deg = torch.bincount(dst, minlength=x.size(0))
        print(f"mean degree: {deg.float().mean():.2f}")
        return self.mlp((1 + self.eps) * x + agg)

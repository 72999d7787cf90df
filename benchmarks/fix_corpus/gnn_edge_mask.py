# spec: {"model": "gnn_edge_mask.py:MaskedEdgeConv", "init": {"args": [8, 8]}, "inputs": [{"tensor": [12, 8]}, {"tensor": [2, 40], "dtype": "int64", "init": "randint", "low": 0, "high": 12}, {"tensor": [40], "init": "rand"}]}
import torch
from torch import nn


class MaskedEdgeConv(nn.Module):
    """An edge-weighted graph convolution that drops weak edges first (PyG-style message passing)."""

    def __init__(self, in_dim, out_dim, min_weight=0.2):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim)
        self.root = nn.Linear(in_dim, out_dim, bias=False)
        self.min_weight = min_weight

    def forward(self, x, edge_index, edge_weight):
        keep = edge_weight > self.min_weight
        edge_index = edge_index[:, keep]
        edge_weight = edge_weight[keep]
        src, dst = edge_index
        msg = self.lin(x)[src] * edge_weight.unsqueeze(-1)
        agg = torch.zeros(x.size(0), msg.size(-1)).index_add_(0, dst, msg)
        deg = torch.zeros(x.size(0)).index_add_(0, dst, edge_weight).clamp(min=1.0)
        return agg / deg.unsqueeze(-1) + self.root(x)

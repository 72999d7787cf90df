# spec: {"model": "gnn_kept_edges_scatter_sum.py:PrunedEdgePool", "inputs": [{"tensor": [6, 8], "init": "randn"}, {"tensor": [2, 20], "dtype": "int64", "init": "randint", "low": 0, "high": 6}, {"tensor": [20], "init": "rand"}], "mode": "train"}
import torch
from torch import nn


class PrunedEdgePool(nn.Module):
    """PyG-style message pooling over the edges whose weight passes a threshold: the source
    nodes of the kept edges are read through `edge_index[0][keep]`, then summed."""

    def __init__(self, dim=8, thresh=0.3):
        super().__init__()
        self.msg = nn.Linear(dim, dim)
        self.thresh = thresh

    def forward(self, x, edge_index, edge_weight):
        h = self.msg(x)
        src = edge_index[0]
        keep = edge_weight > self.thresh
        kept_src = src[keep]
        return h[kept_src].sum(0)

# spec: {"model": "gnn_nonzero_tuple_knn_edges.py:RadiusEdgeConv", "init": {"args": [3, 8]}, "inputs": [{"tensor": [10, 3], "init": "rand"}]}
import torch
from torch import nn


class RadiusEdgeConv(nn.Module):
    """Point-cloud edge convolution over a radius graph built in forward from the pairwise
    distances (nonzero with as_tuple=True gives the edge list)."""

    def __init__(self, n_in, n_out, radius=0.5):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(2 * n_in, n_out), nn.ReLU())
        self.radius = radius

    def forward(self, pos):
        dist = torch.cdist(pos, pos)
        src, dst = torch.nonzero(dist < self.radius, as_tuple=True)
        msg = self.mlp(torch.cat([pos[dst], pos[src] - pos[dst]], dim=1))
        out = msg.new_zeros(pos.shape[0], msg.shape[1])
        out.index_add_(0, dst, msg)
        return out

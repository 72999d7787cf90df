# spec: {"model": "gnn_radius_graph_points.py:PointConvBlock", "init": {"args": [4, 16]}, "inputs": [{"tensor": [24, 3], "init": "rand"}, {"tensor": [24, 4]}]}
import torch
from torch import nn


def radius_graph(pos, r):
    dist = torch.cdist(pos, pos)
    adj = (dist < r) & ~torch.eye(pos.size(0), dtype=torch.bool)
    return adj.nonzero().t()


class PointConvBlock(nn.Module):
    """PointNet++-style local aggregation over a radius graph built from the point positions."""

    def __init__(self, in_dim, out_dim, radius=0.35):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim + 3, out_dim), nn.ReLU(), nn.Linear(out_dim, out_dim))
        self.radius = radius

    def forward(self, pos, feats):
        src, dst = radius_graph(pos, self.radius)
        msg = self.mlp(torch.cat([feats[src], pos[src] - pos[dst]], dim=-1))
        out = torch.full((pos.size(0), msg.size(1)), -1e4).scatter_reduce(
            0, dst[:, None].expand_as(msg), msg, reduce="amax", include_self=True
        )
        return out

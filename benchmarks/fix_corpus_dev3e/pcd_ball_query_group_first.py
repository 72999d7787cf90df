# spec: {"model": "pcd_ball_query_group_first.py:BallQueryGrouper", "init": {"args": [0.4, 8]}, "inputs": [{"tensor": [2, 32, 3]}, {"tensor": [2, 6, 3]}]}
import torch
from torch import nn


def square_distance(src, dst):
    return torch.sum((src[:, :, None] - dst[:, None]) ** 2, dim=-1)


def query_ball_point(radius, nsample, xyz, new_xyz):
    B, N, _ = xyz.shape
    _, S, _ = new_xyz.shape
    group_idx = torch.arange(N, dtype=torch.long).view(1, 1, N).repeat([B, S, 1])
    sqrdists = square_distance(new_xyz, xyz)
    group_idx[sqrdists > radius**2] = N
    group_idx = group_idx.sort(dim=-1)[0][:, :, :nsample]
    group_first = group_idx[:, :, 0].view(B, S, 1).repeat([1, 1, nsample])
    mask = group_idx == N
    group_idx[mask] = group_first[mask]
    return group_idx


class BallQueryGrouper(nn.Module):
    """PointNet++ grouping with the reference `query_ball_point` (pointnet2_utils.py)."""

    def __init__(self, radius, nsample):
        super().__init__()
        self.radius = radius
        self.nsample = nsample
        self.mlp = nn.Linear(3, 16)

    def forward(self, xyz, new_xyz):
        idx = query_ball_point(self.radius, self.nsample, xyz, new_xyz)
        B, S, K = idx.shape
        grouped = torch.gather(xyz, 1, idx.reshape(B, S * K, 1).expand(-1, -1, 3)).view(B, S, K, 3)
        grouped = grouped - new_xyz.unsqueeze(2)
        return self.mlp(grouped).max(dim=2).values

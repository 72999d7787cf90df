# spec: {"model": "pcd_fps_masked_distance.py:PointNetSetAbstractionLite", "init": {"args": [8, 16]}, "inputs": [{"tensor": [2, 64, 3]}]}
import torch
from torch import nn


def farthest_point_sample(xyz, npoint):
    """PointNet++ reference FPS (pointnet2_utils.py)."""
    device = xyz.device
    B, N, C = xyz.shape
    centroids = torch.zeros(B, npoint, dtype=torch.long, device=device)
    distance = torch.ones(B, N, device=device) * 1e10
    farthest = torch.zeros(B, dtype=torch.long, device=device)
    batch_indices = torch.arange(B, dtype=torch.long, device=device)
    for i in range(npoint):
        centroids[:, i] = farthest
        centroid = xyz[batch_indices, farthest, :].view(B, 1, 3)
        dist = torch.sum((xyz - centroid) ** 2, -1)
        mask = dist < distance
        distance[mask] = dist[mask]
        farthest = torch.max(distance, -1)[1]
    return centroids


class PointNetSetAbstractionLite(nn.Module):
    def __init__(self, npoint, out_ch):
        super().__init__()
        self.npoint = npoint
        self.mlp = nn.Sequential(nn.Linear(3, out_ch), nn.ReLU(), nn.Linear(out_ch, out_ch))

    def forward(self, xyz):
        idx = farthest_point_sample(xyz, self.npoint)
        new_xyz = torch.gather(xyz, 1, idx.unsqueeze(-1).expand(-1, -1, 3))
        return self.mlp(new_xyz).max(dim=1).values

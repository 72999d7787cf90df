# spec: {"model": "pcd_voxel_unique_mean.py:VoxelFeatureEncoder", "init": {"args": [4, 16]}, "inputs": [{"tensor": [200, 4], "init": "rand"}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class VoxelFeatureEncoder(nn.Module):
    """Dynamic voxelization (second.pytorch / mmdet3d DynamicVFE habit): mean-pool points per voxel."""

    def __init__(self, in_channels, out_channels, voxel_size=0.25):
        super().__init__()
        self.voxel_size = voxel_size
        self.pfn = nn.Linear(in_channels + 3, out_channels)

    def forward(self, points):
        coors = torch.floor(points[:, :3] / self.voxel_size).long()
        voxel_coors, inverse = torch.unique(coors, dim=0, return_inverse=True)
        num_voxels = voxel_coors.shape[0]
        summed = points.new_zeros(num_voxels, points.shape[1]).index_add_(0, inverse, points)
        counts = torch.bincount(inverse, minlength=num_voxels).clamp(min=1).unsqueeze(1)
        centroid = (summed / counts)[inverse]
        feats = torch.cat([points, points[:, :3] - centroid[:, :3]], dim=1)
        feats = F.relu(self.pfn(feats))
        out = feats.new_full((num_voxels, feats.shape[1]), -1e4)
        out = out.scatter_reduce(0, inverse.unsqueeze(1).expand_as(feats), feats, "amax")
        return out, voxel_coors

# spec: {"model": "depth_masked_l1.py:SparseDepthHead", "inputs": [{"tensor": [2, 3, 16, 16]}, {"tensor": [2, 1, 16, 16], "init": "rand"}]}
import torch
import torch.nn.functional as F
from torch import nn


class SparseDepthHead(nn.Module):
    """A depth head trained on sparse LiDAR ground truth: L1 + L2 on valid pixels only (KITTI depth style)."""

    def __init__(self, min_depth=0.1, max_depth=0.95):
        super().__init__()
        self.head = nn.Conv2d(3, 1, 3, padding=1)
        self.min_depth = min_depth
        self.max_depth = max_depth

    def forward(self, image, gt):
        pred = F.softplus(self.head(image))
        valid = (gt > self.min_depth) & (gt < self.max_depth)
        diff = pred[valid] - gt[valid]
        l1 = diff.abs().mean()
        l2 = (diff**2).mean()
        return pred, l1 + 0.5 * l2

# spec: {"model": "depth_per_image_valid_l1.py:PerImageDepthL1", "inputs": [{"tensor": [2, 1, 8, 8]}, {"tensor": [2, 1, 8, 8], "init": "rand"}]}
import torch
import torch.nn.functional as F
from torch import nn


class PerImageDepthL1(nn.Module):
    """Per-image masked L1 summed over the batch (monodepth2-style loop over images)."""

    def __init__(self, min_depth=0.2):
        super().__init__()
        self.head = nn.Conv2d(1, 1, 3, padding=1)
        self.min_depth = min_depth

    def forward(self, x, gt):
        pred = F.softplus(self.head(x))
        valid = gt > self.min_depth
        total = pred.new_zeros(())
        for i in range(pred.shape[0]):
            total = total + (pred[i][valid[i]] - gt[i][valid[i]]).abs().sum()
        return pred, total

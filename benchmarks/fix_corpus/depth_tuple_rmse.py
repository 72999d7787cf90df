# spec: {"model": "depth_tuple_rmse.py:DepthRmseHead", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8, 16, 16]}, {"tensor": [2, 1, 16, 16], "init": "uniform", "low": -5.0, "high": 10.0}]}
import torch
import torch.nn.functional as F
from torch import nn


class DepthRmseHead(nn.Module):
    """A depth head with a log-RMSE loss and an abs-rel metric on the pixels with ground truth
    (the valid pixels selected together in one tuple assignment)."""

    def __init__(self, in_ch, min_depth=1e-3, max_depth=8.0):
        super().__init__()
        self.head = nn.Conv2d(in_ch, 1, 3, padding=1)
        self.min_depth = min_depth
        self.max_depth = max_depth

    def forward(self, feats, depth_gt):
        pred = F.softplus(self.head(feats)) + self.min_depth
        mask = (depth_gt > self.min_depth) & (depth_gt < self.max_depth)
        pred, gt = pred[mask], depth_gt[mask]
        log_diff = torch.log(pred) - torch.log(gt)
        rmse_log = torch.sqrt((log_diff**2).mean())
        abs_rel = torch.mean(torch.abs(gt - pred) / gt)
        return rmse_log + 0.1 * abs_rel

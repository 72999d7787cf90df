# spec: {"model": "depth_eval_errors.py:DepthHeadWithMetrics", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8, 16, 16]}, {"tensor": [2, 16, 16], "init": "uniform", "low": -20.0, "high": 90.0}]}
import torch
import torch.nn.functional as F
from torch import nn


class DepthHeadWithMetrics(nn.Module):
    """A depth decoder that also returns monodepth-style error metrics on the valid pixels (compute_errors)."""

    def __init__(self, ch, min_depth=1e-3, max_depth=80.0):
        super().__init__()
        self.head = nn.Conv2d(ch, 1, 3, padding=1)
        self.min_depth = min_depth
        self.max_depth = max_depth

    def forward(self, feats, gt):
        pred = F.softplus(self.head(feats)).squeeze(1) + self.min_depth
        valid = (gt > self.min_depth) & (gt < self.max_depth)
        pred = pred[valid]
        gt = gt[valid]
        thresh = torch.max(gt / pred, pred / gt)
        a1 = (thresh < 1.25).float().mean()
        abs_rel = torch.mean(torch.abs(gt - pred) / gt)
        rmse = torch.sqrt(((gt - pred) ** 2).mean())
        return abs_rel + rmse, a1

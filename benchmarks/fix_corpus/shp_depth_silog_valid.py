# spec: {"model": "shp_depth_silog_valid.py:DepthHeadSILog", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8, 6, 6]}, {"tensor": [2, 1, 12, 12], "init": "rand"}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class SILogLoss(nn.Module):
    """AdaBins / BTS scale-invariant log loss over the pixels with a valid ground-truth depth."""

    def __init__(self, variance_focus=0.15):
        super().__init__()
        self.name = "SILog"
        self.variance_focus = variance_focus

    def forward(self, input, target, mask=None, interpolate=True):
        if interpolate:
            input = F.interpolate(input, target.shape[-2:], mode="bilinear", align_corners=True)
        if mask is not None:
            input = input[mask]
            target = target[mask]
        g = torch.log(input) - torch.log(target)
        Dg = torch.var(g) + self.variance_focus * torch.pow(torch.mean(g), 2)
        return 10 * torch.sqrt(Dg)


class DepthHeadSILog(nn.Module):
    def __init__(self, in_channels, min_depth=0.25, max_depth=10.0):
        super().__init__()
        self.min_depth = min_depth
        self.max_depth = max_depth
        self.head = nn.Conv2d(in_channels, 1, 3, padding=1)
        self.criterion = SILogLoss()

    def forward(self, feats, depth_gt):
        pred = self.min_depth + F.softplus(self.head(feats))
        mask = depth_gt > self.min_depth
        return self.criterion(pred, depth_gt, mask=mask)

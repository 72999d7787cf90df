# spec: {"model": "depth_silog_loss.py:SILogDepthHead", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8, 16, 16]}, {"tensor": [2, 1, 16, 16], "init": "uniform", "low": -5.0, "high": 10.0}]}
import torch
from torch import nn


class SILogDepthHead(nn.Module):
    """A depth head trained with the scale-invariant log loss on valid pixels (BTS / AdaBins SILog)."""

    def __init__(self, ch, variance_focus=0.85):
        super().__init__()
        self.head = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU(), nn.Conv2d(ch, 1, 1))
        self.variance_focus = variance_focus

    def forward(self, feats, depth_gt):
        depth_est = torch.sigmoid(self.head(feats)) * 10.0 + 0.1
        mask = depth_gt > 1.0
        d = torch.log(depth_est[mask]) - torch.log(depth_gt[mask])
        return torch.sqrt((d**2).mean() - self.variance_focus * (d.mean() ** 2)) * 10.0

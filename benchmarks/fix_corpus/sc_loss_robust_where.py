# spec: {"model": "sc_loss_robust_where.py:RobustRegressionLoss", "init": {"args": [12]}, "inputs": [{"tensor": [8, 12]}, {"tensor": [8]}]}
import math

import torch
from torch import nn


class RobustRegressionLoss(nn.Module):
    """Loss normalizer: residuals above the batch median are down-weighted (Huber-like, with
    the scale read from the data), the weight clipped to a floor."""

    def __init__(self, dim, floor=0.1):
        super().__init__()
        self.head = nn.Linear(dim, 1)
        self.floor = floor

    def forward(self, x, target):
        pred = self.head(x).squeeze(-1)
        resid = (pred - target).abs()
        ref = resid.detach().median().item()
        scale = math.sqrt(ref + 1e-6)
        w = torch.where(resid > ref, scale / (resid + 1e-6).sqrt(), torch.ones_like(resid))
        w = torch.clamp(w, self.floor, 1.0)
        return (w * resid).sum() / max(ref, 1e-3)

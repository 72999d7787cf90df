# spec: {"model": "state_ema_loss_normalizer.py:BalancedMultiTaskLoss", "init": {"args": [16]}, "inputs": [{"tensor": [8, 16]}, {"tensor": [8, 1]}, {"tensor": [8], "dtype": "int64", "init": "randint", "low": 0, "high": 4}], "mode": "train", "calls": 3}
import torch
import torch.nn as nn
import torch.nn.functional as F


class BalancedMultiTaskLoss(nn.Module):
    """Two heads whose losses are balanced by an exponential moving average of each loss's magnitude
    (the loss-normalization habit of multi-task training code: each term divided by its running scale)."""

    def __init__(self, dim, momentum=0.9, eps=1e-6):
        super().__init__()
        self.trunk = nn.Linear(dim, dim)
        self.reg_head = nn.Linear(dim, 1)
        self.cls_head = nn.Linear(dim, 4)
        self.momentum = momentum
        self.eps = eps
        self.reg_scale = 1.0
        self.cls_scale = 1.0

    def forward(self, x, y_reg, y_cls):
        h = F.relu(self.trunk(x))
        reg = F.smooth_l1_loss(self.reg_head(h), y_reg)
        cls = F.cross_entropy(self.cls_head(h), y_cls)
        self.reg_scale = self.momentum * self.reg_scale + (1 - self.momentum) * reg.item()
        self.cls_scale = self.momentum * self.cls_scale + (1 - self.momentum) * cls.item()
        return reg / (self.reg_scale + self.eps) + cls / (self.cls_scale + self.eps)

# spec: {"model": "loss_focal_metrics_branch.py:FocalLossWithMetrics", "init": {"args": [12, 4]}, "inputs": [{"tensor": [16, 12]}, {"tensor": [16], "dtype": "int64", "init": "randint", "low": 0, "high": 4}]}
import torch
import torch.nn.functional as F
from torch import nn


class FocalLossWithMetrics(nn.Module):
    """Focal loss (detectron2 style) with a gamma switch and a metrics dict filled per branch."""

    def __init__(self, dim, num_classes):
        super().__init__()
        self.fc = nn.Linear(dim, num_classes)
        self.metrics = {"hard_frac": torch.zeros(()), "gamma": torch.zeros(())}

    def forward(self, x, target):
        logits = self.fc(x)
        ce = F.cross_entropy(logits, target, reduction="none")
        pt = torch.exp(-ce)
        if (pt < 0.5).float().mean() > 0.3:
            gamma = 2.0
            self.metrics["hard_frac"] = (pt < 0.5).float().mean()
            self.metrics["gamma"] = torch.full((), 2.0)
        else:
            gamma = 1.0
            self.metrics["hard_frac"] = torch.zeros(())
            self.metrics["gamma"] = torch.ones(())
        return ((1 - pt) ** gamma * ce).mean()

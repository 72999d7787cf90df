# spec: {"model": "tm_module_metric_ap.py:LitClassifierCore", "inputs": [{"tensor": [16, 10]}, {"tensor": [16], "dtype": "int64", "init": "randint", "low": 0, "high": 2}]}
import torch
from torch import nn
from torchmetrics.classification import BinaryAveragePrecision


class LitClassifierCore(nn.Module):
    """A Lightning-style classifier core that computes its metric module inside forward."""

    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(10, 32), nn.GELU(), nn.Linear(32, 1))
        self.val_ap = BinaryAveragePrecision()

    def forward(self, x, y):
        logits = self.backbone(x).squeeze(-1)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, y.float())
        ap = self.val_ap(logits.sigmoid(), y)
        return loss, ap

# spec: {"model": "det_centerness_guard.py:CenternessLoss", "init": {"args": [8, 3]}, "inputs": [{"tensor": [64, 8]}, {"tensor": [64], "dtype": "int64", "init": "randint", "low": 0, "high": 4}, {"tensor": [64], "init": "rand"}]}
import torch
import torch.nn.functional as F
from torch import nn


class CenternessLoss(nn.Module):
    """FCOS-style head losses: focal-free classification on all points, centerness only where there are positives."""

    def __init__(self, dim, num_classes):
        super().__init__()
        self.cls_logits = nn.Linear(dim, num_classes + 1)
        self.centerness = nn.Linear(dim, 1)

    def forward(self, feats, labels, ctr_target):
        cls_loss = F.cross_entropy(self.cls_logits(feats), labels)
        ctr_pred = self.centerness(feats).squeeze(-1)
        pos = labels > 0
        loss = cls_loss
        if pos.any():
            loss = loss + F.binary_cross_entropy_with_logits(ctr_pred[pos], ctr_target[pos])
        return loss

# spec: {"model": "s3_store_class_loss_accum.py:PerClassLoss", "init": {"args": [16, 4]}, "inputs": [{"tensor": [8, 16]}, {"tensor": [8, 4], "init": "rand"}], "mode": "train"}
import torch
import torch.nn.functional as F
from torch import nn


class PerClassLoss(nn.Module):
    """Multi-label classifier (torchmetrics-style bookkeeping in forward): each class's loss is
    read as a Python number and accumulated into a per-class tensor with `+=`, the reported
    weights then derived from it; the value is also logged."""

    def __init__(self, dim, num_classes):
        super().__init__()
        self.head = nn.Linear(dim, num_classes)
        self.num_classes = num_classes

    def forward(self, x, target):
        logits = self.head(x)
        per_class = logits.new_zeros(self.num_classes)
        for c in range(self.num_classes):
            lc = F.binary_cross_entropy_with_logits(logits[:, c], target[:, c]).item()
            per_class[c] += lc
            per_class[c] -= 0.5 * lc
        weights = per_class.softmax(0)
        loss = (F.binary_cross_entropy_with_logits(logits, target, reduction="none").mean(0) * weights).sum()
        return loss

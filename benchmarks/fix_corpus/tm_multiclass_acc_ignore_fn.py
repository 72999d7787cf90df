# spec: {"model": "tm_multiclass_acc_ignore_fn.py:SegHeadWithAcc", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 8, 6, 6]}, {"tensor": [2, 6, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 5}]}
import torch
import torch.nn as nn
from torchmetrics.functional.classification import multiclass_accuracy


class SegHeadWithAcc(nn.Module):
    """Segmentation head returning loss and torchmetrics pixel accuracy; label 4 means 'ignore'."""

    def __init__(self, channels, num_classes, ignore_index=4):
        super().__init__()
        self.conv = nn.Conv2d(channels, num_classes, 1)
        self.num_classes = num_classes
        self.ignore_index = ignore_index

    def forward(self, feats, target):
        logits = self.conv(feats)
        loss = nn.functional.cross_entropy(logits, target, ignore_index=self.ignore_index)
        acc = multiclass_accuracy(logits.argmax(1), target, num_classes=self.num_classes, ignore_index=self.ignore_index, average="micro")
        return loss, acc

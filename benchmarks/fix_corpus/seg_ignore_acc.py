# spec: {"model": "seg_ignore_acc.py:SegHeadWithAccuracy", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 8, 12, 12]}, {"tensor": [2, 12, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 5}]}
import torch
import torch.nn.functional as F
from torch import nn


class SegHeadWithAccuracy(nn.Module):
    """A decode head returning its loss and pixel accuracy, with mmseg's `accuracy()` habit of ignoring a label."""

    def __init__(self, channels, num_classes, ignore_index=4):
        super().__init__()
        self.conv_seg = nn.Conv2d(channels, num_classes, 1)
        self.ignore_index = ignore_index

    def forward(self, feats, target):
        logits = self.conv_seg(feats)
        loss = F.cross_entropy(logits, target, ignore_index=self.ignore_index)
        pred = logits.argmax(1)
        valid = target != self.ignore_index
        correct = pred.eq(target)[valid]
        acc = correct.float().sum() * 100.0 / target[valid].numel()
        return loss, acc

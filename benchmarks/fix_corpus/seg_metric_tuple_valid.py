# spec: {"model": "seg_metric_tuple_valid.py:SegHeadWithAccuracy", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 8, 16, 16]}, {"tensor": [2, 16, 16], "dtype": "int64", "init": "randint", "low": 0, "high": 6}]}
import torch
from torch import nn


class SegHeadWithAccuracy(nn.Module):
    """A segmentation head that reports pixel accuracy and mean confidence on the labelled
    pixels (torchmetrics-style: drop the ignored pixels, then compare)."""

    def __init__(self, in_ch, num_classes, ignore_index=5):
        super().__init__()
        self.head = nn.Conv2d(in_ch, num_classes, 1)
        self.num_classes = num_classes
        self.ignore_index = ignore_index

    def forward(self, feats, target):
        probs = self.head(feats).softmax(dim=1)
        conf, preds = probs.max(dim=1)
        valid = target < self.num_classes
        preds, target = preds[valid], target[valid]
        conf = conf[valid]
        correct = (preds == target).float()
        acc = correct.sum() / correct.numel()
        mean_conf = conf.mean()
        return acc, mean_conf

# spec: {"model": "seg_tuple_valid_pairs.py:SegValidPairs", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 8, 16, 16]}, {"tensor": [2, 16, 16], "dtype": "int64", "init": "randint", "low": 0, "high": 6}]}
import torch
from torch import nn


class SegValidPairs(nn.Module):
    """A segmentation head that hands the labelled pixels' scores and labels to a metric
    outside (the selection is returned: it must keep its data-dependent shape)."""

    def __init__(self, in_ch, num_classes):
        super().__init__()
        self.head = nn.Conv2d(in_ch, num_classes, 1)
        self.num_classes = num_classes

    def forward(self, feats, target):
        scores = self.head(feats).softmax(dim=1).amax(dim=1)
        valid = target < self.num_classes
        scores, target = scores[valid], target[valid]
        return scores * 2.0, target

# spec: {"model": "cnt_det_label_hist.py:BoxHead", "init": {"kwargs": {"in_channels": 16, "num_classes": 6}}, "inputs": [{"tensor": [9, 16]}], "calls": 3}
from collections import defaultdict

import torch
from torch import nn


class BoxHead(nn.Module):
    """A detectron2-style box head that keeps how often each class wins, per class id, for a
    class-balance report after the epoch."""

    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.cls_score = nn.Linear(in_channels, num_classes + 1)
        self.bbox_pred = nn.Linear(in_channels, 4 * num_classes)
        self.winners = defaultdict(int)

    def forward(self, x):
        scores = self.cls_score(x)
        deltas = self.bbox_pred(x)
        labels = scores.softmax(-1).argmax(-1)
        for label in labels.tolist():
            self.winners[label] = self.winners[label] + 1
        return scores, deltas

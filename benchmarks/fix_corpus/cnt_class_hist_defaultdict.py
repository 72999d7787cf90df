# spec: {"model": "cnt_class_hist_defaultdict.py:Classifier", "init": {"kwargs": {"dim": 10, "num_classes": 4}}, "inputs": [{"tensor": [6, 10]}], "calls": 3}
from collections import defaultdict

import torch
from torch import nn


class Classifier(nn.Module):
    """A torchmetrics-flavoured classifier head that keeps a histogram of its predictions."""

    def __init__(self, dim, num_classes):
        super().__init__()
        self.fc = nn.Linear(dim, num_classes)
        self.num_classes = num_classes
        self.pred_hist = defaultdict(int)

    def forward(self, x):
        logits = self.fc(x)
        preds = logits.argmax(dim=1)
        for p in preds.tolist():
            self.pred_hist[p] += 1
        return logits

# spec: {"model": "tm_metric_in_forward.py:ClassifierWithF1", "init": {"args": [12, 4]}, "inputs": [{"tensor": [8, 12]}, {"tensor": [8], "dtype": "int64", "init": "randint", "low": 0, "high": 4}], "mode": "train"}
import torch
import torchmetrics
from torch import nn


class ClassifierWithF1(nn.Module):
    """A Lightning-style classifier that updates a torchmetrics F1 inside forward."""

    def __init__(self, dim, n_classes):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, n_classes))
        self.f1 = torchmetrics.classification.MulticlassF1Score(num_classes=n_classes, average="macro")

    def forward(self, x, target):
        logits = self.net(x)
        self.f1.update(logits.argmax(-1), target)
        return nn.functional.cross_entropy(logits, target)

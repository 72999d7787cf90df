# spec: {"model": "lazy_classifier_head.py:Classifier", "init": {"args": [5]}, "inputs": [{"tensor": [3, 10]}]}
import torch
from torch import nn


class Classifier(nn.Module):
    """Backbone-agnostic classifier: the linear head is sized from the first batch."""

    def __init__(self, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.backbone = nn.Sequential(nn.Linear(10, 20), nn.GELU())
        self.head = None

    def forward(self, x):
        feats = self.backbone(x)
        if self.head is None:
            self.head = nn.Linear(feats.shape[-1], self.num_classes)
        return self.head(feats)

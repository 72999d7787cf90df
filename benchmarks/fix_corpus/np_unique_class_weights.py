# spec: {"model": "np_unique_class_weights.py:BalancedCE", "inputs": [{"tensor": [12, 4]}, {"tensor": [12], "dtype": "int64", "init": "randint", "low": 0, "high": 4}]}
import numpy as np
import torch
from torch import nn


class BalancedCE(nn.Module):
    """Class-balanced cross-entropy whose per-batch class counts come from np.unique."""

    def __init__(self, classes=4):
        super().__init__()
        self.classes = classes
        self.head = nn.Linear(4, classes)

    def forward(self, x, y):
        logits = self.head(x)
        _, counts = np.unique(y.cpu().numpy(), return_counts=True)
        freq = torch.zeros(self.classes)
        freq[: len(counts)] = torch.from_numpy(counts).float()
        weight = 1.0 / freq.clamp(min=1)
        return nn.functional.cross_entropy(logits, y, weight=weight / weight.sum())

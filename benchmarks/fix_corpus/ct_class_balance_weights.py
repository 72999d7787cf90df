# spec: {"model": "ct_class_balance_weights.py:ClassBalancedHead", "init": {"args": [12, 4]}, "inputs": [{"tensor": [32, 12]}, {"tensor": [32], "dtype": "int64", "init": "randint", "low": 0, "high": 4}]}
import torch
import torch.nn.functional as F
from torch import nn


class ClassBalancedHead(nn.Module):
    """Pseudo-label training (FixMatch-like): confident predictions are counted per class,
    weighted by their confidence, and the counts give the class weights of the loss."""

    def __init__(self, dim, num_classes, threshold=0.3):
        super().__init__()
        self.fc = nn.Linear(dim, num_classes)
        self.num_classes = num_classes
        self.threshold = threshold

    def forward(self, x, labels):
        logits = self.fc(x)
        conf, pseudo = logits.softmax(-1).detach().max(-1)
        confident = conf > self.threshold
        counts = torch.bincount(pseudo[confident], conf[confident], self.num_classes)
        weights = (counts.sum() + 1) / (counts + 1) / self.num_classes
        loss = F.cross_entropy(logits, labels, weight=weights.float())
        return loss, counts

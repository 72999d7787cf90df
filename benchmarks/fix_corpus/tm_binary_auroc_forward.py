# spec: {"model": "tm_binary_auroc_forward.py:ScoredClassifier", "inputs": [{"tensor": [16, 8]}, {"tensor": [16], "dtype": "int64", "init": "randint", "low": 0, "high": 2}]}
import torch
from torch import nn
from torchmetrics.functional.classification import binary_auroc


class ScoredClassifier(nn.Module):
    """A binary classifier that returns its batch AUROC with the loss (torchmetrics functional API)."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x, target):
        logits = self.net(x).squeeze(-1)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, target.float())
        auroc = binary_auroc(logits.sigmoid(), target)
        return loss, auroc

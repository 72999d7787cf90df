# spec: {"model": "pl_returned_metrics.py:LitClassifier", "inputs": [{"tensor": [6, 10]}, {"tensor": [6], "dtype": "int64", "init": "randint", "low": 0, "high": 3}]}
import torch
import torch.nn.functional as F
from torch import nn


class LitClassifier(nn.Module):
    """A Lightning-style step in forward that returns the loss and a dict of Python-number metrics."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, x, y):
        logits = self.net(x)
        loss = F.cross_entropy(logits, y)
        acc = (logits.argmax(-1) == y).float().mean()
        return loss, {"loss": loss.item(), "acc": acc.item()}

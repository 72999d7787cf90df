# spec: {"model": "cnt_acc_running_correct.py:LinearProbe", "init": {"args": [12, 3]}, "inputs": [{"tensor": [5, 12]}, {"tensor": [5], "dtype": "int64", "init": "randint", "low": 0, "high": 3}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class LinearProbe(nn.Module):
    """A linear-probe evaluation head that keeps a running accuracy, as self-supervised
    repositories (DINO / MoCo linear eval) do with an average meter on the module."""

    def __init__(self, dim, num_classes):
        super().__init__()
        self.head = nn.Linear(dim, num_classes)
        self.correct = 0
        self.seen = 0

    def forward(self, feats, labels):
        logits = self.head(feats)
        loss = F.cross_entropy(logits, labels)
        hits = (logits.argmax(dim=-1) == labels).sum()
        self.correct += hits.item()
        self.seen += labels.shape[0]
        return logits, loss

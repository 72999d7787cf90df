# spec: {"model": "loss_tversky_present_where.py:TverskyLoss", "inputs": [{"tensor": [2, 4, 16, 16]}, {"tensor": [2, 16, 16], "dtype": "int64", "init": "randint", "low": 0, "high": 3}]}
import torch
import torch.nn.functional as F
from torch import nn


class TverskyLoss(nn.Module):
    """Tversky loss averaged over the classes present in the target (medical segmentation repo style)."""

    def __init__(self, alpha=0.3, beta=0.7):
        super().__init__()
        self.alpha = alpha
        self.beta = beta

    def forward(self, logits, target):
        probs = logits.softmax(1)
        onehot = F.one_hot(target, logits.shape[1]).permute(0, 3, 1, 2).float()
        dims = (0, 2, 3)
        tp = (probs * onehot).sum(dims)
        fp = (probs * (1 - onehot)).sum(dims)
        fn = ((1 - probs) * onehot).sum(dims)
        tversky = tp / (tp + self.alpha * fp + self.beta * fn + 1e-6)
        present = torch.where(onehot.sum(dims) > 0)[0]
        return 1 - tversky[present].mean()

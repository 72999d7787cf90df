# spec: {"model": "ps_rand_mixup_lambda.py:MixupHead", "init": {"args": [12, 4]}, "inputs": [{"tensor": [4, 12]}, {"tensor": [4, 4]}], "mode": "train", "calls": 3}
import random

import torch
import torch.nn.functional as F
from torch import nn


class MixupHead(nn.Module):
    """Mixup inside the training forward (timm-like mixing of a batch with its flip); the mixing weight is drawn with Python's random."""

    def __init__(self, dim, n_classes, alpha_lo=0.2):
        super().__init__()
        self.fc = nn.Linear(dim, n_classes)
        self.alpha_lo = alpha_lo

    def forward(self, x, y_soft):
        lam = random.uniform(self.alpha_lo, 1.0)
        jitter = random.random()
        x = lam * x + (1.0 - lam) * x.flip(0)
        y = lam * y_soft + (1.0 - lam) * y_soft.flip(0)
        logits = self.fc(x) * (1.0 + 0.01 * jitter)
        return F.cross_entropy(logits, y.softmax(-1))

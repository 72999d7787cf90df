# spec: {"model": "misc_mixup.py:MixHead", "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


class MixHead(nn.Module):
    def __init__(self, alpha=0.4):
        super().__init__()
        self.alpha = alpha
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        lam = x.sigmoid().mean().item()
        lam = max(lam, 1 - lam)
        mixed = lam * x + (1 - lam) * x.flip(0)
        return self.head(mixed)

# spec: {"model": "mf_skip_or_small_else.py:AuxLossHead", "inputs": [{"tensor": [6, 5]}, {"tensor": [6], "dtype": "int64", "init": "randint", "low": 0, "high": 3}], "mode": "train"}
import torch
import torch.nn.functional as F
from torch import nn


class AuxLossHead(nn.Module):
    """A head whose auxiliary loss is skipped by config or when the main loss is already small."""

    def __init__(self, dim=5, classes=3, skip_aux=False):
        super().__init__()
        self.main = nn.Linear(dim, classes)
        self.aux = nn.Linear(dim, classes)
        self.skip_aux = skip_aux

    def forward(self, x, y):
        loss = F.cross_entropy(self.main(x), y)
        if self.skip_aux or loss < 0.05:
            total = loss
        else:
            aux = F.cross_entropy(self.aux(x), y)
            total = loss + 0.3 * aux
        return total

# spec: {"model": "mf_flag_and_not_finite.py:SafeNormalizer", "inputs": [{"tensor": [5, 4]}]}
import torch
from torch import nn


def normalize(x, check_finite=True, eps=1e-6):
    """torchmetrics-style helper: a keyword option and a tensor check in one condition."""
    y = x / (x.norm(dim=-1, keepdim=True) + eps)
    if check_finite and not torch.isfinite(y).all():
        y = torch.nan_to_num(y, nan=0.0)
    return y


class SafeNormalizer(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return normalize(self.proj(x), check_finite=True)

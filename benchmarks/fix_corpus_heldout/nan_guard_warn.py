# spec: {"model": "nan_guard_warn.py:StableAttentionPool", "init": {"args": [16]}, "inputs": [{"tensor": [2, 7, 16]}]}
import warnings

import torch
from torch import nn


class StableAttentionPool(nn.Module):
    """Attention pooling that warns and repairs non-finite weights, as research code often does."""

    def __init__(self, dim):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, x):
        w = self.score(x).squeeze(-1).softmax(dim=-1)
        if not torch.isfinite(w).all():
            warnings.warn("non-finite attention weights; replacing with zeros")
            w = torch.nan_to_num(w, nan=0.0, posinf=0.0, neginf=0.0)
        return (w.unsqueeze(-1) * x).sum(1)

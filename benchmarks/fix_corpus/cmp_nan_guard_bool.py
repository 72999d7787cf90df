# spec: {"model": "cmp_nan_guard_bool.py:StableAttentionPool", "init": {"args": [16]}, "inputs": [{"tensor": [2, 10, 16]}]}
import torch
from torch import nn


class StableAttentionPool(nn.Module):
    """Attention pooling with a training-code style guard: a non-finite score tensor (read with bool()) is repaired."""

    def __init__(self, dim, temperature=0.5):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.temperature = temperature

    def forward(self, x):
        logits = self.score(x).squeeze(-1) / self.temperature
        has_bad = bool((~torch.isfinite(logits)).any())
        if has_bad:
            logits = torch.nan_to_num(logits, nan=0.0, posinf=1e4, neginf=-1e4)
        attn = logits.softmax(-1)
        return (attn.unsqueeze(-1) * x).sum(1)

# spec: {"model": "prof_user_ctx_token_count.py:MaskedEncoder", "init": {"args": [8]}, "inputs": [{"tensor": [3, 5, 8]}, {"tensor": [3, 5], "dtype": "int64", "init": "randint", "low": 0, "high": 2}]}
import contextlib

import torch
from torch import nn

SECTIONS = []


@contextlib.contextmanager
def section(name):
    """Research-code profiling: record which section ran (a user context manager)."""
    SECTIONS.append(name)
    yield


class MaskedEncoder(nn.Module):
    """An encoder that logs how many real tokens each batch has inside a profiling section."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, mask):
        with section("encode"):
            h = torch.relu(self.proj(x))
            n_tokens = int(mask.sum())
            h = h * mask.unsqueeze(-1) / max(n_tokens, 1)
        peak = h.abs().max().item()
        return self.out(h / (peak + 1e-6))

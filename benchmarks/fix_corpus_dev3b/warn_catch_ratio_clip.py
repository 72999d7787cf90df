# spec: {"model": "warn_catch_ratio_clip.py:RatioClip", "init": {"args": [6]}, "inputs": [{"tensor": [4, 6]}]}
import warnings

import torch
from torch import nn


class RatioClip(nn.Module):
    """Clips activations by their peak-to-mean ratio, with warnings silenced around the statistics
    (a habit of code that divides by possibly-zero means)."""

    def __init__(self, dim, max_ratio=5.0):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.max_ratio = max_ratio

    def forward(self, x):
        h = self.fc(x)
        with warnings.catch_warnings():
            ratio = (h.abs().max() / h.abs().mean()).item()
            limit = min(ratio, self.max_ratio)
        h = h.clamp(-limit, limit)
        spread = h.std().item()
        return h / (spread + 1e-6)

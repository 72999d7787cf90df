# spec: {"model": "cb_counter_else_log.py:OverflowGuard", "inputs": [{"tensor": [4, 6]}], "mode": "train"}
import torch
from torch import nn


class OverflowGuard(nn.Module):
    """fp16-overflow guard as in T5/Bart blocks, with an else that records the max."""

    def __init__(self, dim=6):
        super().__init__()
        self.ff = nn.Linear(dim, dim)
        self.stats = {"skipped": 0}

    def forward(self, h):
        h = self.ff(h) * 40
        amax = h.abs().amax()
        if amax > 30:
            self.stats["skipped"] += 1
            clamp_value = 30.0
            h = torch.clamp(h, min=-clamp_value, max=clamp_value)
            ratio = amax / clamp_value
        else:
            ratio = torch.zeros_like(amax)
            h = h * 1.0
        return h, ratio

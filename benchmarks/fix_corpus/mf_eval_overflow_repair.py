# spec: {"model": "mf_eval_overflow_repair.py:EvalOverflowRepair", "inputs": [{"tensor": [3, 7]}], "mode": "eval"}
import warnings

import torch
from torch import nn


class EvalOverflowRepair(nn.Module):
    """At inference, replace overflowing activations and warn (HF fp16 inference guard)."""

    def __init__(self, dim=7):
        super().__init__()
        self.ff = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.ff(x) * 500
        if not self.training and (h.abs() > 1e3).any():
            warnings.warn("activation overflow at inference")
            h = h.clamp(-1e3, 1e3)
        return h

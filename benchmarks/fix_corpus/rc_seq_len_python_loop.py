# spec: {"model": "rc_seq_len_python_loop.py:CumulativePool", "init": {"args": [8]}, "inputs": [{"tensor": [2, 5, 8]}], "variants": [{"inputs": [{"tensor": [2, 7, 8]}]}, {"inputs": [{"tensor": [2, 9, 8]}]}]}
import torch
from torch import nn


class CumulativePool(nn.Module):
    """A causal running-mean pooling written as a Python loop over the sequence length read
    with `x.size(1)` (speech / time-series encoders)."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x)
        outs = []
        total = torch.zeros_like(h[:, 0])
        for t in range(h.size(1)):
            total = total + h[:, t]
            outs.append(total / (t + 1))
        return torch.stack(outs, dim=1)

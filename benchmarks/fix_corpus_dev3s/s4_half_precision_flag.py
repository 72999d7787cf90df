# spec: {"model": "s4_half_precision_flag.py:Projector", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "kwargs": {"low_precision": false}, "variants": [{"inputs": [{"tensor": [4, 8]}], "kwargs": {"low_precision": true}}]}
import torch
from torch import nn


class Projector(nn.Module):
    """Returns its projection in half precision when the caller asks for a small output."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, low_precision=False):
        out = self.proj(x)
        if low_precision:
            out = out.half()
        return out.float().softmax(-1)

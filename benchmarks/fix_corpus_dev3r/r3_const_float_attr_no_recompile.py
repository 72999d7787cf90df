# spec: {"model": "r3_const_float_attr_no_recompile.py:Scaled", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "calls": 3, "variants": [{"inputs": [{"tensor": [2, 8], "init": "ones"}]}]}
import torch
from torch import nn


class Scaled(nn.Module):
    """A residual scaled by a float set in __init__ and only read in forward."""

    def __init__(self, dim, scale=0.5):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.scale = scale
        self.use_residual = True

    def forward(self, x):
        y = self.fc(x) * self.scale
        if self.use_residual:
            y = y + x
        return y

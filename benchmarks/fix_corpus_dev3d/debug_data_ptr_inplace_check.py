# spec: {"model": "debug_data_ptr_inplace_check.py:ResidualNormBlock", "init": {"args": [10]}, "inputs": [{"tensor": [4, 10]}]}
import torch
from torch import nn


class ResidualNormBlock(nn.Module):
    """Block with a debug assertion from a refactor: the fused norm must not write into the
    residual stream, checked by comparing storage pointers."""

    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.norm(x)
        if h.data_ptr() == x.data_ptr():
            raise RuntimeError("norm aliased its input")
        return x + self.ff(h).relu()

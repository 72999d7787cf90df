# spec: {"model": "s4_dynamic_true_offset_no_recompile.py:SlidingWindowCache", "init": {"args": [8]}, "inputs": [{"tensor": [1, 2, 8]}, 3], "variants": [{"inputs": [{"tensor": [1, 2, 8]}, 5]}, {"inputs": [{"tensor": [1, 2, 8]}, 7]}], "compile": {"dynamic": true}}
import torch
from torch import nn


class SlidingWindowCache(nn.Module):
    """A write offset into a fixed cache, compiled with `dynamic=True` so ints are symbolic from the start."""

    def __init__(self, dim, window=16):
        super().__init__()
        self.register_buffer("cache", torch.zeros(1, window, dim))
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, offset):
        h = self.proj(x)
        window = self.cache[:, offset : offset + h.shape[1]]
        return h + window

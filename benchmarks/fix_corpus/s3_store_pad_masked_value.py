# spec: {"model": "s3_store_pad_masked_value.py:PadMaskedPool", "init": {"args": [16]}, "inputs": [{"tensor": [2, 10, 16]}, {"tensor": [2, 10], "dtype": "bool", "p": 0.7}]}
import torch
from torch import nn


def lowest(t):
    return t.detach().amin().item()


class PadMaskedPool(nn.Module):
    """Transformers-style max pooling over valid tokens: padded positions are overwritten
    (boolean-mask store) with the lowest activation, read through a helper, minus a margin."""

    def __init__(self, dim, margin=1.0):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.margin = margin

    def forward(self, hidden, valid):
        h = self.proj(hidden)
        floor = lowest(h) - self.margin
        h = h.clone()
        h[~valid] = floor
        return h.amax(dim=1)

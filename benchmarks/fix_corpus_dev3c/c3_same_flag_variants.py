# spec: {"model": "c3_same_flag_variants.py:Decoder", "init": {"args": [16]}, "inputs": [{"tensor": [2, 6, 16]}], "kwargs": {"return_attention": true, "temperature": 0.7}, "variants": [{"inputs": [{"tensor": [2, 6, 16], "init": "ones"}], "kwargs": {"return_attention": true, "temperature": 0.7}}, {"inputs": [{"tensor": [2, 6, 16], "init": "zeros"}], "kwargs": {"return_attention": true, "temperature": 0.7}}]}
import torch
from torch import nn


class Decoder(nn.Module):
    """Flags and a temperature passed by the caller, the same on every call."""

    def __init__(self, dim):
        super().__init__()
        self.qk = nn.Linear(dim, 2 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, return_attention=False, temperature=1.0):
        q, k = self.qk(x).chunk(2, dim=-1)
        attn = (q @ k.transpose(-1, -2) / temperature).softmax(dim=-1)
        y = self.out(attn @ x)
        if return_attention:
            return y, attn
        return y

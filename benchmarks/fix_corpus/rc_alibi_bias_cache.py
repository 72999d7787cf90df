# spec: {"model": "rc_alibi_bias_cache.py:AlibiAttention", "init": {"args": [32, 4]}, "inputs": [{"tensor": [2, 8, 32]}], "variants": [{"inputs": [{"tensor": [2, 12, 32]}]}, {"inputs": [{"tensor": [2, 8, 32]}]}, {"inputs": [{"tensor": [2, 16, 32]}]}]}
import math

import torch
from torch import nn


def alibi_slopes(n_heads):
    start = 2 ** (-(2 ** -(math.log2(n_heads) - 3)))
    return torch.tensor([start ** (i + 1) for i in range(n_heads)])


class AlibiAttention(nn.Module):
    """BLOOM/MPT-style ALiBi attention that memoises the bias per sequence length."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.register_buffer("slopes", alibi_slopes(heads), persistent=False)
        self.bias_cache = {}

    def get_bias(self, n, device):
        if n not in self.bias_cache:
            pos = torch.arange(n, device=device)
            rel = (pos[None, :] - pos[:, None]).abs().neg().float()
            self.bias_cache[n] = self.slopes[:, None, None] * rel[None]
        return self.bias_cache[n]

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        att = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads)
        att = att + self.get_bias(n, x.device)
        y = att.softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, n, d))

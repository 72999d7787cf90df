# spec: {"model": "alibi_bias_cache_grow.py:AlibiAttention", "init": {"args": [32, 4]}, "inputs": [{"tensor": [2, 8, 32]}], "variants": [{"inputs": [{"tensor": [2, 16, 32]}]}, {"inputs": [{"tensor": [2, 24, 32]}]}]}
import math

import torch
from torch import nn


def alibi_slopes(n_heads):
    start = 2 ** (-(2 ** -(math.log2(n_heads) - 3)))
    return torch.tensor([start ** (i + 1) for i in range(n_heads)])


class AlibiAttention(nn.Module):
    """Causal attention with ALiBi biases cached on the module and rebuilt when a longer input arrives (MPT/BLOOM habit)."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("slopes", alibi_slopes(heads), persistent=False)
        self.cached_len = 0
        self.alibi = None

    def _bias(self, n):
        if n > self.cached_len:
            pos = torch.arange(n)
            rel = (pos[None, :] - pos[:, None]).clamp(max=0).float()
            causal = torch.full((n, n), float("-inf")).triu(1)
            self.alibi = self.slopes[:, None, None] * rel + causal
            self.cached_len = n
        return self.alibi[:, :n, :n]

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads) + self._bias(n)
        out = scores.softmax(-1) @ v
        return self.proj(out.transpose(1, 2).reshape(b, n, d))

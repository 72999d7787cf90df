# spec: {"model": "cache_shape_hash.py:CachedRelPosBias", "init": {"args": [4]}, "inputs": [{"tensor": [2, 4, 6, 6]}]}
import hashlib

import torch
from torch import nn


class CachedRelPosBias(nn.Module):
    """Relative position bias whose index table is cached under a hash of the shape (Swin-style)."""

    def __init__(self, heads, max_dist=16):
        super().__init__()
        self.table = nn.Parameter(torch.zeros(2 * max_dist - 1, heads))
        self.max_dist = max_dist
        self._cache = {}

    def _index(self, n):
        key = hashlib.sha1(f"relpos-{n}".encode()).hexdigest()
        if key not in self._cache:
            pos = torch.arange(n)
            self._cache[key] = (pos[None, :] - pos[:, None]).clamp(-self.max_dist + 1, self.max_dist - 1) + self.max_dist - 1
        return self._cache[key]

    def forward(self, attn):
        idx = self._index(attn.shape[-1])
        bias = self.table[idx].permute(2, 0, 1)
        return attn + bias.unsqueeze(0)

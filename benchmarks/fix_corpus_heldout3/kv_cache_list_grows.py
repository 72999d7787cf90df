# spec: {"model": "kv_cache_list_grows.py:IncrementalSelfAttention", "init": {"args": [16]}, "inputs": [{"tensor": [1, 1, 16]}], "calls": 4}
import torch
from torch import nn


class IncrementalSelfAttention(nn.Module):
    """Single-head attention for step-by-step decoding that appends each step's key/value to lists on self."""

    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.past_keys = []
        self.past_values = []

    def forward(self, x_t):
        q, k, v = self.qkv(x_t).chunk(3, dim=-1)
        self.past_keys.append(k)
        self.past_values.append(v)
        keys = torch.cat(self.past_keys, dim=1)
        values = torch.cat(self.past_values, dim=1)
        attn = (q @ keys.transpose(1, 2) / q.shape[-1] ** 0.5).softmax(-1)
        return self.out(attn @ values)

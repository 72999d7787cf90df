# spec: {"model": "rc_kv_cache_list.py:CachedDecoderLayer", "init": {"args": [16, 2]}, "inputs": [{"tensor": [1, 1, 16]}], "calls": 4}
import torch
from torch import nn


class CachedDecoderLayer(nn.Module):
    """Token-by-token generation with the keys and values of earlier steps kept in Python
    lists on the module (minGPT / tutorial-style KV cache)."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)
        self.o = nn.Linear(dim, dim)
        self.past_k = []
        self.past_v = []

    def forward(self, x):
        k, v = self.kv(x).chunk(2, dim=-1)
        self.past_k.append(k)
        self.past_v.append(v)
        keys = torch.cat(self.past_k, dim=1)
        values = torch.cat(self.past_v, dim=1)
        att = (self.q(x) @ keys.transpose(1, 2)) / keys.shape[-1] ** 0.5
        return self.o(att.softmax(-1) @ values)

# spec: {"model": "r3_kv_cat_tensor_attr.py:StreamingAttn", "init": {"args": [8]}, "inputs": [{"tensor": [1, 1, 8]}], "calls": 4}
import torch
from torch import nn


class StreamingAttn(nn.Module):
    """Streaming attention whose key/value cache is a tensor attribute grown by torch.cat."""

    def __init__(self, dim):
        super().__init__()
        self.kv = nn.Linear(dim, 2 * dim)
        self.k_cache = torch.zeros(1, 0, dim)
        self.v_cache = torch.zeros(1, 0, dim)

    def forward(self, x):
        k, v = self.kv(x).chunk(2, -1)
        self.k_cache = torch.cat([self.k_cache, k], 1)
        self.v_cache = torch.cat([self.v_cache, v], 1)
        att = (x @ self.k_cache.transpose(1, 2)).softmax(-1)
        return att @ self.v_cache

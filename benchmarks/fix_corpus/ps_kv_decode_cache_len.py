# spec: {"model": "ps_kv_decode_cache_len.py:DecoderStep", "init": {"args": [32, 4]}, "inputs": [{"tensor": [1, 1, 32]}], "calls": 4}
import torch
import torch.nn.functional as F
from torch import nn


class DecoderStep(nn.Module):
    """GPT-2-style incremental decoding with a preallocated KV cache; the filled length is a Python int on self."""

    def __init__(self, dim, heads, max_len=32):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)
        self.register_buffer("k", torch.zeros(1, heads, max_len, dim // heads), persistent=False)
        self.register_buffer("v", torch.zeros(1, heads, max_len, dim // heads), persistent=False)
        self.cache_len = 0

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q = q.view(b, t, self.heads, self.hd).transpose(1, 2)
        k = k.view(b, t, self.heads, self.hd).transpose(1, 2)
        v = v.view(b, t, self.heads, self.hd).transpose(1, 2)
        start = self.cache_len
        end = start + t
        self.k[:, :, start:end] = k
        self.v[:, :, start:end] = v
        self.cache_len = end
        y = F.scaled_dot_product_attention(q, self.k[:, :, :end], self.v[:, :, :end])
        return self.c_proj(y.transpose(1, 2).reshape(b, t, c))

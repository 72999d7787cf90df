# spec: {"model": "rotary_decode_offset_counter.py:RotaryDecodeAttention", "init": {"args": [32, 4]}, "inputs": [{"tensor": [1, 1, 32]}], "calls": 3}
import torch
from rotary_embedding_torch import RotaryEmbedding
from torch import nn


class RotaryDecodeAttention(nn.Module):
    """Token-by-token decoding attention with rotary-embedding-torch; the position offset is a Python counter on self."""

    def __init__(self, dim, heads, max_len=64):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim)
        self.rotary = RotaryEmbedding(dim=dim // heads // 2)
        self.register_buffer("k_cache", torch.zeros(1, heads, max_len, dim // heads), persistent=False)
        self.register_buffer("v_cache", torch.zeros(1, heads, max_len, dim // heads), persistent=False)
        self.pos = 0

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.to_qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q = self.rotary.rotate_queries_or_keys(q, offset=self.pos)
        k = self.rotary.rotate_queries_or_keys(k, offset=self.pos)
        self.k_cache[:, :, self.pos : self.pos + n] = k
        self.v_cache[:, :, self.pos : self.pos + n] = v
        self.pos += n
        keys, values = self.k_cache[:, :, : self.pos], self.v_cache[:, :, : self.pos]
        attn = (q @ keys.transpose(-1, -2) * (d // self.heads) ** -0.5).softmax(-1)
        return self.out((attn @ values).transpose(1, 2).reshape(b, n, d))

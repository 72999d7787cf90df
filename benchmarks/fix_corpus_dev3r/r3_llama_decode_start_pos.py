# spec: {"model": "r3_llama_decode_start_pos.py:CachedAttention", "init": {"args": [16]}, "inputs": [{"tensor": [1, 1, 16]}, 0], "variants": [{"inputs": [{"tensor": [1, 1, 16]}, 1]}, {"inputs": [{"tensor": [1, 1, 16]}, 2]}, {"inputs": [{"tensor": [1, 1, 16]}, 3]}]}
import torch
from torch import nn


class CachedAttention(nn.Module):
    """Llama-style attention with a preallocated KV cache written at `start_pos`."""

    def __init__(self, dim, max_len=32):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.register_buffer("k_cache", torch.zeros(1, max_len, dim))
        self.register_buffer("v_cache", torch.zeros(1, max_len, dim))

    def forward(self, x, start_pos):
        bsz, seqlen, _ = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        self.k_cache[:bsz, start_pos : start_pos + seqlen] = k
        self.v_cache[:bsz, start_pos : start_pos + seqlen] = v
        keys = self.k_cache[:bsz, : start_pos + seqlen]
        values = self.v_cache[:bsz, : start_pos + seqlen]
        att = (q @ keys.transpose(1, 2)) / keys.shape[-1] ** 0.5
        return att.softmax(-1) @ values

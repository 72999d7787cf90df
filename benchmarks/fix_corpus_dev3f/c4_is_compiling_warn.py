# spec: {"model": "c4_is_compiling_warn.py:RotaryAttention", "init": {"args": [16, 2], "kwargs": {"max_seq_len": 8}}, "inputs": [{"tensor": [2, 6, 16]}], "calls": 3}
import warnings

import torch
from torch import nn


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class RotaryAttention(nn.Module):
    """HF-style attention with rotary tables cached as buffers for ``max_seq_len``, sliced to
    the sequence length; a warning about long sequences given only when not compiling, and a
    call counter kept only in eager (``torch.compiler.is_compiling()`` guards)."""

    def __init__(self, dim, heads, max_seq_len=2048, base=10000):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.max_seq_len = max_seq_len
        self.qkv = nn.Linear(dim, dim * 3)
        self.out = nn.Linear(dim, dim)
        inv_freq = 1.0 / (base ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        t = torch.arange(max_seq_len).float()
        freqs = torch.einsum("i,j->ij", t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)
        self.eager_calls = 0

    def forward(self, x):
        bsz, seq_len, _ = x.shape
        if not torch.compiler.is_compiling():
            self.eager_calls += 1
            if seq_len > self.max_seq_len:
                warnings.warn(f"sequence length {seq_len} exceeds the rotary cache ({self.max_seq_len})")
        q, k, v = self.qkv(x).view(bsz, seq_len, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        cos = self.cos_cached[:seq_len].to(dtype=x.dtype)
        sin = self.sin_cached[:seq_len].to(dtype=x.dtype)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(bsz, seq_len, -1))

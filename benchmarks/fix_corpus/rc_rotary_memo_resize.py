# spec: {"model": "rc_rotary_memo_resize.py:RotaryLayer", "init": {"args": [16]}, "inputs": [{"tensor": [2, 6, 16]}], "variants": [{"inputs": [{"tensor": [2, 10, 16]}]}, {"inputs": [{"tensor": [2, 6, 16]}]}, {"inputs": [{"tensor": [2, 14, 16]}]}]}
import torch
from torch import nn


class RotaryLayer(nn.Module):
    """GPT-NeoX / early transformers rotary embedding: cos/sin tables memoised on self and
    rebuilt when a longer sequence arrives (`seq_len_cached`)."""

    def __init__(self, dim, base=10000):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.proj = nn.Linear(dim, dim)
        self.seq_len_cached = 0
        self.cos_cached = None
        self.sin_cached = None

    def forward(self, x):
        seq_len = x.shape[1]
        if seq_len > self.seq_len_cached:
            self.seq_len_cached = seq_len
            t = torch.arange(seq_len, dtype=self.inv_freq.dtype)
            freqs = torch.outer(t, self.inv_freq)
            emb = torch.cat((freqs, freqs), dim=-1)
            self.cos_cached = emb.cos()
            self.sin_cached = emb.sin()
        cos = self.cos_cached[:seq_len]
        sin = self.sin_cached[:seq_len]
        x1, x2 = x.chunk(2, dim=-1)
        rot = torch.cat((-x2, x1), dim=-1)
        return self.proj(x * cos + rot * sin)

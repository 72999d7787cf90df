# spec: {"model": "cb_nan_warn_repair.py:StableAttention", "inputs": [{"tensor": [2, 6, 16]}]}
import warnings

import torch
from torch import nn


class StableAttention(nn.Module):
    """Self-attention whose scores are repaired when they overflow (transformers-style warn)."""

    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.heads = heads

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads).unbind(2)
        scores = torch.einsum("bnhd,bmhd->bhnm", q, k) / (d // self.heads) ** 0.5
        if torch.isnan(scores).any():
            warnings.warn("NaN in attention scores, replacing with zeros")
            scores = torch.nan_to_num(scores)
        attn = scores.softmax(-1)
        out = torch.einsum("bhnm,bmhd->bnhd", attn, v).reshape(b, n, d)
        return self.proj(out)

# spec: {"model": "attn_entropy_log.py:ProbedSelfAttention", "init": {"args": [16, 2]}, "inputs": [{"tensor": [2, 6, 16]}], "calls": 3}
import torch
from torch import nn


class ProbedSelfAttention(nn.Module):
    """Self-attention that records per-head attention entropy every call (interpretability code)."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.entropy_log = []

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        attn = (q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5).softmax(-1)
        ent = -(attn * attn.clamp_min(1e-9).log()).sum(-1).mean(dim=(0, 2))
        self.entropy_log.append(ent.tolist())
        y = (attn @ v).transpose(1, 2).reshape(b, t, d)
        return self.out(y)

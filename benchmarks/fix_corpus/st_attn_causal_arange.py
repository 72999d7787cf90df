# spec: {"model": "st_attn_causal_arange.py:CausalSelfAttention", "init": {"args": [16, 2]}, "inputs": [{"tensor": [2, 5, 16]}]}
import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    """nanoGPT-like attention that also reports the entropy of the causal (lower-triangle)
    attention weights per head, the allowed positions picked by an `arange` comparison."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, self.heads, -1).transpose(1, 2)
        k = k.view(b, t, self.heads, -1).transpose(1, 2)
        v = v.view(b, t, self.heads, -1).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / k.shape[-1] ** 0.5
        pos = torch.arange(t, device=x.device)
        allowed = pos[:, None] >= pos[None, :]
        att = att.masked_fill(~allowed, float("-inf")).softmax(dim=-1)
        kept = att[:, :, allowed]
        entropy = -(kept * kept.clamp_min(1e-9).log()).sum(-1) / t
        y = (att @ v).transpose(1, 2).reshape(b, t, c)
        return self.out(y), entropy

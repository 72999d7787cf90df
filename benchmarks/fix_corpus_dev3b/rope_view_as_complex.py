# spec: {"model": "rope_view_as_complex.py:RotaryAttention", "init": {"args": [16, 2]}, "inputs": [{"tensor": [2, 6, 16]}]}
import torch
from torch import nn


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: dim // 2].float() / dim))
    t = torch.arange(end).float()
    return torch.polar(torch.ones(end, dim // 2), torch.outer(t, freqs))


def apply_rotary_emb(x, freqs_cis):
    x_ = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(x_ * freqs_cis[None, :, None, :]).flatten(3).type_as(x)


class RotaryAttention(nn.Module):
    """LLaMA-style attention with rotary embeddings applied through complex multiplication."""

    def __init__(self, dim, heads, max_len=32):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.register_buffer("freqs_cis", precompute_freqs_cis(dim // heads, max_len), persistent=False)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).unbind(2)
        q = apply_rotary_emb(q, self.freqs_cis[:n])
        k = apply_rotary_emb(k, self.freqs_cis[:n])
        out = nn.functional.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return out.transpose(1, 2).reshape(b, n, d)

# spec: {"model": "rotary_seq_len_variants.py:RotaryAttention", "init": {"args": [32, 4]}, "inputs": [{"tensor": [2, 8, 32]}], "variants": [{"inputs": [{"tensor": [2, 12, 32]}]}, {"inputs": [{"tensor": [2, 16, 32]}]}]}
import torch
import torch.nn.functional as F
from rotary_embedding_torch import RotaryEmbedding
from torch import nn


class RotaryAttention(nn.Module):
    """Self-attention with rotary-embedding-torch, called on batches of different sequence lengths."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.rotary = RotaryEmbedding(dim=dim // heads // 2)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q = self.rotary.rotate_queries_or_keys(q)
        k = self.rotary.rotate_queries_or_keys(k)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, n, d))

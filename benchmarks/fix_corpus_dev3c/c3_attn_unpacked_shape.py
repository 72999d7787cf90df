# spec: {"model": "c3_attn_unpacked_shape.py:Attention", "init": {"args": [32], "kwargs": {"num_heads": 4, "qkv_bias": true}}, "inputs": [{"tensor": [2, 9, 32]}], "calls": 3, "variants": [{"inputs": [{"tensor": [2, 9, 32], "init": "ones"}]}]}
import math

import torch
from torch import nn


class Attention(nn.Module):
    """timm ``Attention``: sizes unpacked from ``x.shape``, the scale from ``math.sqrt`` at init."""

    fused_attn: bool = False

    def __init__(self, dim, num_heads=8, qkv_bias=False, attn_drop=0.0, proj_drop=0.0):
        super().__init__()
        assert dim % num_heads == 0, "dim should be divisible by num_heads"
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        if self.fused_attn:
            x = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        else:
            q = q * self.scale
            attn = q @ k.transpose(-2, -1)
            attn = attn.softmax(dim=-1)
            attn = self.attn_drop(attn)
            x = attn @ v
        x = x.transpose(1, 2).reshape(B, N, C)
        return self.proj_drop(self.proj(x))

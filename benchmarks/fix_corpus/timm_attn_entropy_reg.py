# spec: {"model": "timm_attn_entropy_reg.py:EntropyRegAttention", "init": {"args": [16]}, "inputs": [{"tensor": [2, 5, 16]}]}
import torch
from torch import nn


class EntropyRegAttention(nn.Module):
    """timm-style attention whose output is damped by the attention entropy (research code)."""

    def __init__(self, dim, num_heads=2, ent_weight=0.05):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = head_dim ** -0.5
        self.ent_weight = ent_weight
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        entropy = -(attn * attn.clamp_min(1e-9).log()).sum(-1).mean().item()
        damp = 1.0 / (1.0 + self.ent_weight * entropy)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(x) * damp

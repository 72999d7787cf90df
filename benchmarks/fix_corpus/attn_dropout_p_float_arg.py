# spec: {"model": "attn_dropout_p_float_arg.py:StochasticDepthAttention", "init": {"args": [24, 4]}, "inputs": [{"tensor": [2, 7, 24]}, 0.1], "mode": "train", "variants": [{"inputs": [{"tensor": [2, 7, 24]}, 0.15]}, {"inputs": [{"tensor": [2, 7, 24]}, 0.2]}]}
import torch
from torch import nn
import torch.nn.functional as F


class StochasticDepthAttention(nn.Module):
    """Attention block whose attention-dropout rate is scheduled by the trainer and passed per step."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, attn_drop):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        attn = (q @ k.transpose(-2, -1)) * (c // self.heads) ** -0.5
        attn = F.dropout(attn.softmax(-1), p=attn_drop, training=self.training)
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, c))

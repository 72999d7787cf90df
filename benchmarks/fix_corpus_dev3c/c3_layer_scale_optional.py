# spec: {"model": "c3_layer_scale_optional.py:Block", "init": {"args": [16], "kwargs": {"init_values": null}}, "inputs": [{"tensor": [2, 4, 16]}], "calls": 3}
import torch
from torch import nn


class LayerScale(nn.Module):
    def __init__(self, dim, init_values=1e-5, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x.mul_(self.gamma) if self.inplace else x * self.gamma


class Block(nn.Module):
    """timm ViT block: LayerScale only when ``init_values`` is given (here it is not)."""

    def __init__(self, dim, mlp_ratio=4.0, init_values=None):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.ls1 = LayerScale(dim, init_values) if init_values else nn.Identity()
        self.norm2 = nn.LayerNorm(dim)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
        self.ls2 = LayerScale(dim, init_values) if init_values else nn.Identity()

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.ls1(self.attn(h, h, h, need_weights=False)[0])
        return x + self.ls2(self.mlp(self.norm2(x)))

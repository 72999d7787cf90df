"""A ViT-S/16-style classifier with the instrumentation of research code.

Held-out GPU model for issue 22 (compilelint's fix corpus): `vit_fixed.py` is the same model fixed
by hand. What breaks torch.compile here:

- every block times itself with `time.perf_counter()` into a list on `self` (a standard-library
  call dynamo skips);
- every block stores float() of its activation statistics for a dashboard;
- a stabiliser clamps the residual stream when a flag is on and the stream blows up
  (a Python flag and a tensor condition in one `if`).
"""

import time

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v)
        return self.proj(y.transpose(1, 2).reshape(b, n, d))


class Block(nn.Module):
    def __init__(self, dim, heads, stabilize=True):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.stabilize = stabilize
        self.stats = {}
        self.seconds = []

    def forward(self, x):
        start = time.perf_counter()
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        if self.stabilize and x.abs().amax() > 1e4:
            x = x.clamp(-1e4, 1e4)
        self.stats = {"mean": float(x.mean()), "absmax": float(x.abs().amax())}
        self.seconds.append(time.perf_counter() - start)
        return x


class ViT(nn.Module):
    def __init__(self, img=224, patch=16, dim=384, heads=6, depth=8, classes=1000):
        super().__init__()
        self.patch = patch
        self.embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, (img // patch) ** 2, dim) * 0.02)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def pos_embed(self, gh, gw):
        n = int(self.pos.shape[1] ** 0.5)
        if (gh, gw) == (n, n):
            return self.pos
        grid = self.pos.reshape(1, n, n, -1).permute(0, 3, 1, 2)
        grid = F.interpolate(grid, size=(gh, gw), mode="bicubic", align_corners=False)
        return grid.permute(0, 2, 3, 1).reshape(1, gh * gw, -1)

    def forward(self, images):
        x = self.embed(images)
        gh, gw = x.shape[-2:]
        x = x.flatten(2).transpose(1, 2) + self.pos_embed(gh, gw)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x[:, 0]))

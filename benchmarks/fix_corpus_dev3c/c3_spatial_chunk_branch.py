# spec: {"model": "c3_spatial_chunk_branch.py:AttnBlock", "init": {"args": [8]}, "inputs": [{"tensor": [1, 8, 6, 6]}], "calls": 3}
import math

import torch
from torch import nn


class AttnBlock(nn.Module):
    """VAE mid-block attention (taming/ldm): spatial self-attention, chunked above a size."""

    max_tokens = 4096

    def __init__(self, in_channels):
        super().__init__()
        self.norm = nn.GroupNorm(num_groups=4, num_channels=in_channels, eps=1e-6, affine=True)
        self.q = nn.Conv2d(in_channels, in_channels, 1)
        self.k = nn.Conv2d(in_channels, in_channels, 1)
        self.v = nn.Conv2d(in_channels, in_channels, 1)
        self.proj_out = nn.Conv2d(in_channels, in_channels, 1)

    def _attend(self, q, k, v):
        w = torch.bmm(q, k) * (1.0 / math.sqrt(q.shape[-1]))
        return torch.bmm(v, w.softmax(dim=2).permute(0, 2, 1))

    def forward(self, x):
        h_ = self.norm(x)
        q, k, v = self.q(h_), self.k(h_), self.v(h_)
        b, c, h, w = q.shape
        q = q.reshape(b, c, h * w).permute(0, 2, 1)
        k = k.reshape(b, c, h * w)
        v = v.reshape(b, c, h * w)
        if h * w > self.max_tokens:
            outs = [self._attend(q[:, i : i + 1024], k, v) for i in range(0, h * w, 1024)]
            h_ = torch.cat(outs, dim=-1)
        else:
            h_ = self._attend(q, k, v)
        return x + self.proj_out(h_.reshape(b, c, h, w))

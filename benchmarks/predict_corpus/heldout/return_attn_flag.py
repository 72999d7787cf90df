"""Attention that optionally returns its weights (a boolean flag argument, HF-style)."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.scale = dim**-0.5

    def forward(self, x: torch.Tensor, output_attentions: bool = False):
        w = torch.softmax(self.q(x) @ self.k(x).transpose(-1, -2) * self.scale, dim=-1)
        out = w @ self.v(x)
        if output_attentions:
            return out, w
        return out, None

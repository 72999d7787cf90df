"""Stochastic-depth / dropout rate passed per call (timm-style drop_path schedule)."""

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor, drop: float = 0.1) -> torch.Tensor:
        h = F.gelu(self.fc1(x))
        h = F.dropout(h, p=drop, training=True)
        return x + self.fc2(h)

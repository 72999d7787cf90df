"""Sentence-embedding pooler selected by a string argument (sentence-transformers style)."""

import torch
from torch import nn


class Pooler(nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))

    def forward(self, tokens: torch.Tensor, pooling_mode: str = "mean") -> torch.Tensor:
        h = self.encoder(tokens)
        if pooling_mode == "cls":
            return h[:, 0]
        if pooling_mode == "max":
            return h.max(dim=1).values
        return h.mean(dim=1)

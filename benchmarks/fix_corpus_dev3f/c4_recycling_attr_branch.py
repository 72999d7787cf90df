# spec: {"model": "c4_recycling_attr_branch.py:RecyclingEncoder", "init": {"args": [16]}, "inputs": [{"tensor": [2, 5, 16]}], "calls": 3}
from random import randrange

import torch
from torch import nn


def exists(v):
    return v is not None


def default(v, d):
    return v if exists(v) else d


class RecyclingEncoder(nn.Module):
    """AlphaFold/x-transformers-style recycling, off by default: ``self.recycling`` and
    ``self.train_max_recycle_steps`` bound in ``__init__`` from the constructor's defaults and
    never changed; the recycling branch draws a step count and asserts on it, and a debugging
    branch keeps per-call norms with ``.item()``, both unreachable with these attributes."""

    def __init__(self, dim, depth=2, recycling=False, train_max_recycle_steps=4, track_norms=False):
        super().__init__()
        self.layers = nn.ModuleList([nn.TransformerEncoderLayer(dim, 2, dim * 2, dropout=0.0, batch_first=True) for _ in range(depth)])
        self.recycling = recycling
        self.train_max_recycle_steps = train_max_recycle_steps
        self.track_norms = track_norms
        self.recycled_proj = nn.Linear(dim, dim) if recycling else None
        self.norms = []

    def encode(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def forward(self, x, recycle_steps=None):
        if not self.recycling:
            hiddens = self.encode(x)
        else:
            recycle_steps = default(recycle_steps, (randrange(self.train_max_recycle_steps) + 1) if self.training else None)
            assert exists(recycle_steps) and recycle_steps > 0, "`recycle_steps` must be provided on forward if recycling is turned on and not training"
            hiddens = torch.zeros_like(x)
            for _ in range(recycle_steps - 1):
                hiddens = self.encode(x + self.recycled_proj(hiddens)).detach()
            hiddens = self.encode(x + self.recycled_proj(hiddens))
        if self.track_norms:
            self.norms.append(hiddens.norm().item())
        return hiddens

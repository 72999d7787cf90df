# spec: {"model": "ps_rand_drop_path_fn.py:ResidualStack", "init": {"args": [16]}, "inputs": [{"tensor": [4, 16]}], "mode": "train", "calls": 4}
import random

import torch
from torch import nn


def layer_drop(x, residual, p, training):
    """LayerDrop (fairseq habit): skip the whole residual branch with probability p."""
    drop = training and random.random() < p
    if drop:
        return x
    return x + residual


class ResidualStack(nn.Module):
    def __init__(self, dim, depth=3, p=0.3):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU()) for _ in range(depth))
        self.p = p

    def forward(self, x):
        for blk in self.blocks:
            x = layer_drop(x, blk(x), self.p, self.training)
        return x.sum(-1)

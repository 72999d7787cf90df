# spec: {"model": "timm_droppath.py:Block", "init": {"args": [32]}, "inputs": [{"tensor": [2, 5, 32]}]}
import logging

import torch
import torch.nn as nn

_logger = logging.getLogger(__name__)


class Mlp(nn.Module):
    def __init__(self, in_features, hidden_features=None):
        super().__init__()
        hidden_features = hidden_features or in_features * 4
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden_features, in_features)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Module):
    def __init__(self, dim, mlp_ratio=4.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, int(dim * mlp_ratio))

    def forward(self, x):
        _logger.info(f"block input {tuple(x.shape)}")
        x = x + self.mlp(self.norm1(x))
        return x

# spec: {"model": "r3_rank_flatten_input.py:TokenHead", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "variants": [{"inputs": [{"tensor": [2, 3, 8]}]}, {"inputs": [{"tensor": [2, 3, 4, 8]}]}]}
import torch
from torch import nn


class TokenHead(nn.Module):
    """A head that accepts pooled (B, D) or token (B, ..., D) features and flattens them."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, 2)

    def forward(self, feats):
        if feats.dim() > 2:
            feats = feats.flatten(1, -2).mean(1)
        return self.fc(feats)

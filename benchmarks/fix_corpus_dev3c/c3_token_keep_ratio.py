# spec: {"model": "c3_token_keep_ratio.py:TokenPruner", "init": {"args": [16], "kwargs": {"keep_ratio": 0.5}}, "inputs": [{"tensor": [2, 10, 16]}], "calls": 3}
import torch
from torch import nn


class TokenPruner(nn.Module):
    """EViT-style token pruning: keeps the top ``int(N * keep_ratio)`` tokens by a learned score."""

    def __init__(self, dim, keep_ratio=0.7):
        super().__init__()
        self.keep_ratio = keep_ratio
        self.score = nn.Linear(dim, 1)
        self.mlp = nn.Sequential(nn.Linear(dim, int(dim * 2.0)), nn.GELU(), nn.Linear(int(dim * 2.0), dim))

    def forward(self, x):
        B, N, C = x.shape
        n_keep = max(1, int(N * self.keep_ratio))
        scores = self.score(x).squeeze(-1)
        idx = scores.topk(n_keep, dim=1).indices
        kept = torch.gather(x, 1, idx.unsqueeze(-1).expand(-1, -1, C))
        return kept + self.mlp(kept)

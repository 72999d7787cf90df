# spec: {"model": "pool_valid_index_select.py:ValidTokenPool", "inputs": [{"tensor": [10, 8], "init": "randn"}, {"tensor": [10], "init": "rand"}], "mode": "train"}
import torch
from torch import nn


class ValidTokenPool(nn.Module):
    """Sum-pool of the valid tokens through their indices (`torch.nonzero(...).squeeze(1)` and
    `index_select`), a habit of fairseq / ESPnet code that avoids boolean indexing."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, tokens, presence):
        h = self.proj(tokens)
        idx = torch.nonzero(presence > 0.2).squeeze(1)
        pooled = h.index_select(0, idx).sum(0)
        return pooled

# spec: {"model": "rec_din_hist_lengths_tolist.py:DINAttention", "init": {"args": [50, 16]}, "inputs": [{"tensor": [4, 10], "dtype": "int64", "init": "randint", "low": 0, "high": 50}, {"tensor": [4], "dtype": "int64", "init": "randint", "low": 1, "high": 11}, {"tensor": [4], "dtype": "int64", "init": "randint", "low": 0, "high": 50}]}
import torch
from torch import nn


class DINAttention(nn.Module):
    """Deep Interest Network: attention over a user's behaviour history, masked by each user's history length."""

    def __init__(self, n_items, dim):
        super().__init__()
        self.item_emb = nn.Embedding(n_items, dim)
        self.att = nn.Sequential(nn.Linear(4 * dim, 36), nn.Sigmoid(), nn.Linear(36, 1))
        self.mlp = nn.Sequential(nn.Linear(2 * dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, hist, hist_len, target):
        h = self.item_emb(hist)
        t = self.item_emb(target)[:, None].expand_as(h)
        w = self.att(torch.cat([h, t, h - t, h * t], dim=-1)).squeeze(-1)
        max_len = hist.size(1)
        mask = torch.tensor([[1] * n + [0] * (max_len - n) for n in hist_len.tolist()], dtype=torch.bool)
        w = w.masked_fill(~mask, 0.0)
        interest = (w[..., None] * h).sum(1)
        return torch.sigmoid(self.mlp(torch.cat([interest, t[:, 0]], dim=-1))).squeeze(-1)

# spec: {"model": "rec_two_tower_seen_filter.py:TwoTower", "init": {"args": [50, 16]}, "inputs": [{"tensor": [2], "dtype": "int64", "data": [3, 7]}, {"tensor": [2, 4], "dtype": "int64", "init": "randint", "low": 0, "high": 50}]}
import torch
from torch import nn


class TwoTower(nn.Module):
    """Retrieval with a user and an item tower; recommends the top items the user has not interacted with."""

    def __init__(self, n_items, dim, k=5):
        super().__init__()
        self.user = nn.Embedding(100, dim)
        self.item = nn.Embedding(n_items, dim)
        self.k = k

    def forward(self, user_ids, history):
        scores = self.user(user_ids) @ self.item.weight.T
        top = scores.topk(self.k + history.shape[1], dim=-1).indices
        recs = []
        for row, seen in zip(top.tolist(), history.tolist()):
            seen = set(seen)
            recs.append([i for i in row if i not in seen][: self.k])
        return scores, torch.tensor(recs)

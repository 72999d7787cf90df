# spec: {"model": "s3_cut_rec_topk_boost.py:ReRanker", "init": {"args": [16, 40]}, "inputs": [{"tensor": [1, 16]}, {"tensor": [1], "dtype": "int64", "init": "randint", "low": 1, "high": 10}]}
import torch
from torch import nn


class ReRanker(nn.Module):
    """Recommender re-ranking (RecBole-like): the first `budget` items of a full `topk` ranking
    get a fixed bonus (`+=`), the budget read from the request tensor with `.item()`."""

    def __init__(self, dim, n_items, bonus=2.0):
        super().__init__()
        self.items = nn.Linear(dim, n_items)
        self.bonus = bonus

    def forward(self, user, budget):
        scores = self.items(user)
        ranked = scores.topk(scores.shape[-1], dim=-1).indices
        k = budget[0].item()
        boosted_items = ranked[0, :k]
        out = scores.clone()
        out[0, boosted_items] += self.bonus
        return out.softmax(-1)

# spec: {"model": "state_seen_items_filter.py:SessionRecommender", "init": {"args": [30, 8]}, "inputs": [{"tensor": [4], "dtype": "int64", "init": "randint", "low": 0, "high": 30}], "calls": 2}
import torch
import torch.nn as nn


class SessionRecommender(nn.Module):
    """Session-based recommender that never recommends an item twice in a session: the items already
    served are a Python set on the module, and their scores are pushed down before the top-k."""

    def __init__(self, n_items, dim, k=3):
        super().__init__()
        self.items = nn.Embedding(n_items, dim)
        self.k = k
        self.served = set()

    def forward(self, last_items):
        q = self.items(last_items).mean(0)
        scores = self.items.weight @ q
        for i in self.served:
            scores[i] = float("-inf")
        top = scores.topk(self.k).indices
        self.served.update(top.tolist())
        return scores.masked_fill(torch.isinf(scores), -1e4), top

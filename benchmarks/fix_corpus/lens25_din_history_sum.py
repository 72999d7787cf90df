# spec: {"model": "lens25_din_history_sum.py:DINUserTower", "init": {"args": [60, 16]}, "inputs": [{"tensor": [4, 8], "dtype": "int64", "init": "randint", "low": 1, "high": 60}, {"tensor": [4], "dtype": "int64", "data": [8, 3, 5, 1]}, {"tensor": [4], "dtype": "int64", "init": "randint", "low": 1, "high": 60}]}
import torch
from torch import nn


class DINUserTower(nn.Module):
    """Recsys user tower (DeepCTR style): the embeddings of each user's behaviour history are summed
    over its real entries into a preallocated buffer, the history length read per user."""

    def __init__(self, n_items, dim):
        super().__init__()
        self.item_emb = nn.Embedding(n_items, dim, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(2 * dim, dim), nn.PReLU(), nn.Linear(dim, 1))

    def forward(self, hist_items, hist_len, target_item):
        hist = self.item_emb(hist_items)
        user_vec = torch.zeros(hist.size(0), hist.size(2))
        for u in range(hist.size(0)):
            n = hist_len[u].item()
            user_vec[u] = hist[u, :n].sum(dim=0)
        logit = self.mlp(torch.cat([user_vec, self.item_emb(target_item)], dim=-1))
        return torch.sigmoid(logit).squeeze(-1)

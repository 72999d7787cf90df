# spec: {"model": "rec_neg_rejection_while.py:BPRModel", "init": {"args": [20, 30, 8]}, "inputs": [{"tensor": [16], "dtype": "int64", "init": "randint", "low": 0, "high": 20}, {"tensor": [16], "dtype": "int64", "init": "randint", "low": 0, "high": 30}]}
import torch
import torch.nn.functional as F
from torch import nn


class BPRModel(nn.Module):
    """Matrix factorisation with BPR loss; negatives are redrawn until none equals the positive item."""

    def __init__(self, num_users, num_items, dim):
        super().__init__()
        self.user = nn.Embedding(num_users, dim)
        self.item = nn.Embedding(num_items, dim)
        self.num_items = num_items

    def forward(self, users, pos_items):
        neg_items = torch.randint(0, self.num_items, pos_items.shape)
        clash = neg_items == pos_items
        while clash.any():
            neg_items[clash] = torch.randint(0, self.num_items, (int(clash.sum()),))
            clash = neg_items == pos_items
        u = self.user(users)
        pos = (u * self.item(pos_items)).sum(-1)
        neg = (u * self.item(neg_items)).sum(-1)
        return -F.logsigmoid(pos - neg).mean()

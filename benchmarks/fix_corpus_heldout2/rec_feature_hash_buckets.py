# spec: {"model": "rec_feature_hash_buckets.py:HashedFeatures", "init": {"args": [["country", "device", "hour"], 64, 8]}, "inputs": [{"tensor": [4, 3], "dtype": "int64", "init": "randint", "low": 0, "high": 1000}]}
import hashlib

import torch
from torch import nn


class HashedFeatures(nn.Module):
    """Categorical features hashed into shared buckets, salted per feature name (ads CTR model habit)."""

    def __init__(self, names, buckets, dim):
        super().__init__()
        self.names = list(names)
        self.buckets = buckets
        self.table = nn.Embedding(buckets, dim)
        self.head = nn.Linear(dim * len(names), 1)

    def forward(self, raw_ids):
        embs = []
        for j, name in enumerate(self.names):
            salt = int(hashlib.md5(name.encode()).hexdigest()[:8], 16)
            embs.append(self.table((raw_ids[:, j] + salt) % self.buckets))
        return torch.sigmoid(self.head(torch.cat(embs, dim=-1)))

# spec: {"model": "std_crc32_bucket.py:HashedFeatureEmbedding", "inputs": [{"tensor": [4, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 50}]}
import zlib

import torch
from torch import nn


class HashedFeatureEmbedding(nn.Module):
    """Recsys style: a feature name hashed (crc32) into a stable bucket offset per forward."""

    def __init__(self, name="user_id", buckets=64, dim=8):
        super().__init__()
        self.name = name
        self.buckets = buckets
        self.emb = nn.Embedding(buckets + 50, dim)

    def forward(self, ids):
        offset = zlib.crc32(self.name.encode()) % self.buckets
        return self.emb(ids + offset).sum(1)

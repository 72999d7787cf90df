# spec: {"model": "rec_embedding_dedupe_ids.py:DedupEmbeddingBag", "init": {"kwargs": {"num_embeddings": 100, "embedding_dim": 8}}, "inputs": [{"tensor": [6, 10], "dtype": "int64", "init": "randint", "low": 0, "high": 30}]}
import torch
import torch.nn as nn


class DedupEmbeddingBag(nn.Module):
    """Sparse-feature lookup that deduplicates ids first (TorchRec / HugeCTR habit) and sum-pools."""

    def __init__(self, num_embeddings, embedding_dim):
        super().__init__()
        self.table = nn.Embedding(num_embeddings, embedding_dim)
        self.mlp = nn.Sequential(nn.Linear(embedding_dim, 16), nn.ReLU(), nn.Linear(16, 1))

    def lookup(self, ids):
        uniq, inverse = ids.flatten().unique(return_inverse=True)
        rows = self.table(uniq)
        return rows[inverse].view(*ids.shape, -1)

    def forward(self, ids):
        pooled = self.lookup(ids).sum(1)
        return self.mlp(pooled).squeeze(-1).sigmoid()

# spec: {"model": "ps_pool_mode_kwarg.py:SentenceEncoder", "init": {"args": [50, 16]}, "inputs": [{"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 50}], "kwargs": {"pooling": "mean"}, "variants": [{"name": "cls", "inputs": [{"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 50}], "kwargs": {"pooling": "cls"}}, {"name": "max", "inputs": [{"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 50}], "kwargs": {"pooling": "max"}}]}
import torch
from torch import nn


class SentenceEncoder(nn.Module):
    """sentence-transformers-like encoder whose pooling strategy is a string keyword chosen per call."""

    def __init__(self, vocab, dim):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.enc = nn.GRU(dim, dim, batch_first=True)

    def forward(self, ids, pooling="mean"):
        h = self.emb(ids).tanh()
        if pooling == "cls":
            return h[:, 0]
        elif pooling == "max":
            return h.max(dim=1).values
        return h.mean(dim=1)

# spec: {"model": "cache_tensor_hash_memo.py:MemoEmbedding", "init": {"args": [16, 8]}, "inputs": [{"tensor": [4], "dtype": "int64", "init": "randint", "low": 0, "high": 16}], "calls": 2}
from torch import nn


class MemoEmbedding(nn.Module):
    """Embedding lookup memoised on the ids tensor object (a serving shortcut): the cache key
    is hash(ids)."""

    def __init__(self, vocab, dim):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)
        self._memo = {}

    def forward(self, ids):
        key = hash(ids)
        if key not in self._memo:
            self._memo[key] = self.emb(ids)
        return self.proj(self._memo[key])

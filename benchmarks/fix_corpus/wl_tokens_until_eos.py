# spec: {"model": "wl_tokens_until_eos.py:EosPooler", "inputs": [{"tensor": [7], "dtype": "int64", "init": "randint", "low": 0, "high": 5}]}
import torch
from torch import nn


class EosPooler(nn.Module):
    """Pools token embeddings up to the first EOS (a while loop that consumes a tensor)."""

    def __init__(self, vocab=5, dim=4, eos=0):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.eos = eos

    def forward(self, ids):
        e = self.emb(ids)
        pooled = torch.zeros(e.shape[-1])
        pos = 0
        while pos < len(ids) and ids[pos] != self.eos:
            pooled = pooled + e[pos]
            pos += 1
        return pooled

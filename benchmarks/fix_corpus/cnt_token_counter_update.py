# spec: {"model": "cnt_token_counter_update.py:TokenEmbedder", "init": {"args": [20, 8]}, "inputs": [{"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 20}], "calls": 3}
from collections import Counter

import torch
from torch import nn


class TokenEmbedder(nn.Module):
    """A transformers-like embedding layer that keeps token frequencies (for a later
    frequency-aware sampler), counted with collections.Counter."""

    def __init__(self, vocab_size, dim):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, dim)
        self.ln = nn.LayerNorm(dim)
        self.token_counts = Counter()

    def forward(self, input_ids):
        self.token_counts.update(input_ids.flatten().tolist())
        return self.ln(self.emb(input_ids))

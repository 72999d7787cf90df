# spec: {"model": "sc_nlp_trim_mean.py:TrimmedMeanPool", "init": {"args": [32, 16]}, "inputs": [{"tensor": [3, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 32}, {"tensor": [3], "dtype": "int64", "data": [12, 7, 9]}]}
import torch
from torch import nn


class TrimmedMeanPool(nn.Module):
    """Padding trimmer (fairseq-like): the batch cut to its longest sentence, then embedded and
    averaged over the kept positions."""

    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)

    def forward(self, tokens, lengths):
        longest = lengths.max().item()
        tokens = tokens[:, :longest]
        h = self.embed(tokens)
        return h.mean(1)

# spec: {"model": "nlp_trim_to_longest.py:MaskedMeanEncoder", "init": {"args": [30, 8]}, "inputs": [{"tensor": [2, 12], "dtype": "int64", "init": "randint", "low": 1, "high": 30}, {"tensor": [2, 12], "dtype": "int64", "data": [[1,1,1,1,1,1,1,0,0,0,0,0],[1,1,1,1,1,0,0,0,0,0,0,0]]}]}
import torch
from torch import nn


class MaskedMeanEncoder(nn.Module):
    """Encoder that drops the all-padding tail of the batch before mean pooling (fairseq style)."""

    def __init__(self, vocab, dim):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.ff = nn.Linear(dim, dim)

    def forward(self, input_ids, attention_mask):
        longest = attention_mask.sum(-1).max().item()
        input_ids = input_ids[:, :longest]
        attention_mask = attention_mask[:, :longest]
        h = torch.tanh(self.ff(self.emb(input_ids)))
        m = attention_mask.unsqueeze(-1).float()
        return (h * m).sum(1) / m.sum(1)

# spec: {"model": "lens25_last_token_item.py:LastTokenPooler", "init": {"args": [50, 24]}, "inputs": [{"tensor": [4, 7], "dtype": "int64", "init": "randint", "low": 1, "high": 50}, {"tensor": [4], "dtype": "int64", "data": [7, 3, 5, 1]}]}
import torch
from torch import nn


class LastTokenPooler(nn.Module):
    """A decoder-only reward head (GPT-style sequence classification): the hidden state of each
    sequence's last real token, whose position is read per sequence with `.item()`."""

    def __init__(self, vocab, dim):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.block = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=48, batch_first=True, dropout=0.0)
        self.score = nn.Linear(dim, 1)

    def forward(self, input_ids, sequence_lengths):
        hidden_states = self.block(self.wte(input_ids))
        last = []
        for b in range(input_ids.shape[0]):
            end = sequence_lengths[b].item() - 1
            last.append(hidden_states[b, end])
        return self.score(torch.stack(last)).squeeze(-1)

"""GPT-style embedding: learned positions sliced to the sequence length read from the shape."""

import torch
from torch import nn


class Embeddings(nn.Module):
    def __init__(self, vocab: int = 100, dim: int = 16, max_len: int = 64) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(1, max_len, dim))
        self.drop = nn.Dropout(0.0)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        batch_size, seq_len = input_ids.shape
        h = self.tok(input_ids) + self.pos[:, :seq_len]
        return self.drop(h).view(batch_size * seq_len, -1)

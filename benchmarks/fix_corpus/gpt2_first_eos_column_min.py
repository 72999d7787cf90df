# spec: {"model": "gpt2_first_eos_column_min.py:TruncateAtEos", "inputs": [{"tensor": [2, 10], "dtype": "int64", "data": [[1, 2, 3, 4, 2, 5, 1, 0, 5, 2], [3, 1, 5, 2, 4, 4, 0, 1, 2, 3]]}]}
import torch
from torch import nn


class TruncateAtEos(nn.Module):
    """Generation post-processing (HF-style): the earliest end-of-sequence column over the
    batch, found with `nonzero`, and the hidden state there pooled."""

    def __init__(self, vocab=6, dim=8, eos_token_id=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.eos_token_id = eos_token_id

    def forward(self, input_ids):
        hidden = self.embed(input_ids)
        first_eos = (input_ids == self.eos_token_id).nonzero()[:, 1].min()
        return hidden[:, first_eos] * 2.0

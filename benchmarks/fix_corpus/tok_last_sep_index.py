# spec: {"model": "tok_last_sep_index.py:LastSep", "inputs": [{"tensor": [9], "dtype": "int64", "data": [0, 1, 3, 2, 2, 1, 3, 0, 1]}]}
import torch
from torch import nn


class LastSep(nn.Module):
    """Span extraction (BERT QA post-processing): the last separator token of a single
    sequence, `row.nonzero()[-1, 0]`, and the embedding there."""

    def __init__(self, vocab=4, dim=5, sep_token_id=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.sep_token_id = sep_token_id

    def forward(self, ids):
        emb = self.embed(ids)
        is_sep = ids == self.sep_token_id
        last_sep = is_sep.nonzero()[-1, 0]
        return emb[last_sep], emb.mean(0)

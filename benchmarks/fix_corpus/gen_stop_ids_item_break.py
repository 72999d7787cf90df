# spec: {"model": "gen_stop_ids_item_break.py:GRUFreeDecoder", "init": {"args": [40, 32]}, "inputs": [{"tensor": [1, 4], "dtype": "int64", "init": "randint", "low": 0, "high": 40}]}
import torch
from torch import nn


class GRUFreeDecoder(nn.Module):
    """Tiny causal-conv language model with a greedy loop that stops on any of several stop-token ids."""

    def __init__(self, vocab, dim, stop_ids=(0, 1, 2), max_new=6):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.conv = nn.Conv1d(dim, dim, 3, padding=2)
        self.head = nn.Linear(dim, vocab)
        self.stop_ids = set(stop_ids)
        self.max_new = max_new

    def next_token(self, ids):
        h = self.conv(self.emb(ids).transpose(1, 2))[..., : ids.shape[1]]
        return self.head(h[..., -1]).argmax(-1)

    def forward(self, ids):
        for _ in range(self.max_new):
            tok = self.next_token(ids)
            ids = torch.cat([ids, tok[:, None]], dim=1)
            if tok.item() in self.stop_ids:
                break
        return ids

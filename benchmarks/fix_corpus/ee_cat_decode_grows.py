# spec: {"model": "ee_cat_decode_grows.py:CatGreedy", "inputs": [{"tensor": [2, 3], "dtype": "int64", "init": "randint", "low": 1, "high": 10}]}
import torch
from torch import nn


class CatGreedy(nn.Module):
    """Greedy decoding that grows `ids` with torch.cat (HF generate style): the state's shape
    depends on when the loop stops, so it has no branchless form."""

    def __init__(self, vocab=10, dim=8, eos=0, max_new_tokens=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab)
        with torch.no_grad():
            self.head.bias[eos] = 3.0
        self.eos = eos
        self.max_new_tokens = max_new_tokens

    def forward(self, ids):
        for _ in range(self.max_new_tokens):
            logits = self.head(self.embed(ids).mean(1))
            nxt = logits.argmax(-1, keepdim=True)
            ids = torch.cat([ids, nxt], dim=1)
            if (nxt == self.eos).all():
                break
        return ids

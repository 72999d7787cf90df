# spec: {"model": "r3_gen_loop_eos_step.py:TinyLM", "init": {"args": [16]}, "inputs": [{"tensor": [1, 3], "dtype": "int64", "init": "randint", "low": 0, "high": 16}], "kwargs": {"max_new_tokens": 4}}
import torch
from torch import nn


class TinyLM(nn.Module):
    """Greedy decoding that stops at EOS, the next-token step a method of its own."""

    def __init__(self, vocab, eos_id=1):
        super().__init__()
        self.emb = nn.Embedding(vocab, 16)
        self.head = nn.Linear(16, vocab)
        self.eos_id = eos_id

    def next_token(self, ids):
        h = self.emb(ids).mean(1)
        return self.head(h).argmax(-1, keepdim=True)

    def forward(self, ids, max_new_tokens=8):
        for _ in range(max_new_tokens):
            nxt = self.next_token(ids)
            ids = torch.cat([ids, nxt], dim=1)
            if nxt.item() == self.eos_id:
                break
        return ids

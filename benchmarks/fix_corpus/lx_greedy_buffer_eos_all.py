# spec: {"model": "lx_greedy_buffer_eos_all.py:GreedyDecoder", "init": {"args": [20, 16]}, "inputs": [{"tensor": [2, 16]}]}
import torch
from torch import nn


class GreedyDecoder(nn.Module):
    """Captioning-style greedy decoder writing a preallocated buffer; stops once every row emitted EOS."""

    def __init__(self, vocab, dim, max_len=8, eos_id=3, pad_id=0):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.cell = nn.GRUCell(dim, dim)
        self.out = nn.Linear(dim, vocab)
        self.max_len = max_len
        self.eos_id = eos_id
        self.pad_id = pad_id

    def forward(self, h):
        B = h.shape[0]
        tokens = torch.full((B, self.max_len), self.pad_id, dtype=torch.long)
        tok = torch.zeros(B, dtype=torch.long)
        finished = torch.zeros(B, dtype=torch.bool)
        for t in range(self.max_len):
            h = self.cell(self.emb(tok), h)
            tok = self.out(h).argmax(-1)
            tok = tok.masked_fill(finished, self.pad_id)
            tokens[:, t] = tok
            finished = finished | (tok == self.eos_id)
            if finished.all():
                break
        return tokens, h

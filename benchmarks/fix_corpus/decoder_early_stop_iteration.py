# spec: {"model": "decoder_early_stop_iteration.py:EarlyStopDecoder", "inputs": [{"tensor": [2, 8], "init": "randn"}]}
import torch
import torch.nn.functional as F
from torch import nn


class EarlyStopDecoder(nn.Module):
    """Autoregressive decoding whose step raises StopIteration once every sequence is confident,
    caught by the loop (control flow through an exception: must not become an assertion)."""

    def __init__(self, dim=8, vocab=10, max_len=5, thr=0.05):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.cell = nn.GRUCell(dim, dim)
        self.out = nn.Linear(dim, vocab)
        self.max_len = max_len
        self.thr = thr

    def step(self, tok, h):
        h = self.cell(self.emb(tok), h)
        logits = self.out(h)
        p = F.softmax(logits, -1)
        entropy = -(p * p.clamp_min(1e-9).log()).sum(-1)
        if (entropy < self.thr).all():
            raise StopIteration
        return logits, h

    def forward(self, h):
        tok = torch.zeros(h.shape[0], dtype=torch.long)
        outs = []
        for _ in range(self.max_len):
            try:
                logits, h = self.step(tok, h)
            except StopIteration:
                break
            outs.append(logits)
            tok = logits.argmax(-1)
        return torch.stack(outs, 1)

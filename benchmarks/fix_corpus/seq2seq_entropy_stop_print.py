# spec: {"model": "seq2seq_entropy_stop_print.py:GreedyDecoder", "inputs": [{"tensor": [2, 8], "init": "randn"}]}
import torch
import torch.nn.functional as F
from torch import nn


class StopDecoding(Exception):
    pass


class GreedyDecoder(nn.Module):
    """A GRU decoder whose step raises once the predictions are confident (mean entropy under a
    threshold), printing the step it stopped at, as in many seq2seq tutorials."""

    def __init__(self, dim=8, vocab=10, max_len=6, thr=3.0):
        super().__init__()
        self.max_len = max_len
        self.thr = thr
        self.emb = nn.Embedding(vocab, dim)
        self.cell = nn.GRUCell(dim, dim)
        self.out = nn.Linear(dim, vocab)

    def step(self, tok, h, i):
        h = self.cell(self.emb(tok), h)
        logits = self.out(h)
        p = F.softmax(logits, dim=-1)
        entropy = -(p * p.clamp_min(1e-9).log()).sum(-1)
        if entropy.mean() < self.thr:
            print(f"step {i}: entropy {entropy.mean():.3f} under {self.thr}, stopping")
            raise StopDecoding()
        return logits, h

    def forward(self, h):
        tok = torch.zeros(h.shape[0], dtype=torch.long)
        logits_all = [self.out(h)]
        try:
            for i in range(self.max_len):
                logits, h = self.step(tok, h, i)
                logits_all.append(logits)
                tok = logits.argmax(-1)
        except StopDecoding:
            pass
        return torch.stack(logits_all, 1)

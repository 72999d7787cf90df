# spec: {"model": "beam_search_tuple_hyps.py:BeamSearch", "inputs": [{"tensor": [8], "init": "randn"}]}
import torch
from torch import nn


class BeamSearch(nn.Module):
    """Beam search written the textbook way: hypotheses are `(score, tokens)` tuples in a
    Python list, ranked with `sorted(..., key=lambda h: h[0])` each step."""

    def __init__(self, dim=8, vocab=7, beam=3, steps=3):
        super().__init__()
        self.beam = beam
        self.steps = steps
        self.emb = nn.Embedding(vocab, dim)
        self.cell = nn.GRUCell(dim, dim)
        self.out = nn.Linear(dim, vocab)

    def forward(self, h0):
        hyps = [(torch.zeros(()), torch.zeros(1, dtype=torch.long))]
        for _ in range(self.steps):
            cands = []
            for score, toks in hyps:
                h = self.cell(self.emb(toks[-1:]), h0[None])
                logp = self.out(h)[0].log_softmax(-1)
                top = logp.topk(self.beam)
                for lp, idx in zip(top.values, top.indices):
                    cands.append((score + lp, torch.cat([toks, idx.view(1)])))
            hyps = sorted(cands, key=lambda h: h[0], reverse=True)[: self.beam]
        return torch.stack([s for s, _ in hyps]), torch.stack([t for _, t in hyps])

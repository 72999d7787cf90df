# spec: {"model": "lp_beam_heapq_nlargest.py:BeamStep", "init": {"args": [16, 20]}, "inputs": [{"tensor": [16]}]}
import heapq

import torch
from torch import nn


class BeamStep(nn.Module):
    """One beam-search expansion (fairseq-like scripts): the candidates are (score, token) pairs of
    one score tensor and the beam keeps heapq.nlargest of them."""

    def __init__(self, dim, vocab, beam_size=4):
        super().__init__()
        self.lm_head = nn.Linear(dim, vocab)
        self.beam_size = beam_size

    def forward(self, h):
        logp = self.lm_head(h).log_softmax(-1)
        candidates = [(logp[t], t) for t in range(logp.shape[0])]
        best = heapq.nlargest(self.beam_size, candidates, key=lambda c: c[0])
        scores = torch.stack([s for s, _ in best])
        tokens = torch.tensor([t for _, t in best])
        return scores, tokens

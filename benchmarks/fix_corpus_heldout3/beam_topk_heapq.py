# spec: {"model": "beam_topk_heapq.py:HeapBeamStep", "init": {"args": [16, 20]}, "inputs": [{"tensor": [3, 16]}, {"tensor": [3], "init": "randn"}]}
import heapq

import torch
from torch import nn


class HeapBeamStep(nn.Module):
    """One beam-search expansion step that keeps the best candidates with heapq (translation toolkit style)."""

    def __init__(self, hidden, vocab, beam_size=3):
        super().__init__()
        self.proj = nn.Linear(hidden, vocab)
        self.beam_size = beam_size

    def forward(self, beam_states, beam_scores):
        log_probs = self.proj(beam_states).log_softmax(-1)
        top_lp, top_ids = log_probs.topk(self.beam_size, dim=-1)
        candidates = []
        for b in range(beam_states.shape[0]):
            for k in range(self.beam_size):
                candidates.append((beam_scores[b] + top_lp[b, k], b, top_ids[b, k]))
        best = heapq.nlargest(self.beam_size, candidates, key=lambda c: c[0])
        scores = torch.stack([c[0] for c in best])
        parents = torch.tensor([c[1] for c in best])
        tokens = torch.stack([c[2] for c in best])
        return scores, parents, tokens

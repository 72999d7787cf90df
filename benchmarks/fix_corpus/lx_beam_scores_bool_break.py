# spec: {"model": "lx_beam_scores_bool_break.py:ScoreAccumulator", "init": {"args": [12, 8]}, "inputs": [{"tensor": [3, 8]}]}
import torch
from torch import nn


class ScoreAccumulator(nn.Module):
    """Fairseq-style step loop: log-probs accumulate until every hypothesis is done (`bool()` of a reduction)."""

    def __init__(self, vocab, dim, max_steps=6, eos=1):
        super().__init__()
        self.cell = nn.GRUCell(vocab, dim)
        self.proj = nn.Linear(dim, vocab)
        self.max_steps = max_steps
        self.eos = eos

    def forward(self, h):
        scores = h.new_zeros(h.shape[0])
        done = torch.zeros(h.shape[0], dtype=torch.bool)
        inp = torch.zeros(h.shape[0], self.proj.out_features)
        for step in range(self.max_steps):
            h = self.cell(inp, h)
            logp = self.proj(h).log_softmax(-1)
            best, idx = logp.max(-1)
            scores = scores + torch.where(done, torch.zeros_like(best), best)
            done = done | (idx == self.eos)
            inp = logp.exp()
            all_done = bool(done.all())
            if all_done:
                break
        return scores, h

# spec: {"model": "sampler_typical_mass_cut.py:TypicalSampler", "init": {"args": [80, 16]}, "inputs": [{"tensor": [1, 16]}]}
import torch
from torch import nn


def typical_filter(logits, mass=0.9, min_tokens_to_keep=1):
    log_p = logits.log_softmax(-1)
    p = log_p.exp()
    ent = -(p * log_p).sum(-1, keepdim=True)
    shifted = (-log_p - ent).abs()
    sorted_scores, sorted_idx = shifted.sort(dim=-1)
    cum = p.gather(-1, sorted_idx).cumsum(-1)
    last = (cum < mass).sum(-1)
    cutoff = max(int(last[0]) + 1, min_tokens_to_keep)
    keep_idx = sorted_idx[0, :cutoff]
    out = torch.full_like(logits, float("-inf"))
    out[0, keep_idx] = logits[0, keep_idx]
    return out


class TypicalSampler(nn.Module):
    """Locally typical sampling (Meister et al.) as a standalone filter function after an LM head."""

    def __init__(self, vocab, dim, mass=0.9):
        super().__init__()
        self.head = nn.Linear(dim, vocab)
        self.mass = mass

    def forward(self, h):
        logits = typical_filter(self.head(h), mass=self.mass)
        return logits.softmax(-1).argmax(-1)
